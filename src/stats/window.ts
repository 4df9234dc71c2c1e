// The last 24 h of queries in memory: a time-ordered ring of records plus counters that are
// incremented when a record enters and decremented when it ages out, so every /api/stats/*
// request reads ready numbers instead of scanning.
import { BLOCKED_STATUSES, QUERY_STATUS, QUERY_TYPES, REPLY_TYPE, Status } from "./enums.ts";
import type { QueryRecord } from "./record.ts";

export const SLOT_SECONDS = 600;
export const WINDOW_SECONDS = 24 * 3600;
/** 24 h of 10-minute slots plus the one in progress. */
export const HISTORY_SLOTS = WINDOW_SECONDS / SLOT_SECONDS + 1;

export interface Tally {
  count: number;
  blocked: number;
  /** time of the newest query counted */
  last?: number;
}

export interface UpstreamTally {
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

export function isBlocked(status: number): boolean {
  return BLOCKED_STATUSES.has(status);
}
export function isForwarded(status: number): boolean {
  return FORWARDED.has(status);
}
export function isCached(status: number): boolean {
  return CACHED.has(status);
}

export class QueryWindow {
  private ring: QueryRecord[] = [];
  private head = 0;
  total = 0;
  blocked = 0;
  forwarded = 0;
  cached = 0;
  readonly status = new Array<number>(QUERY_STATUS.length).fill(0);
  /** index 0…15 = QUERY_TYPES order, OTHER collects the rest */
  readonly types = new Array<number>(QUERY_TYPES.length).fill(0);
  readonly replies = new Array<number>(REPLY_TYPE.length).fill(0);
  readonly domains = new Map<string, Tally>();
  readonly clients = new Map<string, Tally>();
  /** every client seen since start (Pi-hole's clients.total) */
  readonly clientsEver = new Set<string>();
  readonly upstreams = new Map<string, UpstreamTally>();
  private slots = new Map<number, Slot>();
  /** newest blocked domains, newest last */
  private recentBlocked: string[] = [];
  /** lifetime counters (Prometheus counters never go down) */
  readonly lifetime = { total: 0, blocked: 0, status: new Array<number>(QUERY_STATUS.length).fill(0), types: new Array<number>(QUERY_TYPES.length).fill(0) };
  readonly latency = { buckets: new Array<number>(LATENCY_BUCKETS.length).fill(0), count: 0, sum: 0 };

  constructor(private readonly now: () => number = () => Date.now() / 1000) {}

  get size(): number {
    return this.ring.length - this.head;
  }

  add(r: QueryRecord): void {
    this.ring.push(r);
    this.count(r, 1);
    const lt = this.lifetime;
    lt.total++;
    lt.status[r.status] = (lt.status[r.status] ?? 0) + 1;
    lt.types[typeIndex(r.type)]!++;
    if (isBlocked(r.status)) {
      lt.blocked++;
      if (r.domain) {
        this.recentBlocked.push(r.domain);
        if (this.recentBlocked.length > 100) this.recentBlocked.splice(0, 50);
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
    for (let i = this.head; i < this.ring.length; i++) this.count(this.ring[i]!, -1);
    this.ring = [];
    this.head = 0;
    this.slots.clear();
    this.recentBlocked = [];
  }

  /** Drops records older than 24 h; call before reading. */
  expire(): void {
    const cutoff = this.now() - WINDOW_SECONDS;
    while (this.head < this.ring.length && this.ring[this.head]!.time < cutoff) {
      this.count(this.ring[this.head]!, -1);
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.head);
      this.head = 0;
    }
    const oldest = slotOf(cutoff);
    for (const k of this.slots.keys()) if (k < oldest - SLOT_SECONDS) this.slots.delete(k);
  }

  recentBlockedDomains(n: number): string[] {
    return this.recentBlocked.slice(-n).reverse();
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

  private count(r: QueryRecord, d: 1 | -1): void {
    const blocked = isBlocked(r.status);
    this.total += d;
    if (blocked) this.blocked += d;
    if (isForwarded(r.status)) this.forwarded += d;
    if (isCached(r.status)) this.cached += d;
    this.status[r.status] = (this.status[r.status] ?? 0) + d;
    this.types[typeIndex(r.type)]! += d;
    this.replies[r.reply] = (this.replies[r.reply] ?? 0) + d;
    if (r.domain) bump(this.domains, r.domain, d, blocked, r.time);
    if (r.client) {
      bump(this.clients, r.client, d, blocked, r.time);
      if (d > 0) this.clientsEver.add(r.client);
    }
    if (r.upstream && isForwarded(r.status)) {
      let u = this.upstreams.get(r.upstream);
      if (!u) this.upstreams.set(r.upstream, (u = { count: 0, sum: 0, sumSq: 0 }));
      const s = r.replyTime / 1000;
      u.count += d;
      u.sum += d * s;
      u.sumSq += d * s * s;
      if (u.count <= 0) this.upstreams.delete(r.upstream);
    }
    const key = slotOf(r.time);
    let slot = this.slots.get(key);
    if (!slot) {
      if (d < 0) return;
      this.slots.set(key, (slot = { total: 0, blocked: 0, cached: 0, forwarded: 0, clients: new Map() }));
    }
    slot.total += d;
    if (blocked) slot.blocked += d;
    if (isCached(r.status)) slot.cached += d;
    if (isForwarded(r.status)) slot.forwarded += d;
    if (r.client) slot.clients.set(r.client, (slot.clients.get(r.client) ?? 0) + d);
  }
}

export function slotOf(t: number): number {
  return Math.floor(t / SLOT_SECONDS) * SLOT_SECONDS;
}

/** Database type column → index into QUERY_TYPES (OTHER for 100+qtype). */
export function typeIndex(dbType: number): number {
  return dbType >= 1 && dbType <= QUERY_TYPES.length ? dbType - 1 : QUERY_TYPES.indexOf("OTHER");
}

function bump(m: Map<string, Tally>, key: string, d: number, blocked: boolean, time: number): void {
  let t = m.get(key);
  if (!t) m.set(key, (t = { count: 0, blocked: 0 }));
  t.count += d;
  if (d > 0 && time > (t.last ?? 0)) t.last = time;
  if (blocked) t.blocked += d;
  if (t.count <= 0) m.delete(key);
}

/** The n keys with the largest value of `pick`, largest first (ties by key for stable output). */
export function topN(m: Map<string, Tally>, n: number, pick: (t: Tally) => number): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const [k, t] of m) {
    const v = pick(t);
    if (v > 0) out.push([k, v]);
  }
  out.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return n > 0 ? out.slice(0, n) : out;
}
