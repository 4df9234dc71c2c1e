// The cache's entries in the order they were stored, in pages of slots, found by key through a Map
// of slot numbers. A Map of the entries themselves is one table of cells, written with a young
// entry on every store: each young collection then scanned the whole table again (measured alone:
// a 100k-entry Map of Uint8Arrays made the young collections' pauses 10.8 ms at the median, a Map
// of numbers 0.5 ms). Here a store writes a number into the Map and an entry into the page being
// filled, so a collection scans only the pages written since the last one.

/** slots a page holds */
const PAGE = 256;

interface Page<T> {
  entries: Array<T | undefined>;
  keys: Float64Array;
}

export class CacheRing<T extends object, X> {
  /** key → slot */
  private readonly slots = new Map<number, number>();
  /** made as the ring first reaches them: a large dns.cache.size costs nothing until it fills */
  private pages: Array<Page<T> | undefined> = [];
  /** each slot's extra (the cache's CNAME chains), kept apart: most entries have none */
  private extras = new Map<number, X>();
  /** the next slot to fill */
  private head = 0;
  /** every live entry lies from here to the head, in the order they were stored */
  private tail = 0;
  private capacity = 0;

  constructor(private max: number) {
    this.reset();
  }

  get size(): number {
    return this.slots.size;
  }

  get(key: number): T | undefined {
    const slot = this.slots.get(key);
    return slot === undefined ? undefined : this.pages[slot >>> 8]!.entries[slot & (PAGE - 1)];
  }

  extra(key: number): X | undefined {
    const slot = this.slots.get(key);
    return slot === undefined ? undefined : this.extras.get(slot);
  }

  has(key: number): boolean {
    return this.slots.has(key);
  }

  /**
   * Stores `entry` as the newest, replacing the key's entry; when `max` entries are held, the oldest
   * goes first. Returns whether an entry was evicted.
   */
  set(key: number, entry: T, extra: X | null): boolean {
    let evicted = false;
    if (this.slots.has(key)) this.delete(key);
    else if (this.slots.size >= this.max) evicted = this.evictOldest();
    // the ring came round to a live entry with room left: holes fill most of it (entries replaced or
    // expired out of order); pack the entries, in their order, rather than evict one early
    if (this.entryAt(this.head) !== undefined && this.slots.size < this.max) this.resize(this.max);
    const slot = this.head;
    const page = (this.pages[slot >>> 8] ??= {
      entries: new Array<T | undefined>(PAGE).fill(undefined),
      keys: new Float64Array(PAGE),
    });
    const i = slot & (PAGE - 1);
    // the ring has come round to the tail, full: the slot holds the oldest entry
    if (page.entries[i] !== undefined) {
      this.drop(slot);
      evicted = true;
    }
    if (slot === this.tail && this.slots.size > 0) this.tail = (slot + 1) % this.capacity;
    page.entries[i] = entry;
    page.keys[i] = key;
    if (extra !== null) this.extras.set(slot, extra);
    this.slots.set(key, slot);
    this.head = (slot + 1) % this.capacity;
    return evicted;
  }

  delete(key: number): void {
    const slot = this.slots.get(key);
    if (slot !== undefined) this.drop(slot);
  }

  /** Removes the oldest entry; false when there is none. */
  evictOldest(): boolean {
    for (let n = 0; n < this.capacity && this.slots.size > 0; n++) {
      const slot = this.tail;
      this.tail = (slot + 1) % this.capacity;
      if (this.entryAt(slot) !== undefined) {
        this.drop(slot);
        return true;
      }
    }
    return false;
  }

  /** A new `max`: the oldest entries go while there are more; the order of the rest stays. */
  resize(max: number): void {
    const kept: Array<[number, T, X | null]> = [];
    for (let n = 0, slot = this.tail; n < this.capacity; n++, slot = (slot + 1) % this.capacity) {
      const e = this.entryAt(slot);
      if (e !== undefined)
        kept.push([this.pages[slot >>> 8]!.keys[slot & (PAGE - 1)]!, e, this.extras.get(slot) ?? null]);
    }
    this.max = max;
    this.reset();
    for (const [key, e, x] of kept.slice(Math.max(0, kept.length - max))) this.set(key, e, x);
  }

  clear(): void {
    this.reset();
  }

  private entryAt(slot: number): T | undefined {
    return this.pages[slot >>> 8]?.entries[slot & (PAGE - 1)];
  }

  private drop(slot: number): void {
    const page = this.pages[slot >>> 8]!;
    const i = slot & (PAGE - 1);
    this.slots.delete(page.keys[i]!);
    // a hole: writing undefined makes no page one the collector must scan again
    page.entries[i] = undefined;
    this.extras.delete(slot);
  }

  private reset(): void {
    // twice the entries: a slot freed out of order (an entry replaced or expired) is not refilled
    // until the ring comes round, and the oldest entry is found by walking from the tail
    this.capacity = Math.max(PAGE, Math.ceil((2 * this.max) / PAGE) * PAGE);
    this.pages = new Array<Page<T> | undefined>(this.capacity / PAGE).fill(undefined);
    this.slots.clear();
    this.extras = new Map();
    this.head = this.tail = 0;
  }
}
