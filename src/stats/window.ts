// The last 24 h of queries in memory: a time-ordered ring of records plus counters that are
// incremented when a record enters and decremented when it ages out, so every /api/stats/*
// request reads ready numbers instead of scanning. The queries themselves wait for their expiry in
// a columnar ring (ring.ts) that names domains, clients and upstreams by ids into the tables here:
// 20-29 bytes a query instead of ~250 for a record object with its own strings, which is what decides
// memory on a busy network, and nothing per query for the collector to trace.
import { BLOCKED_STATUSES, QUERY_STATUS, QUERY_TYPES, REPLY_TYPE, Status } from "../query/enums.ts";
import type { QueryRecord } from "../query/record.ts";
import { wildcard } from "../querylog/read.ts";
import { compileGlob } from "./byte-glob.ts";
import { nextTurn } from "./slices.ts";
import { type Chunk, emptyEntry, RecordRing, type RingEntry, type ScanMark } from "./ring.ts";
import { CompactTallies, type Tally, TallyTable } from "./tallies.ts";

/** entries a stepped scan visits between looks at the clock (~0.2 ms with a filter) */
const SCAN_STEP = 4096;

const SLOT_SECONDS = 600;
export const WINDOW_SECONDS = 24 * 3600;
/** 24 h of 10-minute slots plus the one in progress. */
export const HISTORY_SLOTS = WINDOW_SECONDS / SLOT_SECONDS + 1;

interface UpstreamTally {
  count: number;
  /** sums of reply times in seconds, for mean and variance */
  sum: number;
  sumSq: number;
}

export interface Slot {
  total: number;
  blocked: number;
  cached: number;
  forwarded: number;
  clients: Map<string, number>;
}

/** Upper bounds (seconds) of the reply-time histogram exported to Prometheus. */
export const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Statuses counted as "forwarded" and "cached" in the summary (as Pi-hole does). */
const FORWARDED = new Set([Status.FORWARDED, Status.RETRIED, Status.RETRIED_DNSSEC]);
const CACHED = new Set([Status.CACHE, Status.CACHE_STALE]);

function isBlocked(status: number): boolean {
  return BLOCKED_STATUSES.has(status);
}
function isForwarded(status: number): boolean {
  return FORWARDED.has(status);
}
function isCached(status: number): boolean {
  return CACHED.has(status);
}

export class QueryWindow {
  private readonly ring = new RecordRing();
  /**
   * The history loaded at start (Stats.importFromDisk) while live queries already arrive: all of it
   * older than any of them, so `older` then `ring` is still in time (and id) order, which expire()
   * and the query log's scan rely on.
   */
  private readonly older = new RecordRing();
  private readonly entry = emptyEntry();
  private readonly domainTallies = new CompactTallies();
  /** CNAME targets of *_CNAME blocks, counted like domains so a name leaves with its last query */
  private readonly cnameTallies = new CompactTallies();
  /** the distinct answer texts of the window's queries, counted the same way */
  private readonly answerTallies = new CompactTallies();
  private readonly clientTallies = new TallyTable();
  /** upstream names by ring id (a handful: kept for the life of the process) */
  private readonly upstreamNames: string[] = [];
  private readonly upstreamIds = new Map<string, number>();
  total = 0;
  /** queries with an id: the 24 h query log's size (privacy level 3 counts without logging) */
  logged = 0;
  blocked = 0;
  forwarded = 0;
  cached = 0;
  readonly status = new Array<number>(QUERY_STATUS.length).fill(0);
  /** index 0…15 = QUERY_TYPES order, OTHER collects the rest */
  readonly types = new Array<number>(QUERY_TYPES.length).fill(0);
  readonly replies = new Array<number>(REPLY_TYPE.length).fill(0);
  readonly domains = this.domainTallies;
  readonly clients = this.clientTallies.byKey;
  /** every client seen since start (Pi-hole's clients.total) */
  readonly clientsEver = new Set<string>();
  readonly upstreams = new Map<string, UpstreamTally>();
  private slots = new Map<number, Slot>();
  /** newest blocked domains, newest last */
  private recentBlocked: string[] = [];
  /** the same of the history loaded at start (older than all of recentBlocked) */
  private olderBlocked: string[] = [];
  /** lifetime counters (Prometheus counters never go down) */
  readonly lifetime = {
    total: 0,
    blocked: 0,
    status: new Array<number>(QUERY_STATUS.length).fill(0),
    types: new Array<number>(QUERY_TYPES.length).fill(0),
  };
  readonly latency = { buckets: new Array<number>(LATENCY_BUCKETS.length).fill(0), count: 0, sum: 0 };

  /** `maxAge`: seconds a query stays (webserver.api.maxHistory, at most 24 h) */
  constructor(
    private readonly now: () => number = () => Date.now() / 1000,
    private readonly maxAge: () => number = () => WINDOW_SECONDS,
  ) {}

  get size(): number {
    return this.older.size + this.ring.size;
  }

  /** A query of the history loaded at start, older than every query add() has had (see `older`). */
  addOlder(r: QueryRecord, id: number): void {
    this.add(r, id, true);
  }

  /** `id`: the query's id in the query log (0: counted only, not logged: privacy level 3). */
  add(r: QueryRecord, id = 0, older = false): void {
    // the ring keeps reply times as 32-bit floats: count the same value that will be taken out again
    const replyTime = Math.fround(r.replyTime);
    const domain = r.domain ? this.domainTallies.of(r.domain) : -1;
    const cname = r.cname ? this.cnameTallies.of(r.cname) : -1;
    if (cname >= 0) this.cnameTallies.count(cname, 1, false, r.time);
    const answers = r.answers ? this.answerTallies.of(r.answers) : -1;
    if (answers >= 0) this.answerTallies.count(answers, 1, false, r.time);
    const client = r.client ? this.clientTallies.of(r.client) : null;
    this.count(r.time, r.status, r.type, r.reply, domain, client, r.upstream, replyTime, 1);
    // one entry object reused: push copies it into the ring's columns
    const e = this.entry;
    e.id = id;
    if (id) this.logged++;
    e.dnssec = r.dnssec;
    e.ede = r.ede;
    e.listId = r.listId;
    e.cname = cname;
    e.answers = answers;
    e.time = r.time;
    e.replyTime = replyTime;
    e.type = r.type;
    e.status = r.status;
    e.reply = r.reply;
    e.domain = domain;
    e.client = client ? client.id : -1;
    e.upstream = r.upstream === null ? -1 : this.upstreamId(r.upstream);
    (older ? this.older : this.ring).push(e);
    const lt = this.lifetime;
    lt.total++;
    lt.status[r.status] = (lt.status[r.status] ?? 0) + 1;
    lt.types[typeIndex(r.type)]!++;
    if (isBlocked(r.status)) {
      lt.blocked++;
      if (r.domain) {
        // the history goes before every live one, newest of it last
        if (older) this.olderBlocked.push(r.domain);
        else this.recentBlocked.push(r.domain);
        if (this.recentBlocked.length > 100) this.recentBlocked.splice(0, 50);
        if (this.olderBlocked.length > 100) this.olderBlocked.splice(0, 50);
      }
    }
    if (r.upstream && isForwarded(r.status)) {
      const s = r.replyTime / 1000;
      this.latency.count++;
      this.latency.sum += s;
      for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (s <= LATENCY_BUCKETS[i]!) this.latency.buckets[i]!++;
    }
  }

  /** Forgets every record of the window (flush/logs); lifetime counters stay, as Prometheus counters must. */
  clear(): void {
    for (const ring of [this.older, this.ring]) for (let e = ring.shift(); e; e = ring.shift()) this.remove(e);
    this.slots.clear();
    this.recentBlocked = [];
    this.olderBlocked = [];
  }

  /** Drops records older than the window (24 h, or webserver.api.maxHistory); call before reading. */
  expire(): void {
    const cutoff = this.now() - Math.min(WINDOW_SECONDS, this.maxAge());
    this.dropOldest((t) => t < cutoff);
    const oldest = slotOf(cutoff);
    for (const k of this.slots.keys()) if (k < oldest - SLOT_SECONDS) this.slots.delete(k);
  }

  recentBlockedDomains(n: number): string[] {
    const all = this.olderBlocked.length ? [...this.olderBlocked, ...this.recentBlocked] : this.recentBlocked;
    return all.slice(-n).reverse();
  }

  /** Removes queries oldest first while `more(time of the oldest)` says so. */
  private dropOldest(more: (time: number) => boolean): void {
    // the live ring only once the older one is empty: everything in it is newer
    for (const ring of [this.older, this.ring]) {
      for (let t = ring.oldestTime(); t !== null && more(t); t = ring.oldestTime()) this.remove(ring.shift()!);
      if (ring.size) break;
    }
  }

  /** The 145 slots ending with the current one, oldest first. */
  history(): Array<{ timestamp: number; slot: Slot | undefined }> {
    const last = slotOf(this.now());
    const out: Array<{ timestamp: number; slot: Slot | undefined }> = [];
    for (let i = HISTORY_SLOTS - 1; i >= 0; i--) {
      const ts = last - i * SLOT_SECONDS;
      out.push({ timestamp: ts, slot: this.slots.get(ts) });
    }
    return out;
  }

  /** The oldest query's time and id, for the log's bounds (null when empty). */
  get oldest(): { time: number } | null {
    const t = this.older.oldestTime() ?? this.ring.oldestTime();
    return t === null ? null : { time: t };
  }

  /** Every query newest first, read in place (`src/stats/log-page.ts`); `fn` returns false to stop. */
  scanNewest(fn: (c: Chunk, i: number) => boolean): void {
    let more = true;
    this.ring.scanNewest((c, i) => (more = fn(c, i)));
    if (more) this.older.scanNewest(fn);
  }

  /**
   * scanNewest with the event loop free every `sliceMs` or so: a filter of /api/queries counts every
   * match of the day (recordsFiltered), 30-80 ms for a million queries, all of it on the thread that
   * answers DNS. What comes in meanwhile is newer than the scan's place and not visited.
   */
  async scanNewestInSlices(fn: (c: Chunk, i: number) => boolean, sliceMs = 2): Promise<void> {
    for (const ring of [this.ring, this.older]) {
      const mark: ScanMark = { chunk: null, i: 0 };
      for (;;) {
        const start = performance.now();
        let state: ReturnType<RecordRing["scanStep"]>;
        do state = ring.scanStep(mark, SCAN_STEP, fn);
        while (state === "more" && performance.now() - start < sliceMs);
        if (state === "stopped") return;
        if (state === "end") break;
        await nextTurn();
      }
    }
  }

  /** The names behind a ring entry's ids (undefined for an id no query uses any more). */
  readonly names = {
    domain: (id: number) => this.domainTallies.key(id),
    client: (id: number) => this.clientTallies.byId(id)?.key,
    upstream: (id: number) => this.upstreamNames[id],
    cname: (id: number) => this.cnameTallies.key(id),
    answers: (id: number) => this.answerTallies.key(id),
    /** ids whose name passes `test`, for filters that then compare ids only */
    domainIds: (test: (name: string) => boolean) => this.domainTallies.idsWhere(test),
    /** the same, with each name's answer kept while `key` stays (a test asked on every request), in slices */
    domainIdsKept: (key: string, test: (name: string) => boolean) => this.domainTallies.idsWhereKept(key, test),
    /** ids whose name matches a `*` wildcard pattern (compared on the names' bytes: no string per name) */
    domainIdsMatching: (pattern: string) => this.domainTallies.idsMatching(compileGlob(pattern), wildcard(pattern)),
    clientIds: (test: (ip: string) => boolean) => {
      const out = new Set<number>();
      for (const t of this.clientTallies.byKey.values()) if (test(t.key)) out.add(t.id);
      return out;
    },
    upstreamIds: (test: (name: string) => boolean) => {
      const out = new Set<number>();
      this.upstreamIds.forEach((id, name) => test(name) && out.add(id));
      return out;
    },
  };

  /** Bytes the window keeps: the ring's columns and the names' tables (the clients' few are left out). */
  bytes(): number {
    return (
      this.older.bytes() +
      this.ring.bytes() +
      this.domainTallies.bytes() +
      this.cnameTallies.bytes() +
      this.answerTallies.bytes()
    );
  }

  /**
   * Drops the oldest queries until at most `keep` remain, counters included (the memory budget:
   * a machine short of memory keeps a shorter day rather than being killed). Returns how many went.
   */
  shed(keep: number): number {
    const before = this.size;
    this.dropOldest(() => this.size > keep);
    return before - this.size;
  }

  private remove(e: RingEntry): void {
    if (e.id) this.logged--;
    if (e.cname >= 0) this.cnameTallies.count(e.cname, -1, false, e.time);
    if (e.answers >= 0) this.answerTallies.count(e.answers, -1, false, e.time);
    const client = e.client < 0 ? null : this.clientTallies.byId(e.client);
    const upstream = e.upstream < 0 ? null : this.upstreamNames[e.upstream]!;
    this.count(e.time, e.status, e.type, e.reply, e.domain, client, upstream, e.replyTime, -1);
  }

  private upstreamId(name: string): number {
    let id = this.upstreamIds.get(name);
    if (id === undefined) {
      id = this.upstreamNames.push(name) - 1;
      this.upstreamIds.set(name, id);
    }
    return id;
  }

  /** Adds (d = 1) or removes (d = -1) one query. */
  /** `domain` is an id of domainTallies, -1 for none. */
  private count(
    time: number,
    status: number,
    type: number,
    reply: number,
    domain: number,
    client: Tally | null,
    upstream: string | null,
    replyTime: number,
    d: 1 | -1,
  ): void {
    const blocked = isBlocked(status);
    const forwarded = isForwarded(status),
      cached = isCached(status);
    this.total += d;
    if (blocked) this.blocked += d;
    if (forwarded) this.forwarded += d;
    if (cached) this.cached += d;
    this.status[status] = (this.status[status] ?? 0) + d;
    this.types[typeIndex(type)]! += d;
    this.replies[reply] = (this.replies[reply] ?? 0) + d;
    if (domain >= 0) this.domainTallies.count(domain, d, blocked, time);
    if (client) {
      this.clientTallies.count(client, d, blocked, time);
      if (d > 0) this.clientsEver.add(client.key);
    }
    if (upstream && forwarded) {
      let u = this.upstreams.get(upstream);
      if (!u) this.upstreams.set(upstream, (u = { count: 0, sum: 0, sumSq: 0 }));
      const s = replyTime / 1000;
      u.count += d;
      u.sum += d * s;
      u.sumSq += d * s * s;
      if (u.count <= 0) this.upstreams.delete(upstream);
    }
    const key = slotOf(time);
    let slot = this.slots.get(key);
    if (!slot) {
      if (d < 0) return;
      this.slots.set(key, (slot = { total: 0, blocked: 0, cached: 0, forwarded: 0, clients: new Map() }));
    }
    slot.total += d;
    if (blocked) slot.blocked += d;
    if (cached) slot.cached += d;
    if (forwarded) slot.forwarded += d;
    if (client) slot.clients.set(client.key, (slot.clients.get(client.key) ?? 0) + d);
  }
}

export function slotOf(t: number): number {
  return Math.floor(t / SLOT_SECONDS) * SLOT_SECONDS;
}

/** Database type column → index into QUERY_TYPES (OTHER for 100+qtype). */
function typeIndex(dbType: number): number {
  return dbType >= 1 && dbType <= QUERY_TYPES.length ? dbType - 1 : QUERY_TYPES.indexOf("OTHER");
}
