// The filter engine: one immutable Snapshot of every list, shared by all queries, rebuilt when the
// lists change (the gravity sets in a worker, the domain entries alone on this thread when only they
// changed) and swapped in one assignment, so no query ever sees half a set.
import { DomainSet } from "./domainset.ts";
import { compileRegex, unionOf, type CompiledRegex, type NameMatcher } from "./regex.ts";
import { ClientResolver, type ClientResolverOptions } from "./clients.ts";
import {
  buildDomainsOnly,
  buildSnapshotData,
  emptySetData,
  type DomainsData,
  type RegexEntry,
  type SnapshotData,
} from "./build.ts";
import { Coalescer } from "./coalesce.ts";
import { closeSnapshotFile } from "./snapshot-file.ts";
import type { ListTable } from "../core/events.ts";
import { workerUrl } from "../core/worker-url.ts";
import type { GroupPolicy, PolicyPoint, PolicySet } from "./policy.ts";

export interface RegexRule extends CompiledRegex {
  mask: Uint32Array;
}

export class Snapshot {
  readonly allowExact: DomainSet;
  readonly denyExact: DomainSet;
  readonly gravity: DomainSet;
  readonly antigravity: DomainSet;
  readonly gravityAbp: DomainSet;
  readonly antigravityAbp: DomainSet;
  readonly allowRegex: RegexRule[];
  readonly denyRegex: RegexRule[];
  /** the union of each list's non-inverted rules: no hit, no need to try them one by one */
  readonly allowRegexAny: NameMatcher | null;
  readonly denyRegexAny: NameMatcher | null;
  readonly clients: ClientResolver;
  /**
   * What each group policy (src/policies/) loaded from its part of the data, by its index in `policies.list`;
   * null: it has nothing to judge. One collection, so the snapshot does not grow with each policy.
   */
  readonly states: readonly unknown[];
  /** the indices of the policies with something to judge, per point, in the registry's order */
  readonly active: Readonly<Record<PolicyPoint, readonly number[]>>;
  /** whether one of them is judged with blocking off too */
  readonly activeAlways: boolean;
  readonly problems: string[] = [];

  /** `base`: only the domain entries differ from it, so its gravity sets and clients are taken as they are */
  constructor(
    readonly data: SnapshotData,
    readonly policies: PolicySet,
    readonly builtAt: number,
    clientOpts: ClientResolverOptions = {},
    base?: Snapshot,
  ) {
    this.allowExact = new DomainSet(data.allowExact);
    this.denyExact = new DomainSet(data.denyExact);
    [this.allowRegex, this.allowRegexAny] = this.rules(
      data.allowRegex,
      base?.data.allowRegex,
      base?.allowRegex,
      base?.allowRegexAny,
    );
    [this.denyRegex, this.denyRegexAny] = this.rules(
      data.denyRegex,
      base?.data.denyRegex,
      base?.denyRegex,
      base?.denyRegexAny,
    );
    if (base) {
      this.gravity = base.gravity;
      this.antigravity = base.antigravity;
      this.gravityAbp = base.gravityAbp;
      this.antigravityAbp = base.antigravityAbp;
      // the same clients and groups: what it learnt of each client stays valid
      this.clients = base.clients;
      // and the same policies (they are not domain entries)
      this.states = base.states;
      this.active = base.active;
      this.activeAlways = base.activeAlways;
      return;
    }
    this.gravity = new DomainSet(data.gravity);
    this.antigravity = new DomainSet(data.antigravity);
    this.gravityAbp = new DomainSet(data.gravityAbp);
    this.antigravityAbp = new DomainSet(data.antigravityAbp);
    // unknown clients are in group 0 (Default) when it is enabled
    const fallback = new Uint32Array(data.words);
    const bit0 = data.groupBits.find(([id]) => id === 0)?.[1];
    if (bit0 !== undefined) fallback[bit0 >>> 5]! |= 1 << (bit0 & 31);
    this.clients = new ClientResolver(data.clients, fallback, clientOpts);
    this.states = policies.list.map((p) => p.load(data.policies[p.name] ?? p.empty(data.words), clientOpts));
    const active: Record<PolicyPoint, number[]> = { client: [], beforeAllow: [], afterDeny: [] };
    let always = false;
    policies.list.forEach((p, i) => {
      if (this.states[i] === null) return;
      active[p.point].push(i);
      always ||= p.always === true;
    });
    this.active = active;
    this.activeAlways = always;
  }

  static empty(policies: PolicySet): Snapshot {
    const e = emptySetData();
    return new Snapshot(
      {
        words: 1,
        groupBits: [[0, 0]],
        allowExact: e,
        denyExact: e,
        gravity: e,
        antigravity: e,
        gravityAbp: e,
        antigravityAbp: e,
        allowRegex: [],
        denyRegex: [],
        clients: [],
        policies: Object.fromEntries(policies.list.map((p) => [p.name, p.empty(1)])),
        buildMs: 0,
      },
      policies,
      Date.now(),
    );
  }

  /** What `p` loaded (null: it has nothing to judge, or it is not one of this snapshot's policies). */
  stateOf<S>(p: GroupPolicy<object, S>): S | null {
    const i = this.policies.list.indexOf(p);
    return i < 0 ? null : (this.states[i] as S | null);
  }

  /** The client `ip` has a new host name: what the snapshot learnt of it is forgotten. */
  forget(ip: string): void {
    this.clients.forget(ip);
    const list = this.policies.list;
    for (let i = 0; i < list.length; i++) if (this.states[i] !== null) list[i]!.forget?.(this.states[i], ip);
  }

  /** This snapshot with other domain entries (built for the same enabled groups): the gravity sets are shared. */
  withDomains(d: DomainsData, builtAt: number): Snapshot {
    return new Snapshot({ ...this.data, ...d }, this.policies, builtAt, {}, this);
  }

  get hasAbp(): boolean {
    return this.gravityAbp.size > 0 || this.antigravityAbp.size > 0;
  }

  /** The compiled rules and their union; the previous snapshot's when the entries are the same (no recompiling). */
  private rules(
    entries: RegexEntry[],
    prevEntries: RegexEntry[] | undefined,
    prevRules: RegexRule[] | undefined,
    prevAny: NameMatcher | null | undefined,
  ): [RegexRule[], NameMatcher | null] {
    if (prevEntries && prevRules && prevAny !== undefined && sameEntries(entries, prevEntries))
      return [prevRules, prevAny];
    const out: RegexRule[] = [];
    for (const e of entries) {
      const r = compileRegex(e.id, e.pattern);
      if (typeof r === "string") this.problems.push(`regex ${e.id} "${e.pattern}": ${r}`);
      else out.push({ ...r, mask: Uint32Array.from(e.mask) });
    }
    return [out, unionOf(out)];
  }
}

function sameEntries(a: RegexEntry[], b: RegexEntry[]): boolean {
  return (
    a.length === b.length &&
    a.every((e, i) => {
      const o = b[i]!;
      return (
        e.id === o.id &&
        e.pattern === o.pattern &&
        e.mask.length === o.mask.length &&
        e.mask.every((m, j) => m === o.mask[j])
      );
    })
  );
}

/**
 * Up to this many domain entries the domain part is rebuilt on the engine's own thread (the DNS
 * thread), which stalls it that long: ~2 ms at 2,000 entries (read, build and swap measured at 5,000
 * on a loaded 2-core box: 5 ms, spread over the SQLite read, wire names and the set's build). A larger
 * domainlist is built in the worker, which costs a thread start (tens of ms) but never stalls DNS.
 */
const DOMAINS_ON_THIS_THREAD = 2000;

export interface FilterEngineOptions {
  dbPath: string;
  /** the group policies (src/policies/registry.ts): handed in, so the filter imports none of them */
  policies: PolicySet;
  log: (level: "info" | "warn" | "error", msg: string) => void;
  clientOpts?: ClientResolverOptions;
  /** build in a worker (default) or inline (tests of the engine itself) */
  worker?: boolean;
  /** applied to each build's data before it becomes a snapshot (the DNS threads move it into shared memory) */
  prepare?: <T extends object>(data: T) => T;
  /**
   * called with each new snapshot once it is current (`domainsOnly`: it differs from the previous one in
   * its domain entries alone); a change resolves after its promise (the other DNS threads take it)
   */
  published?: (snap: Snapshot, domainsOnly: boolean) => Promise<void> | void | undefined;
}

/**
 * Keeps `current` in step with gravity.db in two parts. The gravity sets (a million names take
 * 100–200 ms to load and resolve) are rebuilt in a worker when the lists, groups or clients change or
 * gravity runs; the domainlist (exact and regex allow/deny entries) is rebuilt alone, on this thread,
 * when only it changed: a few ms, no worker, and the gravity sets are shared with the previous
 * snapshot. Each kind coalesces its bursts (one build in flight, one pending).
 */
export class FilterEngine {
  current: Snapshot;
  /** how many snapshots were swapped in */
  generation = 0;
  private worker: Worker | null = null;
  private seq = 0;
  private readonly waiters = new Map<number, { resolve: (d: unknown) => void; reject: (e: Error) => void }>();
  private readonly full = new Coalescer(() => this.buildAll());
  private readonly domains = new Coalescer(() => this.buildDomains());
  /** domainlist changes so far: a full build that began before the latest must take the domains anew */
  private domainChanges = 0;

  constructor(private readonly o: FilterEngineOptions) {
    this.current = Snapshot.empty(o.policies);
  }

  /** Builds the first snapshot (start-up waits for it, so nothing slips through unfiltered). */
  async start(): Promise<void> {
    await this.rebuild();
  }

  /**
   * Rebuilds the whole snapshot now (or right after the build in progress) and resolves once the new
   * snapshot is live. Changes that arrive during a build collapse into one more build.
   */
  rebuild(): Promise<void> {
    return this.full.run();
  }

  /** The management tables `tables` changed: resolves once the change is in force. */
  changed(tables: readonly ListTable[]): Promise<void> {
    if (!tables.every((t) => t === "domainlist")) return this.rebuild();
    this.domainChanges++;
    return this.domains.run();
  }

  private async buildAll(): Promise<void> {
    let seen = this.domainChanges;
    try {
      let built = await this.build();
      // a domain entry changed during the build and is live already: the build's own copy is older
      while (this.domainChanges !== seen) {
        seen = this.domainChanges;
        const d = await this.buildDomainPart(built);
        // null: the groups changed as well, and a full build is pending anyway
        if (d) built = { ...built, ...d };
      }
      const data = this.o.prepare ? this.o.prepare(built) : built;
      const snap = new Snapshot(data, this.o.policies, Date.now(), this.o.clientOpts);
      await this.swap(
        snap,
        false,
        `${snap.gravity.size + snap.gravityAbp.size} unique domains on block lists, ${snap.antigravity.size + snap.antigravityAbp.size} on allow lists, `,
      );
    } catch (e) {
      this.o.log("error", `filter snapshot build failed, keeping the previous one: ${(e as Error).message}`);
    }
  }

  private async buildDomains(): Promise<void> {
    const base = this.current;
    let d: DomainsData | null;
    try {
      d = await this.buildDomainPart(base.data);
    } catch (e) {
      this.o.log("error", `filter domain entries: ${(e as Error).message}; rebuilding the whole snapshot`);
      d = null;
    }
    // the enabled groups changed too (or the read failed): the whole snapshot
    if (!d) return this.rebuild();
    // a whole snapshot swapped in meanwhile read the domainlist after this change (or took it anew)
    if (this.current !== base) return;
    const snap = base.withDomains(this.o.prepare ? this.o.prepare(d) : d, Date.now());
    await this.swap(snap, true, `domain entries only${this.onThisThread(base.data) ? "" : " (in the worker)"}, `);
  }

  /**
   * The domain part for the enabled groups of `like` (null: they changed), on this thread when the
   * domainlist is small (a few ms), else in the build worker (no DNS stall).
   */
  private buildDomainPart(like: SnapshotData): Promise<DomainsData | null> {
    if (this.onThisThread(like)) return Promise.resolve(buildDomainsOnly(this.o.dbPath, like.groupBits));
    return this.inWorker({ dbPath: this.o.dbPath, groupBits: like.groupBits });
  }

  private onThisThread(d: SnapshotData): boolean {
    return domainEntries(d) <= DOMAINS_ON_THIS_THREAD || this.o.worker === false;
  }

  private swap(snap: Snapshot, domainsOnly: boolean, what: string): Promise<void> | void | undefined {
    for (const p of snap.problems) this.o.log("warn", p);
    const replaced = this.current.data.gravityFile;
    this.current = snap;
    this.generation++;
    const data = snap.data;
    this.o.log(
      "info",
      `filter snapshot ${this.generation}: ${what}${data.denyExact.count + data.allowExact.count} exact and ${data.denyRegex.length + data.allowRegex.length} regex entries (${data.buildMs.toFixed(0)} ms)`,
    );
    const published = this.o.published?.(snap, domainsOnly);
    // the file stays open until every DNS thread has the new snapshot (a thread maps it at its turn)
    if (replaced && replaced !== snap.data.gravityFile) {
      if (published) return published.then(() => closeSnapshotFile(replaced));
      closeSnapshotFile(replaced);
    }
    return published;
  }

  stop(): void {
    this.worker?.terminate();
    this.worker = null;
  }

  private build(): Promise<SnapshotData> {
    if (this.o.worker === false) return Promise.resolve(buildSnapshotData(this.o.dbPath, this.o.policies.list));
    return this.inWorker<SnapshotData>({ dbPath: this.o.dbPath });
  }

  private inWorker<T>(msg: { dbPath: string; groupBits?: Array<[number, number]> }): Promise<T> {
    if (!this.worker) {
      this.worker = new Worker(workerUrl(this.o.policies.buildWorker));
      this.worker.onmessage = (ev: MessageEvent<{ seq: number; ok: boolean; data?: unknown; error?: string }>) => {
        const w = this.waiters.get(ev.data.seq);
        if (!w) return;
        this.waiters.delete(ev.data.seq);
        if (ev.data.ok) w.resolve(ev.data.data);
        else w.reject(new Error(ev.data.error ?? "unknown error"));
        // Rebuilds are rare: the worker (its own heap, grown by the build) goes until the next one.
        if (this.waiters.size === 0) {
          this.worker?.terminate();
          this.worker = null;
        }
      };
      this.worker.onerror = (ev) => {
        for (const w of this.waiters.values()) w.reject(new Error(ev.message));
        this.waiters.clear();
        this.worker?.terminate();
        this.worker = null;
      };
      // the worker must not keep the process alive on its own
      (this.worker as unknown as { unref?: () => void }).unref?.();
    }
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiters.set(seq, { resolve: resolve as (d: unknown) => void, reject });
      this.worker!.postMessage({ seq, ...msg });
    });
  }
}

/** Exact and regex entries in a snapshot's data. */
function domainEntries(d: SnapshotData): number {
  return d.allowExact.count + d.denyExact.count + d.allowRegex.length + d.denyRegex.length;
}
