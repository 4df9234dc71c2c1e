// The next, larger array of a table that grows by doubling (names.ts, tallies.ts), made before the
// growth and written a little at a time as the table fills. The first write to a page the kernel has
// not handed this process before is a page fault, and on the VM this was measured on a fault costs
// 12-30 µs: 3-8 ms a MiB. A zeroed array faults its pages as it is made (the allocator clears
// memory it had given back), so a name table of half a million names that doubled its columns and
// rehashed into new arrays held the thread that answers DNS for 50-110 ms at once (the history loaded
// at start, bench/startup/run.ts). Here the next array's memory is taken uninitialized (no page
// touched) and zeroed in the steps of the way to the growth, which then copies into pages already
// there (~1 ms for 16 MiB).

type Column =
  | Int32Array<ArrayBuffer>
  | Uint32Array<ArrayBuffer>
  | Uint16Array<ArrayBuffer>
  | Float64Array<ArrayBuffer>
  | Buffer<ArrayBuffer>;

/**
 * The share of the way to the growth from which the next array is written: late, since a table that
 * stops growing there holds the next arrays unused (up to ~70 MiB at a million names); early enough
 * that the faults are spread (at a million names, one page every ~6 new names).
 */
const START = 0.875;
/**
 * A table advances its arrays at every AHEAD_STRIDE-th new entry (a power of 2), not at each: the
 * calls cost more than the writes they spread. What the last stride leaves, take() writes.
 */
export const AHEAD_STRIDE = 64;

export class GrowAhead<T extends Column> {
  private next: T | null = null;
  /** elements of `next` from its start that are zero */
  private written = 0;

  /**
   * `view`: the column over `length` elements of raw memory. `zeroed`: take() hands out zeros only;
   * without it, what lies past the span written ahead is left as it was (an arena's free end).
   */
  constructor(
    private readonly bytesPer: number,
    private readonly view: (raw: Buffer<ArrayBuffer>, length: number) => T,
    private readonly zeroed = true,
  ) {}

  /**
   * The table has `used` of the `limit` at which it grows to an array of `length` elements. From
   * START of the way on, zeroes as much of the next array's first `span` elements (all of it by
   * default) as the way done asks: all of them by the time `used` reaches `limit`.
   */
  advance(used: number, limit: number, length: number, span = length): void {
    const from = limit * START;
    if (used < from) return;
    let next = this.next;
    if (next === null || next.length !== length) {
      next = this.next = this.view(Buffer.allocUnsafeSlow(length * this.bytesPer), length);
      this.written = 0;
    }
    const want = Math.min(span, Math.ceil(((used - from + 1) / (limit - from)) * span));
    if (want <= this.written) return;
    next.fill(0, this.written, want);
    this.written = want;
  }

  /** An array of `length` elements, zeros (see `zeroed`): the one made ahead, when it has that length. */
  take(length: number): T {
    const next = this.next;
    const written = this.written;
    this.next = null;
    this.written = 0;
    if (next === null || next.length !== length) return this.view(Buffer.alloc(length * this.bytesPer), length);
    if (this.zeroed) next.fill(0, written);
    return next;
  }

  /** Bytes of the array made ahead (0 when none). */
  bytes(): number {
    return this.next?.byteLength ?? 0;
  }
}
