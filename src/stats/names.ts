// Names kept outside the JavaScript heap: the 24 h window names hundreds of thousands of domains, and
// as strings in a Map each cost ~190 bytes of heap (a Map entry, a string cell and its characters)
// that every full collection of the DNS thread's heap had to trace. Here a name is its UTF-8 bytes
// in one arena, found through an open-addressing hash table of typed arrays: ~60 bytes a name and
// nothing for the collector. Ids are small integers, reused once released.

import { type ByteGlob, globMatches } from "./byte-glob.ts";
import { AHEAD_STRIDE, GrowAhead } from "./grow-ahead.ts";

const EMPTY = -1;
const MAX_CHARS = 16_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** FNV-1a over `len` bytes of `b`. */
function fnv(b: Uint8Array, len: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < len; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h >>> 0;
}

export class NameTable {
  /** a Buffer for its latin1 decoding of ASCII names: no view or array made per name (name()) */
  private arena = Buffer.alloc(1 << 16);
  /** arena bytes in use, live or released */
  private end = 0;
  /** arena bytes of released names (reclaimed by the next compaction) */
  private dead = 0;
  private offs = new Uint32Array(1024);
  /** byte length + 1 per id; 0 for a free id */
  private lens = new Uint16Array(1024);
  private hashes = new Uint32Array(1024);
  private slots = new Int32Array(2048).fill(EMPTY);
  private live = 0;
  private nextId = 0;
  private free: number[] = [];
  private scratch = new Uint8Array(512);
  /** the next arena, id columns and slots, written ahead of each growth (grow-ahead.ts) */
  private readonly ahead = {
    // only the names' bytes are ever read, never the free end
    arena: new GrowAhead(1, (raw) => raw, false),
    offs: new GrowAhead(4, (raw, n) => new Uint32Array(raw.buffer, raw.byteOffset, n)),
    lens: new GrowAhead(2, (raw, n) => new Uint16Array(raw.buffer, raw.byteOffset, n)),
    hashes: new GrowAhead(4, (raw, n) => new Uint32Array(raw.buffer, raw.byteOffset, n)),
    slots: new GrowAhead(4, (raw, n) => new Int32Array(raw.buffer, raw.byteOffset, n)),
  };

  get size(): number {
    return this.live;
  }

  /** The id of `name`, or -1. */
  find(name: string): number {
    const len = this.encode(name);
    const slot = this.slotOf(fnv(this.scratch, len), len);
    return slot >= 0 ? this.slots[slot]! : -1;
  }

  /** The id of `name`, made when new. */
  id(name: string): number {
    const len = this.encode(name);
    const h = fnv(this.scratch, len);
    const slot = this.slotOf(h, len);
    if (slot >= 0) return this.slots[slot]!;
    if (this.end + len > this.arena.length) this.makeRoom(len);
    const id = this.free.pop() ?? this.nextId++;
    if (id >= this.lens.length) this.growIds();
    this.arena.set(this.scratch.subarray(0, len), this.end);
    this.offs[id] = this.end;
    this.lens[id] = len + 1;
    this.hashes[id] = h;
    this.end += len;
    this.slots[-slot - 1] = id;
    if (++this.live * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    if ((this.live & (AHEAD_STRIDE - 1)) === 0) this.writeAhead();
    return id;
  }

  /** One past the largest id handed out so far. */
  idLimit(): number {
    return this.nextId;
  }

  /** Whether `id` names something now. */
  has(id: number): boolean {
    return id >= 0 && id < this.nextId && this.lens[id]! > 0;
  }

  /** The name of a live id. */
  name(id: number): string {
    const off = this.offs[id]!,
      len = this.lens[id]! - 1;
    const b = this.arena;
    let ascii = true;
    for (let i = off; i < off + len; i++) if (b[i]! >= 0x80) ascii = false;
    // 3 times as fast as String.fromCharCode over a subarray, and half the garbage (a day's names
    // decoded for the exclusions: +31 MiB against +65 for a million)
    return ascii ? b.toString("latin1", off, off + len) : decoder.decode(b.subarray(off, off + len));
  }

  /**
   * Whether the name of a live id sorts before `s` (as JavaScript compares strings), its bytes compared
   * where they lie; decoded only when either has a character beyond ASCII.
   */
  nameBefore(id: number, s: string): boolean {
    const off = this.offs[id]!,
      len = this.lens[id]! - 1;
    const b = this.arena;
    const n = Math.min(len, s.length);
    for (let i = 0; i < n; i++) {
      const x = b[off + i]!,
        y = s.charCodeAt(i);
      if (x >= 0x80 || y >= 0x80) return this.name(id) < s;
      if (x !== y) return x < y;
    }
    for (let i = n; i < len; i++) if (b[off + i]! >= 0x80) return this.name(id) < s;
    return len < s.length;
  }

  /** Forgets a live id; it goes to the next new name. */
  release(id: number): void {
    const mask = this.slots.length - 1;
    let i = this.hashes[id]! & mask;
    while (this.slots[i] !== id) i = (i + 1) & mask;
    // backward-shift deletion: every entry after the hole that may move into it does, so a lookup
    // never meets a hole before its entry (linear probing needs no tombstones)
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const other = this.slots[j]!;
      if (other === EMPTY) break;
      const home = this.hashes[other]! & mask;
      const stays = i <= j ? i < home && home <= j : i < home || home <= j;
      if (stays) continue;
      this.slots[i] = other;
      i = j;
    }
    this.slots[i] = EMPTY;
    this.dead += this.lens[id]! - 1;
    this.lens[id] = 0;
    this.free.push(id);
    this.live--;
  }

  /**
   * Calls `fn` with every live id whose name matches `glob`, its bytes compared where they lie; a
   * name the bytes cannot judge (or every name, with no `glob`) is decoded for `re`. Only the ids in
   * [from, to), when given.
   */
  forEachMatch(glob: ByteGlob | null, re: RegExp, fn: (id: number) => void, from = 0, to = this.nextId): void {
    for (let id = from, end = Math.min(to, this.nextId); id < end; id++) {
      const len = this.lens[id]!;
      if (len === 0) continue;
      const m = glob ? globMatches(glob, this.arena, this.offs[id]!, len - 1) : null;
      if (m ?? re.test(this.name(id))) fn(id);
    }
  }

  /** Calls `fn` with every live id. */
  forEachId(fn: (id: number) => void): void {
    for (let id = 0; id < this.nextId; id++) if (this.lens[id]! > 0) fn(id);
  }

  /** Bytes this table holds (arena, per-id columns, slots, the next ones made ahead). */
  bytes(): number {
    const a = this.ahead;
    const next = a.arena.bytes() + a.offs.bytes() + a.lens.bytes() + a.hashes.bytes() + a.slots.bytes();
    return this.arena.length + this.lens.length * 10 + this.slots.length * 4 + next;
  }

  /** Bytes its live names need: their bytes, their per-id columns and two slots each (what falls as names go). */
  liveBytes(): number {
    return this.end - this.dead + this.live * 18;
  }

  /** `name`'s UTF-8 bytes into the scratch buffer; their count. */
  private encode(full: string): number {
    // a DNS name has at most 253 characters; anything far longer is cut, as lens holds 16 bits
    const name = full.length > MAX_CHARS ? full.slice(0, MAX_CHARS) : full;
    if (name.length * 3 > this.scratch.length) this.scratch = new Uint8Array(name.length * 3);
    const s = this.scratch;
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i);
      if (c >= 0x80) return encoder.encodeInto(name, s).written;
      s[i] = c;
    }
    return name.length;
  }

  /** The slot holding the scratch name (≥ 0), or -(the free slot where it would go) - 1. */
  private slotOf(h: number, len: number): number {
    const mask = this.slots.length - 1;
    const s = this.scratch,
      a = this.arena;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const id = this.slots[i]!;
      if (id === EMPTY) return -i - 1;
      if (this.hashes[id] !== h || this.lens[id] !== len + 1) continue;
      const off = this.offs[id]!;
      let k = 0;
      while (k < len && a[off + k] === s[k]) k++;
      if (k === len) return i;
    }
  }

  private rehash(size: number): void {
    // plain loops, no callback and no subarray per name: at a million names a growth or a compaction
    // ran on the DNS thread for 30-90 ms with them (bench/startup/run.ts, a day of a million names)
    const slots = this.ahead.slots.take(size).fill(EMPTY);
    const mask = size - 1;
    const { lens, hashes } = this;
    for (let id = 0; id < this.nextId; id++) {
      if (lens[id] === 0) continue;
      let i = hashes[id]! & mask;
      while (slots[i] !== EMPTY) i = (i + 1) & mask;
      slots[i] = id;
    }
    this.slots = slots;
  }

  /** Room for `len` more bytes: released names' bytes reclaimed when they are half the arena, else a bigger arena. */
  private makeRoom(len: number): void {
    const liveBytes = this.end - this.dead;
    const arena = this.ahead.arena.take(this.roomFor(liveBytes + len));
    const old = this.arena;
    if (this.dead === 0) {
      // nothing released: the names keep their offsets
      arena.set(old.subarray(0, this.end));
      this.arena = arena;
      return;
    }
    const { offs, lens } = this;
    let end = 0;
    for (let id = 0; id < this.nextId; id++) {
      const n = lens[id]! - 1;
      if (n < 0) continue;
      const off = offs[id]!;
      for (let k = 0; k < n; k++) arena[end + k] = old[off + k]!;
      offs[id] = end;
      end += n;
    }
    this.arena = arena;
    this.end = end;
    this.dead = 0;
  }

  /** The arena's size for `live` bytes: they fill at most half of it. */
  private roomFor(live: number): number {
    let size = this.arena.length;
    while (live > size / 2) size *= 2;
    return size;
  }

  private growIds(): void {
    const n = this.lens.length * 2;
    const more = <T extends Uint32Array | Uint16Array>(a: T, b: T): T => (b.set(a), b);
    this.offs = more(this.offs, this.ahead.offs.take(n));
    this.lens = more(this.lens, this.ahead.lens.take(n));
    this.hashes = more(this.hashes, this.ahead.hashes.take(n));
  }

  /** Writes a little more of the arrays the next growths will take (every AHEAD_STRIDE-th new name). */
  private writeAhead(): void {
    const a = this.ahead;
    const ids = this.lens.length;
    a.offs.advance(this.nextId, ids, ids * 2);
    a.lens.advance(this.nextId, ids, ids * 2);
    a.hashes.advance(this.nextId, ids, ids * 2);
    a.slots.advance(this.live * 2, this.slots.length, this.slots.length * 2);
    // the arena is written in order as names come: only what the growth copies is written ahead
    const live = this.arena.length - this.dead;
    a.arena.advance(this.end, this.arena.length, this.roomFor(live + 1), live);
  }
}
