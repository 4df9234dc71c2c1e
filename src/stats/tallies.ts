// Per-key counters of the 24 h window: how many queries of the window name a key, how many of them
// were blocked, and when the newest came. The window's ring names keys by id (ring.ts); an id whose
// key counts nothing any more goes to the next new key.
import { AHEAD_STRIDE, GrowAhead } from "./grow-ahead.ts";
import { NameTable } from "./names.ts";
import type { ByteGlob } from "./byte-glob.ts";
import { idRunsInSlices } from "./slices.ts";

/** ids a sliced pass (idsMatching, forEachInSlices) visits between looks at the clock */
const STEP_IDS = 8192;
const UNTESTED = 0;
const PASSED = 1;
const FAILED = 2;

/** Ids a filter keeps (or drops). */
export interface IdSet {
  readonly size: number;
  has(id: number): boolean;
}

/** One key's counters in the window. */
export interface Tally {
  /** the key itself: one copy, shared by the queries that name it */
  key: string;
  /** what the ring stores instead of the key (reused once the tally counts nothing) */
  id: number;
  count: number;
  blocked: number;
  /** time of the newest query counted */
  last: number;
}

/** A tally object per key: for the few clients, whose tallies the API reads as objects. */
export class TallyTable {
  readonly byKey = new Map<string, Tally>();
  private ids: Array<Tally | undefined> = [];
  private free: number[] = [];

  /** The tally of `key`, made when new. */
  of(key: string): Tally {
    let t = this.byKey.get(key);
    if (!t) {
      const id = this.free.pop() ?? this.ids.length;
      this.byKey.set(key, (t = { key, id, count: 0, blocked: 0, last: 0 }));
      this.ids[id] = t;
    }
    return t;
  }

  byId(id: number): Tally {
    return this.ids[id]!;
  }

  /** Counts one query (d = 1) or takes one away (d = -1). */
  count(t: Tally, d: number, blocked: boolean, time: number): void {
    t.count += d;
    if (d > 0 && time > t.last) t.last = time;
    if (blocked) t.blocked += d;
    if (t.count <= 0) {
      this.byKey.delete(t.key);
      this.ids[t.id] = undefined;
      this.free.push(t.id);
    }
  }
}

/** What forEach hands out: one reused object, read it before the next call. */
interface TallyView {
  count: number;
  blocked: number;
  last: number;
}

/**
 * The same for domains, of which a busy day has hundreds of thousands: the counters live in typed
 * columns by id and the names in a NameTable (names.ts), outside the JavaScript heap: ~75 bytes a
 * domain, none of them traced by the collector (as strings in a Map: ~230 bytes of RSS a domain,
 * measured with a million distinct names).
 */
export class CompactTallies {
  private readonly names = new NameTable();
  private counts = new Int32Array(1024);
  private blockeds = new Int32Array(1024);
  private lasts = new Float64Array(1024);
  /** the next counter columns, written ahead of each growth (grow-ahead.ts) */
  private readonly ahead = {
    counts: new GrowAhead(4, (raw, n) => new Int32Array(raw.buffer, raw.byteOffset, n)),
    blockeds: new GrowAhead(4, (raw, n) => new Int32Array(raw.buffer, raw.byteOffset, n)),
    lasts: new GrowAhead(8, (raw, n) => new Float64Array(raw.buffer, raw.byteOffset, n)),
  };
  private readonly view: TallyView = { count: 0, blocked: 0, last: 0 };
  /** idsWhereKept's answers per id for one test */
  private memo: { key: string; answers: Uint8Array } | null = null;

  get size(): number {
    return this.names.size;
  }

  has(key: string): boolean {
    return this.names.find(key) >= 0;
  }

  *keys(): Generator<string> {
    const ids: number[] = [];
    this.names.forEachId((id) => ids.push(id));
    for (const id of ids) yield this.names.name(id);
  }

  /** The id of `key`, made when new. */
  of(key: string): number {
    const before = this.names.size;
    const id = this.names.id(key);
    if (this.names.size !== before) {
      if (id >= this.counts.length) this.grow(id);
      this.counts[id] = this.blockeds[id] = this.lasts[id] = 0;
      if ((id & (AHEAD_STRIDE - 1)) === 0) {
        const n = this.counts.length;
        this.ahead.counts.advance(id, n, n * 2);
        this.ahead.blockeds.advance(id, n, n * 2);
        this.ahead.lasts.advance(id, n, n * 2);
      }
      // an id handed out again names another key now
      if (this.memo && id < this.memo.answers.length) this.memo.answers[id] = UNTESTED;
    }
    return id;
  }

  /** Counts one query (d = 1) or takes one away (d = -1). */
  count(id: number, d: number, blocked: boolean, time: number): void {
    const c = (this.counts[id]! += d);
    if (d > 0 && time > this.lasts[id]!) this.lasts[id] = time;
    if (blocked) this.blockeds[id]! += d;
    if (c <= 0) this.names.release(id);
  }

  /**
   * Every key with its counters (the view and the key function are reused: both are valid during
   * the call only). The key is a function: a name is decoded from the table only when asked, so a
   * top-10 over a day's domains decodes a few dozen, not all.
   */
  forEach(
    fn: (t: TallyView, key: () => string, keyBefore: (s: string) => boolean) => void,
    from = 0,
    to = Number.POSITIVE_INFINITY,
  ): void {
    const v = this.view;
    // one key function for every entry, valid during its call: a closure per id was a million
    // function objects per top list (117 ms and 111 MiB for a day of 1M names, even when no entry
    // reached a comparison; bench/api/long-calls.ts --only stats)
    let current = 0;
    const key = () => this.names.name(current);
    // whether the key sorts before `s`, without decoding it (a top list's ties)
    const keyBefore = (s: string) => this.names.nameBefore(current, s);
    const { counts, blockeds, lasts, names } = this;
    for (let id = from, end = Math.min(to, names.idLimit()); id < end; id++) {
      if (!names.has(id)) continue;
      current = id;
      v.count = counts[id]!;
      v.blocked = blockeds[id]!;
      v.last = lasts[id]!;
      fn(v, key, keyBefore);
    }
  }

  /**
   * forEach in runs of ids with the event loop free every ~`sliceMs` (a top list of a day's million
   * names). A key new since the start may or may not be visited.
   */
  forEachInSlices(
    fn: (t: TallyView, key: () => string, keyBefore: (s: string) => boolean) => void,
    sliceMs = 2,
  ): Promise<void> {
    return idRunsInSlices(
      () => this.names.idLimit(),
      STEP_IDS,
      sliceMs,
      (from, to) => this.forEach(fn, from, to),
    );
  }

  /** The key of an id, or undefined when no query names it any more. */
  key(id: number): string | undefined {
    return this.names.has(id) ? this.names.name(id) : undefined;
  }

  /** The ids of the keys that pass `test`. */
  idsWhere(test: (key: string) => boolean): Set<number> {
    const out = new Set<number>();
    this.names.forEachId((id) => test(this.names.name(id)) && out.add(id));
    return out;
  }

  /**
   * The ids of the keys that match a `*` wildcard pattern (byte-glob.ts; `re` is the same pattern's
   * RegExp), as a bitset: a pattern may match half a day's million names, and a Set of them took
   * ~40 MiB and most of the time. Compared in slices of about `sliceMs` with the event loop free
   * between them (30-80 ms for a million names). A key new since the start is not among them.
   */
  async idsMatching(glob: ByteGlob | null, re: RegExp, sliceMs = 2): Promise<IdSet> {
    const limit = this.names.idLimit();
    const bits = new Uint8Array(limit);
    let size = 0;
    const match = (id: number) => {
      bits[id] = 1;
      size++;
    };
    await idRunsInSlices(
      () => limit,
      STEP_IDS,
      sliceMs,
      (from, to) => this.names.forEachMatch(glob, re, match, from, to),
    );
    return { size, has: (id) => bits[id] === 1 };
  }

  /**
   * The ids of the keys that pass `test`, whose answers are kept per id while `memoKey` stays the
   * same: the query log's exclusions (regexes, webserver.api.excludeDomains) ask every request, and
   * testing a day's million names each time took 246 ms and 216 MiB (bench/api/long-calls.ts
   * --exclude). A name new to an id is tested again (of()). The names without an answer are tested
   * in slices of about `sliceMs` with the event loop free between them: the first request after a
   * start or a change of the exclusions tests a day's names (401 ms for a million, all of it on the
   * thread that answers DNS). Runs of 256 ids: `test` may be slow.
   */
  async idsWhereKept(memoKey: string, test: (key: string) => boolean, sliceMs = 2): Promise<IdSet> {
    const memo = this.memo?.key === memoKey ? this.memo : (this.memo = { key: memoKey, answers: new Uint8Array(0) });
    let size = 0;
    await idRunsInSlices(
      () => this.names.idLimit(),
      256,
      sliceMs,
      (from, to) => {
        if (memo.answers.length < to) {
          const more = new Uint8Array(Math.max(to, memo.answers.length * 2));
          more.set(memo.answers);
          memo.answers = more;
        }
        const answers = memo.answers;
        for (let id = from; id < to; id++) {
          if (!this.names.has(id)) continue;
          if (answers[id] === UNTESTED) answers[id] = test(this.names.name(id)) ? PASSED : FAILED;
          if (answers[id] === PASSED) size++;
        }
      },
    );
    // another key took the memo meanwhile: these answers serve this call only (of() no longer
    // resets them for a reused id)
    const answers = memo.answers;
    return { size, has: (id) => answers[id] === PASSED };
  }

  /** The counters of one key, as a new object (for tools and tests; the API reads through forEach). */
  get(key: string): TallyView | undefined {
    const id = this.names.find(key);
    return id < 0 ? undefined : { count: this.counts[id]!, blocked: this.blockeds[id]!, last: this.lasts[id]! };
  }

  /** Bytes the live names and their counters need. */
  bytes(): number {
    return this.names.liveBytes() + this.names.size * 16;
  }

  private grow(id: number): void {
    let n = this.counts.length * 2;
    while (n <= id) n *= 2;
    const more = <T extends Int32Array | Float64Array>(a: T, b: T): T => (b.set(a), b);
    this.counts = more(this.counts, this.ahead.counts.take(n));
    this.blockeds = more(this.blockeds, this.ahead.blockeds.take(n));
    this.lasts = more(this.lasts, this.ahead.lasts.take(n));
  }
}
