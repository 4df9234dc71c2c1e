// The answers of every DNS thread in one table of fixed-size slots in a SharedArrayBuffer, allocated
// once from dns.cache.size (the kernel backs its pages as they are first written). With one cache per
// thread a stub resolver's random source ports spread one client over the threads (SO_REUSEPORT) and
// each thread asked the upstream again for what another had cached.
//
// A key's hash (cache-key.ts) picks a bucket of WAYS slots. Readers take no lock: each slot has a
// sequence number, odd while a writer is in it (a seqlock); a reader copies the slot into its own
// buffer and keeps the copy only if the number did not move meanwhile, else it tries again and at last
// calls it a miss. Writers take the bucket's lock with Atomics.compareExchange and, finding it taken,
// skip the store: a cache may forget an answer, a DNS thread must never wait. A full bucket (or a
// full table) gives up its oldest entry, by a store counter: the ring order of cache-ring.ts within
// the bucket. A flush raises the table's epoch: every slot of an older epoch is empty, for every
// thread at once.
//
// A slot holds the entry as cache-entry.ts packs it, then the CNAME chain the policy checks again on
// each hit (policy.ts), each name as a length byte and its Latin-1 text. Entries that do not fit
// (DNSSEC signatures, long TXT or CDN answers) stay with each thread's own ring (cache.ts).
import { entryLength, hasKey, writeEntry, type EntryFields } from "./cache-entry.ts";

/** bytes a slot takes: its header and at most BODY_MAX of entry and chain */
const SLOT = 512;
const HEAD = 32;
export const BODY_MAX = SLOT - HEAD;
/** slots a bucket holds */
const WAYS = 8;

// the table's own words
const LIVE = 0,
  EPOCH = 1,
  ORDER = 2,
  BUCKETS = 3,
  MAX = 4,
  WORDS = 8;

// a slot's header, in 32-bit words: the seqlock, a refresh running (RFC 8767's one refresh), the
// key's hash, the epoch it was written in, its store number, the entry's and the chain's lengths
const SEQ = 0,
  FLAGS = 1,
  HASH_HI = 2,
  HASH_LO = 3,
  S_EPOCH = 4,
  S_ORDER = 5,
  BODY = 6,
  CHAIN = 7;

/** What store() did. */
export const STORED = 0,
  EVICTED = 1,
  TOO_BIG = 2,
  BUSY = 3;

/** A buffer for `max` answers: 1.25 slots an answer, so that a bucket that draws more keys than most rarely evicts early. */
export function sharedAnswersBuffer(max: number): SharedArrayBuffer {
  const buckets = Math.max(1, Math.ceil((max * 1.25) / WAYS));
  const sab = new SharedArrayBuffer(layout(buckets).bytes);
  const w = new Int32Array(sab, 0, WORDS);
  w[BUCKETS] = buckets;
  w[MAX] = max;
  return sab;
}

function layout(buckets: number): { locks: number; slots: number; bytes: number } {
  const locks = WORDS; // in words
  const slots = Math.ceil(((WORDS + buckets) * 4) / 8) * 8; // in bytes
  return { locks, slots, bytes: slots + buckets * WAYS * SLOT };
}

export class SharedAnswers {
  readonly max: number;
  private readonly buckets: number;
  private readonly w: Int32Array;
  private readonly u8: Uint8Array;
  /** where the bucket locks begin (words) and the slots (bytes) */
  private readonly locks: number;
  private readonly slots: number;
  /** this thread's copy of the slot the last lookup() found: the entry from 0, its chain after it */
  readonly entry: Uint8Array;
  private readonly entryWords: Int32Array;
  /** the slot the last lookup() found and its sequence number then (refresh and chain memo refer to it) */
  slot = -1;
  seq = 0;
  private body = 0;
  private chainLength = 0;
  /** the chains decoded by this thread, by slot, with the sequence number they were written under */
  private readonly chains = new Map<number, { seq: number; chain: string[] }>();

  constructor(readonly buffer: SharedArrayBuffer) {
    this.w = new Int32Array(buffer);
    this.u8 = new Uint8Array(buffer);
    this.buckets = this.w[BUCKETS]!;
    this.max = this.w[MAX]!;
    const l = layout(this.buckets);
    this.locks = l.locks;
    this.slots = l.slots;
    const own = new ArrayBuffer(BODY_MAX);
    this.entry = new Uint8Array(own);
    this.entryWords = new Int32Array(own);
  }

  /** Entries held (as the writers counted them: a store racing a flush may be off by one until the next flush). */
  get live(): number {
    return Math.max(0, Atomics.load(this.w, LIVE));
  }

  clear(): void {
    Atomics.add(this.w, EPOCH, 1);
    Atomics.store(this.w, LIVE, 0);
  }

  /**
   * Finds the entry of `hash` whose key is `key`'s first `keyLength` bytes and copies it into
   * `this.entry` (its slot and sequence number into `slot` and `seq`). False: none, or only one a
   * writer kept changing while it was read.
   */
  lookup(hash: number, key: Uint8Array, keyLength: number): boolean {
    const hi = hiOf(hash),
      lo = loOf(hash);
    const w = this.w;
    const epoch = Atomics.load(w, EPOCH);
    const first = this.bucketOf(hi, lo) * WAYS;
    for (let way = 0; way < WAYS; way++) {
      const slot = first + way;
      const h = this.head(slot);
      if (w[h + HASH_LO] !== lo || w[h + HASH_HI] !== hi) continue;
      for (let tries = 0; tries < 4; tries++) {
        const seq = Atomics.load(w, h + SEQ);
        if (seq & 1) continue;
        const body = w[h + BODY]!,
          chain = w[h + CHAIN]!;
        if (w[h + S_EPOCH] !== epoch || w[h + HASH_LO] !== lo || w[h + HASH_HI] !== hi) break;
        if (body <= 0 || chain < 0 || body + chain > BODY_MAX) continue; // torn
        const from = (this.slots >> 2) + slot * (SLOT >> 2) + (HEAD >> 2);
        const words = (body + chain + 3) >> 2;
        for (let i = 0; i < words; i++) this.entryWords[i] = w[from + i]!;
        if (Atomics.load(w, h + SEQ) !== seq) continue;
        if (!hasKey(this.entry, key, keyLength)) return false; // another key with this hash
        this.slot = slot;
        this.seq = seq;
        this.body = body;
        this.chainLength = chain;
        return true;
      }
    }
    return false;
  }

  /** The CNAME chain of the entry the last lookup() found (null: none), decoded once per write of its slot. */
  chain(): string[] | null {
    if (this.chainLength === 0) return null;
    const memo = this.chains.get(this.slot);
    if (memo !== undefined && memo.seq === this.seq) return memo.chain;
    const chain: string[] = [];
    const e = this.entry;
    for (let o = this.body, end = this.body + this.chainLength; o < end; ) {
      const n = e[o++]!;
      chain.push(String.fromCharCode.apply(null, Array.from(e.subarray(o, o + n))));
      o += n;
    }
    this.chains.set(this.slot, { seq: this.seq, chain });
    return chain;
  }

  /**
   * Stores an entry (cache-entry.ts's fields) and its CNAME chain for `hash`, replacing the key's
   * entry, else filling an empty slot of its bucket, else evicting the bucket's oldest.
   */
  store(
    hash: number,
    answer: Uint8Array,
    ttlAts: readonly number[],
    f: EntryFields,
    key: Uint8Array,
    keyLength: number,
    chain: readonly string[] | null,
  ): number {
    const body = entryLength(answer.length, ttlAts.length, keyLength);
    const chainLength = chainBytes(chain);
    if (chainLength < 0 || body + chainLength > BODY_MAX) return TOO_BIG;
    const hi = hiOf(hash),
      lo = loOf(hash);
    const w = this.w;
    const bucket = this.bucketOf(hi, lo);
    const lock = this.locks + bucket;
    if (Atomics.compareExchange(w, lock, 0, 1) !== 0) return BUSY;
    const epoch = Atomics.load(w, EPOCH);
    const order = Atomics.load(w, ORDER);
    let same = -1,
      empty = -1,
      oldest = -1,
      oldestAge = -1;
    for (let way = 0, first = bucket * WAYS; way < WAYS; way++) {
      const h = this.head(first + way);
      if (w[h + S_EPOCH] !== epoch || w[h + BODY]! <= 0) {
        if (empty < 0) empty = first + way;
      } else if (w[h + HASH_LO] === lo && w[h + HASH_HI] === hi) {
        same = first + way;
        break;
      } else {
        const age = (order - w[h + S_ORDER]!) >>> 0;
        if (age > oldestAge) {
          oldestAge = age;
          oldest = first + way;
        }
      }
    }
    let slot = same,
      result = STORED;
    if (slot < 0) {
      // past dns.cache.size the bucket's oldest goes, as the ring's oldest did; a bucket with none
      // takes it in an empty slot (the table has 1.25 slots an answer)
      if (empty >= 0 && (Atomics.load(w, LIVE) < this.max || oldest < 0)) {
        slot = empty;
        Atomics.add(w, LIVE, 1);
      } else {
        slot = oldest;
        result = EVICTED;
      }
    }
    const h = this.head(slot);
    const at = this.slots + slot * SLOT + HEAD;
    Atomics.add(w, h + SEQ, 1); // odd: readers keep off
    writeEntry(this.u8, at, answer, ttlAts, f, key, keyLength);
    if (chain !== null) writeChain(this.u8, at + body, chain);
    w[h + BODY] = body;
    w[h + CHAIN] = chainLength;
    w[h + HASH_HI] = hi;
    w[h + HASH_LO] = lo;
    w[h + S_EPOCH] = epoch;
    w[h + S_ORDER] = Atomics.add(w, ORDER, 1);
    w[h + FLAGS] = 0;
    Atomics.add(w, h + SEQ, 1);
    Atomics.store(w, lock, 0);
    return result;
  }

  /** Removes the entry lookup() found as `slot` at `seq` if nobody replaced it since; whether it did. */
  remove(slot: number, seq: number): boolean {
    const w = this.w;
    const lock = this.locks + Math.floor(slot / WAYS);
    if (Atomics.compareExchange(w, lock, 0, 1) !== 0) return false;
    const h = this.head(slot);
    // a flush since the lookup emptied it already (and the count with it)
    const removed = Atomics.load(w, h + SEQ) === seq && w[h + BODY]! > 0 && w[h + S_EPOCH] === Atomics.load(w, EPOCH);
    if (removed) {
      Atomics.add(w, h + SEQ, 1);
      w[h + BODY] = 0;
      w[h + HASH_HI] = w[h + HASH_LO] = 0;
      Atomics.add(w, h + SEQ, 1);
      Atomics.sub(w, LIVE, 1);
    }
    Atomics.store(w, lock, 0);
    return removed;
  }

  /** Claims the one refresh of a stale entry for this thread; false: another runs, or the entry changed. */
  startRefresh(slot: number, seq: number): boolean {
    const h = this.head(slot);
    return Atomics.load(this.w, h + SEQ) === seq && Atomics.compareExchange(this.w, h + FLAGS, 0, 1) === 0;
  }

  /** The refresh gave up (a store of the fresh answer clears the claim itself). */
  endRefresh(slot: number, seq: number): void {
    const h = this.head(slot);
    if (Atomics.load(this.w, h + SEQ) === seq) Atomics.compareExchange(this.w, h + FLAGS, 1, 0);
  }

  private head(slot: number): number {
    return (this.slots >> 2) + slot * (SLOT >> 2);
  }

  private bucketOf(hi: number, lo: number): number {
    return ((hi ^ Math.imul(lo, 0x9e3779b1)) >>> 0) % this.buckets;
  }
}

// the 53-bit hash as two int32 words (as the Int32Array holds them)
const hiOf = (hash: number): number => Math.floor(hash / 2097152) | 0;
const loOf = (hash: number): number => hash % 2097152;

/** The bytes a chain takes in a slot; -1 when a name does not fit a length byte or is not Latin-1. */
function chainBytes(chain: readonly string[] | null): number {
  if (chain === null) return 0;
  let n = 0;
  for (const name of chain) {
    if (name.length > 255) return -1;
    for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) > 255) return -1;
    n += 1 + name.length;
  }
  return n;
}

function writeChain(u8: Uint8Array, at: number, chain: readonly string[]): void {
  let o = at;
  for (const name of chain) {
    u8[o++] = name.length;
    for (let i = 0; i < name.length; i++) u8[o++] = name.charCodeAt(i);
  }
}
