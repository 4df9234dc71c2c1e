// The fleet's one connection to Valkey/Redis (plus one for notifications), the leases, the gravity
// package and the nodes' heartbeats. Versions come from one counter (INCR), so every change in the
// fleet has its place in one total order; how the replicated kinds are stored and published is
// kind-store.ts. Commands fail at once while the server is away (no offline queue): the caller
// keeps its change and retries, DNS never waits.
import { checkedAddress, pinnedUrl } from "../net/address-rule.ts";
import { RedisClient } from "bun";

export const PREFIX = "moat:fleet:";
/** "<kind> <version> <node>": a kind (or the gravity package) reached a version */
export const CHANNEL = `${PREFIX}changes`;
/** one-off actions ("restartdns <node>"), announced to the nodes listening now */
const ACTIONS = `${PREFIX}actions`;
/** one order for every version of every kind and of the gravity package */
export const COUNTER = `${PREFIX}version`;
const NODES = `${PREFIX}nodes`;

const GRAVITY = `${PREFIX}gravity`;

const LEASE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0`;

const PUBLISH_GRAVITY = `
local v = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'version', v, 'node', ARGV[1], 'at', ARGV[2], 'hash', ARGV[3], 'updated', ARGV[4], 'data', ARGV[5])
redis.call('PUBLISH', KEYS[3], 'gravity ' .. v .. ' ' .. ARGV[1])
return v`;

class HashMismatch extends Error {}

const OPTIONS = { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: 2000 } as const;

export class RedisLink {
  private cmd: RedisClient | null = null;
  private sub: RedisClient | null = null;
  private connecting: Promise<void> | null = null;
  lastError: string | null = null;

  constructor(
    private readonly url: string,
    /** Moat's own web server ports (webserver.port): the address rule never connects there on this machine */
    private readonly ownPorts: readonly number[],
    /** a notification: `kind` reached `version` (published by `node`) */
    private readonly onChange: (kind: string, version: number, node: string) => void,
    /** another node announced an action */
    private readonly onAction: (action: string, node: string) => void = () => {},
  ) {}

  get connected(): boolean {
    return !!this.cmd?.connected && !!this.sub?.connected;
  }

  /** Connects both clients if they are not; throws when the server cannot be reached. */
  ensure(): Promise<void> {
    if (this.connected) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connect(): Promise<void> {
    try {
      // the address rule (src/net/address-rule.ts): resolved and checked here, and a plain connection
      // goes to that checked address (rediss:// keeps the name, which its certificate check needs)
      const u = new URL(this.url);
      const ip = await checkedAddress(u, this.ownPorts);
      const target = u.protocol === "redis:" ? pinnedUrl(u, ip).href : this.url;
      if (!this.cmd?.connected) {
        this.cmd?.close();
        this.cmd = new RedisClient(target, OPTIONS);
        await this.cmd.connect();
      }
      if (!this.sub?.connected) {
        this.sub?.close();
        this.sub = new RedisClient(target, OPTIONS);
        await this.sub.connect();
        await this.sub.subscribe(CHANNEL, (message) => {
          const [kind, version, node] = message.split(" ");
          if (kind && version) this.onChange(kind, Number(version), node ?? "");
        });
        await this.sub.subscribe(ACTIONS, (message) => {
          const [action, node] = message.split(" ");
          if (action) this.onAction(action, node ?? "");
        });
      }
      this.lastError = null;
    } catch (e) {
      this.lastError = (e as Error).message;
      throw e;
    }
  }

  /** One command; throws (and keeps the reason for status) when the server is away. */
  async send(command: string, args: string[]): Promise<unknown> {
    await this.ensure();
    try {
      return await this.cmd!.send(command, args);
    } catch (e) {
      this.lastError = (e as Error).message;
      throw e;
    }
  }

  /** Takes or renews a lease named `name`; true while this node holds it. */
  async lease(name: string, node: string, ms: number): Promise<boolean> {
    return Number(await this.send("EVAL", [LEASE, "1", `${PREFIX}lease:${name}`, node, String(ms)])) === 1;
  }

  async leaseHolder(name: string): Promise<string | null> {
    return ((await this.send("GET", [`${PREFIX}lease:${name}`])) as string | null) ?? null;
  }

  async gravityHead(): Promise<{ version: number; updated: string; node: string } | null> {
    const [version, updated, node] = (await this.send("HMGET", [GRAVITY, "version", "updated", "node"])) as Array<
      string | null
    >;
    return version ? { version: Number(version), updated: updated ?? "", node: node ?? "" } : null;
  }

  /** Stores a finished gravity package (gzip bytes) as the next version; returns it. */
  async publishGravity(node: string, updated: string, data: Uint8Array): Promise<number> {
    const hash = new Bun.CryptoHasher("sha256").update(data).digest("hex");
    const b64 = Buffer.from(data).toString("base64");
    return Number(
      await this.send("EVAL", [
        PUBLISH_GRAVITY,
        "3",
        GRAVITY,
        COUNTER,
        CHANNEL,
        node,
        String(Date.now()),
        hash,
        updated,
        b64,
      ]),
    );
  }

  /** The stored gravity package, checked against its hash. */
  async fetchGravity(): Promise<{ version: number; node: string; data: Uint8Array<ArrayBuffer> } | null> {
    const [version, node, hash, b64] = (await this.send("HMGET", [
      GRAVITY,
      "version",
      "node",
      "hash",
      "data",
    ])) as Array<string | null>;
    if (!version || b64 == null) return null;
    const data = new Uint8Array(Buffer.from(b64, "base64"));
    if (new Bun.CryptoHasher("sha256").update(data).digest("hex") !== hash)
      throw new HashMismatch(`fleet gravity version ${version}: stored package does not match its hash`);
    return { version: Number(version), node: node ?? "", data };
  }

  async announce(action: string, node: string): Promise<void> {
    await this.send("PUBLISH", [ACTIONS, `${action} ${node}`]);
  }

  /** Tells the fleet this node is alive and where it stands. */
  async heartbeat(node: string, info: Record<string, unknown>): Promise<void> {
    await this.send("HSET", [NODES, node, JSON.stringify(info)]);
  }

  async nodes(): Promise<Record<string, Record<string, unknown>>> {
    const all = (await this.send("HGETALL", [NODES])) as Record<string, string> | null;
    const out: Record<string, Record<string, unknown>> = {};
    for (const [k, v] of Object.entries(all ?? {})) {
      try {
        out[k] = JSON.parse(v) as Record<string, unknown>;
      } catch {
        // a foreign value under our key: not a node
      }
    }
    return out;
  }

  close(): void {
    this.cmd?.close();
    this.sub?.close();
    this.cmd = this.sub = null;
  }
}
