// The filter engine: one immutable Snapshot of every list, shared by all queries, rebuilt in a
// worker when the lists change and swapped in one assignment, so no query ever sees half a set.
import { DomainSet } from "./domainset.ts";
import { compileRegex, unionOf, type CompiledRegex, type NameMatcher } from "./regex.ts";
import { ClientResolver, type ClientResolverOptions } from "./clients.ts";
import { PauseTable } from "./pause.ts";
import { ScheduleClock } from "./schedule.ts";
import { buildSnapshotData, emptySetData, type RegexEntry, type SnapshotData } from "./build.ts";
import { workerUrl } from "../core/worker-url.ts";

export interface RegexRule extends CompiledRegex {
  mask: Uint32Array;
}

/** The groups any entry of a set applies to: a client in none of them need not look the name up. */
function groupsOfSet(d: SnapshotData["services"]): Uint32Array {
  const out = new Uint32Array(d.words);
  for (let i = 0; i < d.comboMasks.length; i++) out[i % d.words]! |= d.comboMasks[i]!;
  return out;
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
  /** the groups' blocked services (src/filter/services/): subtree entries, id = service code */
  readonly services: DomainSet;
  /** the groups that block a service, and those that enforce a safe search (a cheap test before the lookup) */
  readonly serviceGroups: Uint32Array;
  readonly safeSearchGroups: Uint32Array;
  /** the groups' safe-search host names (src/filter/safesearch.ts): exact entries, id = engine code */
  readonly safeSearch: DomainSet;
  readonly safeSearchModerate: DomainSet;
  /** the services blocked while a group's window is open, and which groups' windows are open (null: no schedules) */
  readonly scheduledServices: DomainSet;
  readonly schedule: ScheduleClock | null;
  /** the groups' own upstream lists; upstreamSetOf() gives a client's (1-based index, 0: dns.upstreams) */
  readonly upstreamLists: ReadonlyArray<readonly string[]>;
  /** each list as one string: the forwarder's key for its servers */
  readonly upstreamKeys: readonly string[];
  /** the paused clients, null when none is */
  readonly paused: PauseTable | null;
  readonly problems: string[] = [];

  constructor(
    readonly data: SnapshotData,
    readonly builtAt: number,
    clientOpts: ClientResolverOptions = {},
  ) {
    this.allowExact = new DomainSet(data.allowExact);
    this.denyExact = new DomainSet(data.denyExact);
    this.gravity = new DomainSet(data.gravity);
    this.antigravity = new DomainSet(data.antigravity);
    this.gravityAbp = new DomainSet(data.gravityAbp);
    this.antigravityAbp = new DomainSet(data.antigravityAbp);
    this.allowRegex = this.compile(data.allowRegex);
    this.denyRegex = this.compile(data.denyRegex);
    this.allowRegexAny = unionOf(this.allowRegex);
    this.denyRegexAny = unionOf(this.denyRegex);
    // unknown clients are in group 0 (Default) when it is enabled
    const fallback = new Uint32Array(data.words);
    const bit0 = data.groupBits.find(([id]) => id === 0)?.[1];
    if (bit0 !== undefined) fallback[bit0 >>> 5]! |= 1 << (bit0 & 31);
    this.clients = new ClientResolver(data.clients, fallback, clientOpts);
    this.services = new DomainSet(data.services);
    this.serviceGroups = groupsOfSet(data.services);
    const safe = groupsOfSet(data.safeSearch);
    const moderate = groupsOfSet(data.safeSearchModerate);
    for (let i = 0; i < safe.length; i++) safe[i]! |= moderate[i]!;
    this.safeSearchGroups = safe;
    this.safeSearch = new DomainSet(data.safeSearch);
    this.safeSearchModerate = new DomainSet(data.safeSearchModerate);
    this.scheduledServices = new DomainSet(data.scheduledServices);
    this.upstreamLists = data.groupUpstreams.map((g) => g.upstreams);
    this.upstreamKeys = this.upstreamLists.map((l) => l.join(","));
    this.schedule = data.schedules.length ? new ScheduleClock(data.schedules, data.words) : null;
    this.paused = data.paused.length ? new PauseTable(data.paused, clientOpts) : null;
  }

  static empty(): Snapshot {
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
        services: e,
        safeSearch: e,
        safeSearchModerate: e,
        schedules: [],
        scheduledServices: e,
        groupUpstreams: [],
        paused: [],
        buildMs: 0,
      },
      Date.now(),
    );
  }

  /** The upstream list of a client in `groups`: that of its first group (by id) that has one, 1-based; 0: dns.upstreams. */
  upstreamSetOf(groups: Uint32Array): number {
    const g = this.data.groupUpstreams;
    for (let i = 0; i < g.length; i++) {
      const bit = g[i]!.bit;
      if (((groups[bit >>> 5] ?? 0) & (1 << (bit & 31))) !== 0) return i + 1;
    }
    return 0;
  }

  get hasAbp(): boolean {
    return this.gravityAbp.size > 0 || this.antigravityAbp.size > 0;
  }

  private compile(entries: RegexEntry[]): RegexRule[] {
    const out: RegexRule[] = [];
    for (const e of entries) {
      const r = compileRegex(e.id, e.pattern);
      if (typeof r === "string") this.problems.push(`regex ${e.id} "${e.pattern}": ${r}`);
      else out.push({ ...r, mask: Uint32Array.from(e.mask) });
    }
    return out;
  }
}

export interface FilterEngineOptions {
  dbPath: string;
  log: (level: "info" | "warn" | "error", msg: string) => void;
  clientOpts?: ClientResolverOptions;
  /** build in a worker (default) or inline (tests of the engine itself) */
  worker?: boolean;
  /** applied to each build's data before it becomes a snapshot (the DNS threads move it into shared memory) */
  prepare?: (data: SnapshotData) => SnapshotData;
  /** called with each new snapshot once it is current; rebuild() resolves after its promise (the other DNS threads take it) */
  published?: (snap: Snapshot) => Promise<void> | void | undefined;
}

export class FilterEngine {
  current: Snapshot = Snapshot.empty();
  /** how many snapshots were swapped in */
  generation = 0;
  private worker: Worker | null = null;
  private seq = 0;
  private building: Promise<void> | null = null;
  private again = false;
  private readonly waiters = new Map<number, { resolve: (d: SnapshotData) => void; reject: (e: Error) => void }>();

  constructor(private readonly o: FilterEngineOptions) {}

  /** Builds the first snapshot (start-up waits for it, so nothing slips through unfiltered). */
  async start(): Promise<void> {
    await this.rebuild();
  }

  /**
   * Rebuilds now (or right after the build in progress) and resolves once the new snapshot is live.
   * Changes that arrive during a build collapse into one more build.
   */
  async rebuild(): Promise<void> {
    if (this.building) {
      this.again = true;
      return this.building;
    }
    this.building = (async () => {
      do {
        this.again = false;
        try {
          const built = await this.build();
          const data = this.o.prepare ? this.o.prepare(built) : built;
          const snap = new Snapshot(data, Date.now(), this.o.clientOpts);
          for (const p of snap.problems) this.o.log("warn", p);
          this.current = snap;
          this.generation++;
          await this.o.published?.(snap);
          this.o.log(
            "info",
            `filter snapshot ${this.generation}: ${snap.gravity.size + snap.gravityAbp.size} unique domains on block lists, ${snap.antigravity.size + snap.antigravityAbp.size} on allow lists, ${data.denyExact.count + data.allowExact.count} exact and ${data.denyRegex.length + data.allowRegex.length} regex entries (${data.buildMs.toFixed(0)} ms)`,
          );
        } catch (e) {
          this.o.log("error", `filter snapshot build failed, keeping the previous one: ${(e as Error).message}`);
        }
      } while (this.again);
    })();
    try {
      await this.building;
    } finally {
      this.building = null;
    }
  }

  stop(): void {
    this.worker?.terminate();
    this.worker = null;
  }

  private build(): Promise<SnapshotData> {
    if (this.o.worker === false) return Promise.resolve(buildSnapshotData(this.o.dbPath));
    if (!this.worker) {
      this.worker = new Worker(workerUrl("filter/build-worker.ts"));
      this.worker.onmessage = (ev: MessageEvent<{ seq: number; data?: SnapshotData; error?: string }>) => {
        const w = this.waiters.get(ev.data.seq);
        if (!w) return;
        this.waiters.delete(ev.data.seq);
        if (ev.data.data) w.resolve(ev.data.data);
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
      this.waiters.set(seq, { resolve, reject });
      this.worker!.postMessage({ seq, dbPath: this.o.dbPath });
    });
  }
}
