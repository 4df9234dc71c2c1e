// One flat table of names and their ids: a slot holds a name's hash, id and place in one byte array of
// all the names, so a lookup reads one slot and the name's bytes (see name-ids.ts for why flat).
const FIRST_SLOTS = 1024;
const FIRST_BYTES = 16_384;
/** a slot: hash, id, where the name begins in `bytes`, its length + 1 (0: an empty slot) */
const SLOT = 4;

/** FNV-1a over the UTF-16 code units of text[start, start + len). */
export function hashOf(text: string, start: number, len: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < start + len; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Open addressing with linear probing; names of Latin-1 characters and ids of 32 bits only (the caller checks). */
export class FlatNames {
  private slots = new Int32Array(FIRST_SLOTS * SLOT);
  private bytes = new Uint8Array(FIRST_BYTES);
  private used = 0;
  count = 0;

  /** The slot (its first index) of text[start, start + len), -1 for none. */
  find(text: string, start: number, len: number, h: number): number {
    const s = this.slots;
    const b = this.bytes;
    const mask = s.length / SLOT - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const o = i * SLOT;
      const l = s[o + 3]! - 1;
      if (l < 0) return -1;
      if (s[o] === h && l === len) {
        let p = s[o + 2]!;
        let k = start;
        const end = start + len;
        while (k < end && b[p] === text.charCodeAt(k)) {
          p++;
          k++;
        }
        if (k === end) return o;
      }
    }
  }

  idOf(slot: number): number {
    return this.slots[slot + 1]!;
  }

  setId(slot: number, id: number): void {
    this.slots[slot + 1] = id;
  }

  /** Adds text[start, start + len), which is not here. */
  add(text: string, start: number, len: number, h: number, id: number): void {
    if ((this.count + 1) * 2 * SLOT > this.slots.length) this.rehash(this.slots.length * 2);
    if (this.used + len > this.bytes.length) {
      const more = new Uint8Array(Math.max(this.bytes.length * 2, this.used + len));
      more.set(this.bytes.subarray(0, this.used));
      this.bytes = more;
    }
    const at = this.used;
    for (let i = 0; i < len; i++) this.bytes[at + i] = text.charCodeAt(start + i);
    this.used += len;
    this.place(h, id, at, len);
    this.count++;
  }

  /** Every name and its id. */
  entries(): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    const s = this.slots;
    for (let o = 0; o < s.length; o += SLOT) {
      const len = s[o + 3]! - 1;
      if (len >= 0) out.push([String.fromCharCode(...this.bytes.subarray(s[o + 2]!, s[o + 2]! + len)), s[o + 1]!]);
    }
    return out;
  }

  /** Empties the table, keeping its arrays (they grew to what the next fill needs too). */
  empty(): void {
    this.slots.fill(0);
    this.used = 0;
    this.count = 0;
  }

  private place(h: number, id: number, at: number, len: number): void {
    const s = this.slots;
    const mask = s.length / SLOT - 1;
    let i = h & mask;
    while (s[i * SLOT + 3] !== 0) i = (i + 1) & mask;
    const o = i * SLOT;
    s[o] = h;
    s[o + 1] = id;
    s[o + 2] = at;
    s[o + 3] = len + 1;
  }

  private rehash(size: number): void {
    const old = this.slots;
    this.slots = new Int32Array(size);
    for (let o = 0; o < old.length; o += SLOT)
      if (old[o + 3] !== 0) this.place(old[o]!, old[o + 1]!, old[o + 2]!, old[o + 3]! - 1);
  }
}
