// Per-key counters of the 24 h window: how many queries of the window name a key, how many of them
// were blocked, and when the newest came. The window's ring names keys by id (ring.ts); an id whose
// key counts nothing any more goes to the next new key.

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
 * columns by id and only the key → id map holds objects, ~110 bytes a domain instead of ~320 with an
 * object per tally (measured on the mix benchmark: 300k domains took ~97 MB of the heap).
 */
export class CompactTallies {
  private readonly ids = new Map<string, number>();
  private keyOf: Array<string | undefined> = [];
  private counts = new Int32Array(1024);
  private blockeds = new Int32Array(1024);
  private lasts = new Float64Array(1024);
  private free: number[] = [];
  private readonly view: TallyView = { count: 0, blocked: 0, last: 0 };

  get size(): number {
    return this.ids.size;
  }

  has(key: string): boolean {
    return this.ids.has(key);
  }

  keys(): MapIterator<string> {
    return this.ids.keys();
  }

  /** The id of `key`, made when new. */
  of(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.free.pop() ?? this.keyOf.length;
      if (id >= this.counts.length) this.grow();
      this.ids.set(key, id);
      this.keyOf[id] = key;
      this.counts[id] = this.blockeds[id] = this.lasts[id] = 0;
    }
    return id;
  }

  /** Counts one query (d = 1) or takes one away (d = -1). */
  count(id: number, d: number, blocked: boolean, time: number): void {
    const c = (this.counts[id]! += d);
    if (d > 0 && time > this.lasts[id]!) this.lasts[id] = time;
    if (blocked) this.blockeds[id]! += d;
    if (c <= 0) {
      this.ids.delete(this.keyOf[id]!);
      this.keyOf[id] = undefined;
      this.free.push(id);
    }
  }

  /** Every key with its counters, as Map.forEach hands them (the view is reused). */
  forEach(fn: (t: TallyView, key: string) => void): void {
    const v = this.view;
    this.ids.forEach((id, key) => {
      v.count = this.counts[id]!;
      v.blocked = this.blockeds[id]!;
      v.last = this.lasts[id]!;
      fn(v, key);
    });
  }

  /** The key of an id, or undefined when no query names it any more. */
  key(id: number): string | undefined {
    return this.keyOf[id];
  }

  /** The ids of the keys that pass `test`. */
  idsWhere(test: (key: string) => boolean): Set<number> {
    const out = new Set<number>();
    this.ids.forEach((id, key) => test(key) && out.add(id));
    return out;
  }

  /** The counters of one key, as a new object (for tools and tests; the API reads through forEach). */
  get(key: string): TallyView | undefined {
    const id = this.ids.get(key);
    return id === undefined
      ? undefined
      : { count: this.counts[id]!, blocked: this.blockeds[id]!, last: this.lasts[id]! };
  }

  private grow(): void {
    const n = this.counts.length * 2;
    const more = <T extends Int32Array | Float64Array>(a: T, b: T): T => (b.set(a), b);
    this.counts = more(this.counts, new Int32Array(n));
    this.blockeds = more(this.blockeds, new Int32Array(n));
    this.lasts = more(this.lasts, new Float64Array(n));
  }
}
