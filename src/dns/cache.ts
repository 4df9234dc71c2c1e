// The answer cache: upstream answers keyed by name, type, class and the DO/CD/EDNS bits (so DNSSEC
// answers never mix with plain ones), aged by their TTLs, negative answers kept for the SOA's
// minimum (RFC 2308), and expired answers served for up to dns.cache.optimizer seconds while one
// background refresh fetches a fresh copy (RFC 8767). One table of answers serves every DNS thread
// (shared-answers.ts); answers too large for its slots stay with the thread that fetched them.
import { Status } from "../query/enums.ts";
import type { Handler, Next, Pending, QueryContext, Answer } from "./context.ts";
import { adoptAnswer, setU32 } from "./reply.ts";
import { keyBytes, keyHash, writeKey } from "./cache-key.ts";
import { CacheRing } from "./cache-ring.ts";
import { BUSY, EVICTED, SharedAnswers, TOO_BIG, sharedAnswersBuffer } from "./shared-answers.ts";
import { SharedNames, sharedNamesBuffer } from "./shared-names.ts";
import {
  answerEnd,
  answerStart,
  dnssecOf,
  hasKey,
  NO_UPSTREAM,
  packEntry,
  refreshing,
  replyOf,
  setRefreshing,
  storedAt,
  ttlAt,
  ttlCount,
  ttlOf,
  upstreamBlockedOf,
  upstreamOf,
} from "./cache-entry.ts";
import { RCODE, TYPE, getU32, type Message } from "./wire.ts";
import { SECURE } from "./dnssec/validator.ts";
import { wantsAd } from "./validate.ts";
import { upstreamKey } from "../policies/upstreams/policy.ts";

export interface CacheCounters {
  size: number;
  max: number;
  inserted: number;
  evicted: number;
  expired: number;
  hits: number;
  staleHits: number;
  misses: number;
}

const EXTERNAL_BLOCKED = new Set([
  Status.EXTERNAL_BLOCKED_IP,
  Status.EXTERNAL_BLOCKED_NULL,
  Status.EXTERNAL_BLOCKED_NXRA,
  Status.EXTERNAL_BLOCKED_EDE15,
]);

/** Answers served stale carry this TTL (RFC 8767 suggests 30 s). */
const STALE_TTL = 30;

/** The memory every DNS thread's cache shares: the answers, and the names their entries refer to by index. */
export interface SharedCacheMemory {
  answers: SharedArrayBuffer;
  names: SharedArrayBuffer;
}

/** Answers too large for a shared slot a thread keeps itself, at most this share of dns.cache.size. */
const ringMax = (max: number): number => (max === 0 ? 0 : Math.max(64, Math.ceil(max / 8)));

export class DnsCache implements Handler {
  readonly name = "cache";
  /** the answers of every DNS thread (shared-answers.ts) */
  private table: SharedAnswers;
  private readonly memory: SharedCacheMemory;
  /** whether this thread made the shared memory (the main thread): it flushes, resizes and counts the shared entries */
  private readonly owner: boolean;
  /**
   * this thread's answers too large for a shared slot, each as one buffer (cache-entry.ts), by its
   * key's hash (cache-key.ts), oldest first, with the CNAME chain of those that have one
   * (cache-ring.ts: a Map of the buffers made every young collection of the DNS thread scan it whole again)
   */
  private readonly ring: CacheRing<Uint8Array, string[]>;
  /** the groups' own upstream lists (their keys in the filter snapshot): a few */
  private readonly groups: SharedNames;
  /** the upstreams' names the entries name by index: a handful (NO_UPSTREAM itself is no index) */
  private readonly upstreams: SharedNames;
  readonly counters = { inserted: 0, evicted: 0, expired: 0, hits: 0, staleHits: 0, misses: 0 };

  /** `shared`: another thread's cache memory (threads/worker.ts), else this cache makes its own */
  constructor(
    private max: number,
    private readonly optimizer: () => number,
    private readonly now: () => number = Date.now,
    shared: SharedCacheMemory | null = null,
  ) {
    this.owner = shared === null;
    this.memory = shared ?? { answers: sharedAnswersBuffer(max), names: sharedNamesBuffer(2) };
    this.table = new SharedAnswers(this.memory.answers);
    this.groups = new SharedNames(this.memory.names, 0);
    this.upstreams = new SharedNames(this.memory.names, 1);
    this.ring = new CacheRing(ringMax(max));
  }

  /** The memory to hand the other DNS threads. */
  shared(): SharedCacheMemory {
    return this.memory;
  }

  /** A new dns.cache.size: the owner makes a new shared table (the answers held go) and hands it on with adopt(). */
  resize(max: number): void {
    const before = this.ring.size;
    this.max = max;
    this.ring.resize(ringMax(max));
    this.counters.evicted += before - this.ring.size;
    if (!this.owner) return;
    this.counters.evicted += this.table.live;
    this.memory.answers = sharedAnswersBuffer(max);
    this.table = new SharedAnswers(this.memory.answers);
  }

  /** The owner's new table (resize()), in another thread. */
  adopt(answers: SharedArrayBuffer): void {
    this.memory.answers = answers;
    this.table = new SharedAnswers(answers);
  }

  /** Empties this thread's answers; the owner's empties the shared ones for every thread. */
  clear(): void {
    if (this.owner) this.table.clear();
    this.ring.clear();
  }

  /** This thread's counters: the shared entries count in the owner's alone, so that the threads' sum is right (threads/sums.ts). */
  stats(): CacheCounters {
    return {
      size: this.ring.size + (this.owner ? this.table.live : 0),
      max: this.owner ? this.max : 0,
      ...this.counters,
    };
  }

  handle(ctx: QueryContext, next: Next): Pending {
    if (this.max === 0) return next(ctx);
    const length = this.writeKeyOf(ctx);
    if (length < 0) return next(ctx);
    const key = keyHash(length);
    const t = this.table;
    let e: Uint8Array | undefined;
    let slot = -1;
    if (t.lookup(key, keyBytes, length)) {
      e = t.entry;
      slot = t.slot;
    } else if (this.ring.size > 0) {
      e = this.ring.get(key);
      if (e !== undefined && !hasKey(e, keyBytes, length)) e = undefined; // another key with this hash
    }
    if (e && !ctx.background) {
      const age = Math.floor((this.now() - storedAt(e)) / 1000);
      const ttl = ttlOf(e);
      if (age < ttl) {
        this.counters.hits++;
        return this.serve(ctx, key, e, slot, age, Status.CACHE);
      }
      const opt = this.optimizer();
      if (opt >= 0 && age < ttl + opt) {
        this.counters.staleHits++;
        const seq = t.seq;
        if (slot >= 0 ? t.startRefresh(slot, seq) : !refreshing(e)) {
          if (slot < 0) setRefreshing(e, true);
          this.refresh(ctx, next, key, t, slot, seq, slot < 0 ? e : null);
        }
        return this.serve(ctx, key, e, slot, -1, Status.CACHE_STALE);
      }
      if (slot < 0) this.ring.delete(key);
      // another thread may have removed or replaced it first: that one counts it
      if (slot < 0 || t.remove(slot, t.seq)) this.counters.expired++;
    }
    this.counters.misses++;
    const r = next(ctx);
    return r instanceof Promise ? this.storeLater(key, ctx, r) : this.store(key, ctx, r);
  }

  // apart from handle(): a closure there would cost every query, hit or not, its captured variables
  private storeLater(key: number, ctx: QueryContext, r: Promise<Answer>): Promise<Answer> {
    return r.then((a) => this.store(key, ctx, a));
  }

  /** One background refresh of a stale entry: of `t`'s `slot` at `seq`, or the ring's entry `e`. */
  private refresh(
    ctx: QueryContext,
    next: Next,
    key: number,
    t: SharedAnswers,
    slot: number,
    seq: number,
    e: Uint8Array | null,
  ): void {
    // the question too: the engine refills the context's question for its next query once this one is answered (parseQuery's `into`)
    const q = { ...ctx.q, labels: ctx.q.labels.slice() };
    const copy: QueryContext = { ...ctx, q, background: true, upstreamMessage: null, cnameChain: null };
    void Promise.resolve(next(copy))
      .then((a) => this.store(key, copy, a))
      .catch(() => {})
      .finally(() => {
        if (e) setRefreshing(e, false);
        else t.endRefresh(slot, seq);
      });
  }

  /** The answer of entry `e` (the shared table's copy when `slot` ≥ 0, else the ring's), its TTLs aged by `age` (-1: stale). */
  private serve(ctx: QueryContext, key: number, e: Uint8Array, slot: number, age: number, status: number): Answer {
    const start = answerStart(e);
    const out = adoptAnswer(e, ctx.query, ctx.q, start, answerEnd(e));
    for (let k = 0, n = ttlCount(e); k < n; k++) {
      const at = ttlAt(e, k);
      const orig = getU32(e, start + at);
      setU32(out, at, age < 0 ? Math.min(orig, STALE_TTL) : Math.max(0, orig - age));
    }
    const dnssec = dnssecOf(e);
    const up = upstreamOf(e);
    ctx.status = upstreamBlockedOf(e) ?? status;
    ctx.reply = replyOf(e);
    ctx.upstream = up === NO_UPSTREAM ? null : this.upstreams.name(up);
    ctx.cnameChain = slot >= 0 ? this.table.chain() : (this.ring.extra(key) ?? null);
    ctx.dnssec = dnssec;
    if (dnssec !== 0) out[3] = (out[3]! & ~0x20) | (dnssec === SECURE && wantsAd(ctx) ? 0x20 : 0);
    return out;
  }

  private store(key: number, ctx: QueryContext, a: Answer): Answer {
    const m = ctx.upstreamMessage;
    if (!a || !m) return a;
    // the key's bytes again: other queries wrote theirs while this one was forwarded
    const length = this.writeKeyOf(ctx);
    if (length < 0) return a;
    const ttl = cacheTtl(m, a);
    if (ttl === null || ttl <= 0) return a;
    const ttlAts: number[] = [];
    for (const r of m.records) if (r.type !== TYPE.OPT) ttlAts.push(r.ttlAt);
    const upstream = ctx.upstream === null ? -1 : this.upstreams.id(ctx.upstream);
    const fields = {
      storedAt: this.now(),
      ttl,
      reply: ctx.reply,
      upstream: upstream < 0 ? NO_UPSTREAM : upstream,
      upstreamBlocked: EXTERNAL_BLOCKED.has(ctx.status) ? ctx.status : null,
      dnssec: ctx.dnssec,
    };
    const done = this.table.store(key, a, ttlAts, fields, keyBytes, length, ctx.cnameChain);
    if (done === BUSY) return a; // another thread stores in that bucket now: this answer is not kept
    if (done === TOO_BIG) {
      if (this.ring.set(key, packEntry(a, ttlAts, fields, keyBytes, length), ctx.cnameChain)) this.counters.evicted++;
    } else {
      if (done === EVICTED) this.counters.evicted++;
      if (this.ring.size > 0) this.ring.delete(key);
    }
    this.counters.inserted++;
    return a;
  }

  /**
   * The query's key into keyBytes (cache-key.ts); its length, or -1 when it has none (more groups
   * with upstreams of their own than the key can tell apart: such queries are not cached). A group
   * with upstreams of its own has a cache of its own: another group's answer never reaches it.
   */
  private writeKeyOf(ctx: QueryContext): number {
    // 0 for dns.upstreams, else the group list's index + 1
    const group = ctx.upstreamSet === 0 ? 0 : this.groups.id(upstreamKey(ctx.snapshot, ctx.upstreamSet) ?? "") + 1;
    if (ctx.upstreamSet !== 0 && group === 0) return -1;
    const q = ctx.q;
    return writeKey(q.wire, q.qtype, q.qclass, q.dnssecOk, q.checkingDisabled, q.edns, group);
  }
}

/** How long an answer may be cached: the smallest TTL, or for negative answers the SOA's (RFC 2308). */
function cacheTtl(m: Message, a: Uint8Array): number | null {
  if (m.flags & 0x0200) return null; // truncated
  let min = Infinity;
  for (const r of m.records) if (r.section === 0 && r.ttl < min) min = r.ttl;
  if (m.rcode === RCODE.NOERROR && min !== Infinity) return min;
  if (m.rcode !== RCODE.NOERROR && m.rcode !== RCODE.NXDOMAIN) return null;
  const soa = m.records.find((r) => r.section === 1 && r.type === TYPE.SOA);
  if (!soa || soa.rdlen < 22) return null;
  const minimum = getU32(a, soa.rdata + soa.rdlen - 4);
  return Math.min(soa.ttl, minimum);
}
