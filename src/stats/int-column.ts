// One column of small integers in one chunk of the window's ring (ring.ts), kept in the least memory
// its values allow: nothing while every value is the same (the EDE and DNSSEC columns of a day
// without either, the CNAME of most chunks), then 8 or 16 bits a value, then 32 bits once a value
// needs them (a busy network's domain ids). A column only ever widens, and each step copies what
// the chunk holds so far, so every value comes back exactly as it was set.

/** 8 or 16 bits a value until a value needs 32 */
export type NarrowBits = 8 | 16;

export class IntColumn {
  private narrow: Int8Array | Int16Array | null = null;
  private wide: Int32Array | null = null;
  /** before any array: the value of every entry so far */
  private constant = 0;
  /** the narrow array's least value stands for `none`; the others hold themselves */
  private readonly min: number;
  private readonly max: number;

  /**
   * `none`: the value that means "no value" (-1 for an id, the "no list" value), which the narrow
   * array holds as its least value, so it fits however large it is.
   */
  constructor(
    private readonly size: number,
    private readonly bits: NarrowBits,
    private readonly none: number,
  ) {
    this.max = bits === 8 ? 127 : 32767;
    this.min = -this.max - 1;
  }

  get(i: number): number {
    if (this.wide) return this.wide[i]!;
    if (this.narrow) {
      const x = this.narrow[i]!;
      return x === this.min ? this.none : x;
    }
    return this.constant;
  }

  /** Sets entry `i`; entries are set in order, from 0. */
  set(i: number, v: number): void {
    if (this.wide) this.wide[i] = v;
    else if (this.narrow) {
      if (v === this.none) this.narrow[i] = this.min;
      else if (v > this.min && v <= this.max) this.narrow[i] = v;
      else this.widen(i)[i] = v;
    } else if (i === 0) this.constant = v;
    else if (v !== this.constant) {
      this.narrow = this.bits === 8 ? new Int8Array(this.size) : new Int16Array(this.size);
      const c = this.constant;
      if (c === this.none) this.narrow.fill(this.min, 0, i);
      else if (c > this.min && c <= this.max) this.narrow.fill(c, 0, i);
      else {
        this.narrow = null;
        this.wide = new Int32Array(this.size).fill(c, 0, i);
      }
      this.set(i, v);
    }
  }

  /** Bytes of its array (0 while every value is the same). */
  bytes(): number {
    return this.wide?.byteLength ?? this.narrow?.byteLength ?? 0;
  }

  /** The 32-bit array, holding entries [0, n) as they were. */
  private widen(n: number): Int32Array {
    const wide = new Int32Array(this.size);
    for (let k = 0; k < n; k++) wide[k] = this.get(k);
    this.narrow = null;
    this.wide = wide;
    return wide;
  }
}
