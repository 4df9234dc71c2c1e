// The fleet service: started by `serve` only when fleet.redis is set. It hooks the event bus and
// the config store (local changes -> publish), listens for the fleet's announcements (-> apply),
// and once a second retries what failed, catches up if a notification was missed and tells the
// fleet it is alive. Nothing here is on the DNS path: DNS keeps the snapshot it has, whatever
// Redis does.
import { ownWebPorts } from "../net/address-rule.ts";
import { hostname } from "node:os";
import { join } from "node:path";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Runtime } from "../core/runtime.ts";
import type { DnsHandle } from "../dns/server.ts";
import type { FilterHandle } from "../filter/service.ts";
import { configKind } from "./config-state.ts";
import { ListsKind } from "./lists-state.ts";
import { isSharedKey } from "./shared-keys.ts";
import { RedisLink } from "./redis-link.ts";
import { KindStore } from "./kind-store.ts";
import { Replica, type ReplicaRecord, type ReplicaStatus } from "./replica.ts";
import { blockingKind } from "./live.ts";
import { GravityShare } from "./gravity-share.ts";
import { FleetMessages } from "./messages.ts";
import { Messages } from "../messages/messages.ts";

const TICK_MS = 1000;
/** a node not heard from for this long is reported as down */
const NODE_STALE_MS = 10_000;

interface SavedState {
  /** the store these records belong to: another URL is another fleet */
  redis: string;
  kinds: Record<string, ReplicaRecord>;
}

interface FleetNode {
  node: string;
  /** ms since epoch of its last heartbeat */
  seen: number;
  healthy: boolean;
  versions: Record<string, number>;
  pending: string[];
  api: string;
}

export interface FleetStatus {
  node: string;
  connected: boolean;
  error: string | null;
  kinds: Record<string, ReplicaStatus>;
  nodes: FleetNode[];
  gravity: { version: number; leader: string | null; error: string | null };
}

interface FleetDeps
  extends Pick<Runtime, "config" | "paths" | "gravityDb" | "queryDb" | "events" | "blocking" | "log"> {
  /** a restartdns from another node restarts this node's DNS too: its caches and its filter */
  dns: Pick<DnsHandle, "flushCache">;
  filter: Pick<FilterHandle, "rebuild">;
}

export function defaultNodeName(rt: Pick<Runtime, "config">): string {
  return rt.config.current.fleet.node || `${hostname()}:${rt.config.current.webserver.port.split(",")[0]!.trim()}`;
}

export class Fleet {
  readonly node: string;
  private readonly link: RedisLink;
  private readonly replicas = new Map<string, Replica>();
  private readonly lists: ListsKind;
  readonly gravity: GravityShare;
  private readonly messages: FleetMessages;
  private readonly stateFile: string;
  private timer: ReturnType<typeof setInterval> | undefined;
  private unsub: Array<() => void> = [];
  private stopped = false;

  constructor(
    private readonly rt: FleetDeps,
    private readonly url: string,
  ) {
    this.node = defaultNodeName(rt);
    this.stateFile = join(rt.paths.dataDir, "fleet-state.json");
    this.link = new RedisLink(
      url,
      ownWebPorts(rt.config.current.webserver.port),
      (kind, version) =>
        kind === "gravity" ? void this.gravity.tick() : void this.replicas.get(kind)?.remoteChange(version),
      (action, node) => void this.onAction(action, node),
    );
    this.gravity = new GravityShare(rt, this.link, this.node);
    this.messages = new FleetMessages(new Messages(rt.queryDb));
    const saved = this.load();
    const store = new KindStore(this.link);
    this.lists = new ListsKind(rt.gravityDb, rt.events);
    for (const kind of [this.lists, configKind(rt.config), blockingKind(rt.blocking)])
      this.replicas.set(
        kind.name,
        new Replica(kind, store, this.node, saved[kind.name] ?? null, () => this.save(), rt.log),
      );
  }

  start(): void {
    this.unsub.push(
      // only this node's own changes: what the fleet applied here arrives as "lists-changed-remote"
      this.rt.events.on("lists-changed", () => {
        this.lists.changed();
        void this.replicas.get("lists")!.localChange();
      }),
      this.rt.config.subscribe((_next, _prev, changed) => {
        if (changed.some(isSharedKey)) void this.replicas.get("config")!.localChange();
      }),
      this.rt.events.on("blocking-changed", () => void this.replicas.get("blocking")!.localChange()),
      this.rt.events.on("gravity-updated", ({ ok }) => {
        if (ok) this.gravity.localRun();
      }),
      this.rt.events.on("dns-restarted", ({ origin }) => {
        if (origin === "api")
          this.link
            .announce("restartdns", this.node)
            .catch((e) => this.rt.log("warn", `fleet: restartdns not announced: ${(e as Error).message}`));
      }),
    );
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    // changes made while this node was away (or killed before it published) go out first
    for (const r of this.replicas.values()) void r.localChange();
    this.rt.log("info", `fleet: node ${this.node} joining through ${redactUrl(this.url)}`);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.link.ensure();
    } catch (e) {
      // Redis away: DNS answers with what it has; the changes wait here
      const waiting = [...this.replicas.values()].some((r) => r.status().pending);
      const text = `fleet: this node cannot reach the fleet's Redis (${(e as Error).message}); DNS answers with the configuration it has${waiting ? ", and its own changes wait to be published" : ""}`;
      this.messages.update(new Map([["self", text]]));
      return;
    }
    await this.noticeOthers();
    for (const r of this.replicas.values()) void r.check().catch(() => undefined);
    await this.gravity.tick();
    const versions: Record<string, number> = {};
    const pending: string[] = [];
    for (const [name, r] of this.replicas) {
      const s = r.status();
      versions[name] = s.version;
      if (s.pending) pending.push(name);
    }
    await this.link
      .heartbeat(this.node, { seen: Date.now(), versions, pending, api: this.rt.config.current.webserver.port })
      .catch(() => undefined);
  }

  /** Nodes that went quiet without saying goodbye are news in /api/info/messages. */
  private async noticeOthers(): Promise<void> {
    const now = new Map<string, string>();
    try {
      const t = Date.now();
      for (const [node, v] of Object.entries(await this.link.nodes()))
        if (node !== this.node && v.stopped !== true && t - Number(v.seen ?? 0) >= NODE_STALE_MS)
          now.set(
            node,
            `fleet: node ${node} has not been heard from since ${new Date(Number(v.seen ?? 0)).toISOString()}; it may be answering with an older configuration`,
          );
    } catch {
      return;
    }
    this.messages.update(now);
  }

  private async onAction(action: string, from: string): Promise<void> {
    if (from === this.node || action !== "restartdns") return;
    this.rt.log("info", `fleet: restartdns from ${from}: flushing the cache and reloading the lists`);
    await this.rt.dns.flushCache();
    await this.rt.filter.rebuild();
    await this.rt.events.emit("dns-restarted", { origin: "fleet" });
  }

  /**
   * Resolves once this node has joined (every kind synced once) or after `ms`: the API opens with
   * the fleet's state rather than the node's own, unless Redis cannot be reached.
   */
  async ready(ms: number): Promise<void> {
    await Promise.race([this.settle(), Bun.sleep(ms)]);
  }

  /** Resolves when every kind has done one sync (tests, start-up). */
  async settle(): Promise<void> {
    await Promise.all([...this.replicas.values()].map((r) => r.sync()));
  }

  async status(): Promise<FleetStatus> {
    const kinds: Record<string, ReplicaStatus> = {};
    for (const [name, r] of this.replicas) kinds[name] = r.status();
    let nodes: FleetNode[] = [];
    try {
      const now = Date.now();
      nodes = Object.entries(await this.link.nodes()).map(([node, v]) => ({
        node,
        seen: Number(v.seen ?? 0),
        healthy: v.stopped !== true && now - Number(v.seen ?? 0) < NODE_STALE_MS,
        versions: (v.versions ?? {}) as Record<string, number>,
        pending: (v.pending ?? []) as string[],
        api: String(v.api ?? ""),
      }));
    } catch {
      // Redis away: only this node's own view
    }
    const leader = await this.link.leaseHolder("gravity").catch(() => null);
    const gravity = { version: this.gravity.version, leader, error: this.gravity.error };
    return { node: this.node, connected: this.link.connected, error: this.link.lastError, kinds, nodes, gravity };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const u of this.unsub) u();
    // a node that leaves says so (one that crashes is noticed when its heartbeat stops)
    await Promise.race([
      this.link
        .heartbeat(this.node, { seen: Date.now(), stopped: true, versions: {}, pending: [], api: "" })
        .catch(() => undefined),
      Bun.sleep(500),
    ]);
    this.link.close();
  }

  private load(): Record<string, ReplicaRecord> {
    try {
      const s = JSON.parse(readFileSync(this.stateFile, "utf8")) as SavedState;
      return s.redis === redactUrl(this.url) ? s.kinds : {};
    } catch {
      return {};
    }
  }

  private save(): void {
    const kinds: Record<string, ReplicaRecord> = {};
    for (const [name, r] of this.replicas) if (r.saved) kinds[name] = r.saved;
    const tmp = `${this.stateFile}.tmp`;
    writeFileSync(tmp, JSON.stringify({ redis: redactUrl(this.url), kinds } satisfies SavedState));
    renameSync(tmp, this.stateFile);
  }
}

/** The URL without its password, for logs and the state file. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(invalid URL)";
  }
}

export function startFleet(rt: FleetDeps): Fleet | null {
  const url = rt.config.current.fleet.redis;
  if (!url) return null;
  const fleet = new Fleet(rt, url);
  fleet.start();
  return fleet;
}
