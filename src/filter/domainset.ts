// An immutable set of domain names with a Bloom prefilter in front of an exact open-addressing
// table: a hit is always confirmed byte for byte against the stored name, so there are no false
// positives, and a lookup allocates nothing. The name is hashed once natively (Bun.hash.cityHash32
// over the wire bytes, ~0.17 µs); the Bloom bits and the table slot both derive from that hash.
//
// Layout (the budget is ≤ 25 MB per million names, bench/gravity/gravity.bench.ts): names are not stored whole. Each entry is a
// record [len][label bytes][parent ref][combo] (refs and combos as narrow as the set allows, 1–4
// and 1–3 bytes little-endian) whose parent is a shared suffix node
// [len][label bytes][parent ref u32] (ref = node offset + 1, 0 = the root), so "bench12.test" or
// "doubleclick.net" is stored once for all its children. The table holds record offsets + 1.
// Which lists an entry came from is a "combo" (a distinct set of list ids, few per set); the group
// bitsets are per combo and resolved when the snapshot is assembled, so the structure itself does
// not depend on groups or enabled flags and can be cached in a file across such changes. A set
// from one list has a single combo and stores none (0 bytes). Table slots are as narrow as the
// record bytes allow too (3 bytes up to 16 MiB of records, about 1.3M names).
// Measured at 1M names (1 list): 25.2 → 21.7 bytes a name with 3-byte slots at fill 0.8, no combo and
// 10 Bloom bits a name (k = 6: 0.8% of non-members reach the table, where the probe ends them).

export interface DomainSetShape {
  count: number;
  /** open-addressing table of record offset + 1 (0 = empty), `slotBytes` little-endian bytes a slot;
   * any number of slots, indexed by the hash's high bits */
  slots: Uint8Array;
  slotBytes: number;
  recs: Uint8Array;
  /** set instead of `recs` by a build finished for the file writer: the records as consecutive parts */
  recsParts?: Uint8Array[];
  nodes: Uint8Array;
  /** bytes of a record's parent ref and of its combo index (0: one combo, none stored) */
  refBytes: number;
  comboBytes: number;
  /** Bloom bits (a multiple of 32) */
  bloom: Uint32Array;
  /** the list ids of each combo */
  combos: number[][];
}

export interface DomainSetData extends DomainSetShape {
  /** group bitset words per combo */
  words: number;
  /** combo c applies to the groups in comboMasks[c*words ..], reported as list comboIds[c] */
  comboMasks: Uint32Array;
  comboIds: Int32Array;
}

const BLOOM_K = 6;
export const BLOOM_BITS_PER_NAME = 10;
/** table fill ≤ 0.8: short probe runs (a hit takes ~3 probes) without the waste of power-of-two sizes */
export const SLOT_LOAD = 0.8;
const TWO32 = 4294967296;

// looked up once: going through Bun.hash on every call costs more than the hash itself
const cityHash32 = Bun.hash.cityHash32;

export function hashName(bytes: Uint8Array): number {
  return cityHash32(bytes) >>> 0;
}

/** The second hash for double hashing of the Bloom bits. */
function h2of(h: number): number {
  return (Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ (h >>> 12)) | 1;
}

/** h scaled to [0, size): multiply-shift, so sizes need not be powers of two. */
export function scale(h: number, size: number): number {
  return Math.floor(((h >>> 0) * size) / TWO32);
}

export function u32at(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
}

export function u24at(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16);
}

/** An n-byte (0–4) little-endian unsigned integer (0 bytes: 0). */
function uintAt(b: Uint8Array, o: number, n: number): number {
  if (n === 0) return 0;
  let v = b[o]!;
  if (n > 1) v |= b[o + 1]! << 8;
  if (n > 2) v |= b[o + 2]! << 16;
  if (n > 3) v = (v | (b[o + 3]! << 24)) >>> 0;
  return v;
}

/** Does the record at `off` spell the wire name `q`? Walks the label and then the parent nodes. */
export function recordEquals(
  recs: Uint8Array,
  nodes: Uint8Array,
  off: number,
  q: Uint8Array,
  refBytes: number,
): boolean {
  let len = recs[off]!;
  if (q[0] !== len) return false;
  for (let i = 1; i <= len; i++) if (recs[off + i] !== q[i]) return false;
  let qi = len + 1;
  let p = uintAt(recs, off + 1 + len, refBytes);
  while (p !== 0) {
    const o = p - 1;
    len = nodes[o]!;
    if (q[qi] !== len) return false;
    for (let i = 1; i <= len; i++) if (nodes[o + i] !== q[qi + i]) return false;
    qi += len + 1;
    p = u32at(nodes, o + 1 + len);
  }
  return q[qi] === 0;
}

function bloomHas(bloom: Uint32Array, h: number): boolean {
  const bits = bloom.length * 32;
  const step = h2of(h);
  let x = h;
  for (let i = 0; i < BLOOM_K; i++) {
    const b = scale(x, bits);
    if ((bloom[b >>> 5]! & (1 << (b & 31))) === 0) return false;
    x = (x + step) | 0;
  }
  return true;
}

export function bloomAdd(bloom: Uint32Array, h: number): void {
  const bits = bloom.length * 32;
  const step = h2of(h);
  let x = h;
  for (let i = 0; i < BLOOM_K; i++) {
    const b = scale(x, bits);
    bloom[b >>> 5]! |= 1 << (b & 31);
    x = (x + step) | 0;
  }
}

export class DomainSet {
  constructor(readonly d: DomainSetData) {}

  get size(): number {
    return this.d.count;
  }

  /** Bytes held by the typed arrays. */
  get bytes(): number {
    const d = this.d;
    return (
      d.slots.byteLength +
      d.recs.byteLength +
      d.nodes.byteLength +
      d.bloom.byteLength +
      d.comboMasks.byteLength +
      d.comboIds.byteLength
    );
  }

  /** Record offset of the entry equal to `name` (wire form, hash `h`), or -1. */
  find(name: Uint8Array, h: number): number {
    const d = this.d;
    if (d.count === 0 || !bloomHas(d.bloom, h)) return -1;
    const sb = d.slotBytes;
    const size = d.slots.length / sb;
    let s = scale(h, size);
    for (;;) {
      const e = uintAt(d.slots, s * sb, sb);
      if (e === 0) return -1;
      if (recordEquals(d.recs, d.nodes, e - 1, name, d.refBytes)) return e - 1;
      if (++s === size) s = 0;
    }
  }

  /** The list id of the entry if it exists and applies to a client in `groups`, else -1 (0 is a valid id). */
  match(name: Uint8Array, h: number, groups: Uint32Array): number {
    const off = this.find(name, h);
    if (off < 0) return -1;
    const d = this.d;
    const c = uintAt(d.recs, off + 1 + d.recs[off]! + d.refBytes, d.comboBytes);
    const w = d.words;
    for (let i = 0; i < w; i++)
      if ((d.comboMasks[c * w + i]! & (groups[i] ?? 0)) !== 0) return Math.max(0, d.comboIds[c]!);
    return -1;
  }
}

/** Group masks per combo: the union over its enabled lists; reported as its first enabled list. */
export function resolveCombos(
  shape: DomainSetShape,
  words: number,
  maskOf: (id: number) => Uint32Array | undefined,
): DomainSetData {
  const n = shape.combos.length;
  const comboMasks = new Uint32Array(Math.max(1, n * words));
  const comboIds = new Int32Array(Math.max(1, n)).fill(-1);
  for (let c = 0; c < n; c++) {
    for (const id of shape.combos[c]!) {
      const m = maskOf(id);
      if (!m) continue;
      if (comboIds[c] === -1) comboIds[c] = id;
      for (let i = 0; i < words; i++) comboMasks[c * words + i]! |= m[i]!;
    }
  }
  return { ...shape, words, comboMasks, comboIds };
}

export function emptyShape(): DomainSetShape {
  return {
    count: 0,
    slots: new Uint8Array(4),
    slotBytes: 4,
    recs: new Uint8Array(0),
    nodes: new Uint8Array(0),
    refBytes: 4,
    comboBytes: 3,
    bloom: new Uint32Array(1),
    combos: [],
  };
}

export function transferables(d: DomainSetShape): ArrayBuffer[] {
  return [d.slots, d.recs, d.nodes, d.bloom].map((a) => a.buffer as ArrayBuffer);
}
