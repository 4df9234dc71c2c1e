// Building a DomainSet incrementally, straight into its compact layout (see domainset.ts): the
// builder is also the de-duplication of a gravity run, so no second copy of the names exists.
// While building, records use 4-byte refs and 3-byte combos; finish() rewrites them as narrow as
// the finished set allows, in table order (neighbouring slots then point at neighbouring records).
// Build-only extras are a hash per table slot (cheap rehash, and a tag that skips most record
// comparisons while probing); they are dropped by finish().
import { noFTL } from "bun:jsc";
import {
  BLOOM_BITS_PER_NAME,
  SLOT_LOAD,
  bloomAdd,
  emptyShape,
  hashName,
  recordEquals,
  scale,
  u24at,
  u32at,
  type DomainSetShape,
} from "./domainset.ts";
import { WireScratch } from "./wire-name.ts";
import { heapMemory, type BuildMemory } from "./build-memory.ts";

// the builder's callers encode names with these too (gravity, the snapshot build, the tests)
export { WireScratch, encodeWire } from "./wire-name.ts";

const BUILD_REF = 4;
/**
 * Build records live in fixed chunks (a record never straddles two): growing never copies, and a
 * million names never need the old and the grown buffer at once. Offset = chunk << 20 | position.
 */
const CHUNK_BITS = 20;
const CHUNK = 1 << CHUNK_BITS;
const POS = CHUNK - 1;

const MAX_COMBOS = 1 << 24;

/** The distinct sets of list ids entries come from, and the step "this set plus list id x". */
export class ComboTable {
  readonly lists: number[][] = [];
  private readonly byKey = new Map<string, number>();
  private readonly steps = new Map<number, number>();
  private readonly singles = new Map<number, number>();

  /** the combo of one list (every new entry asks) */
  single(id: number): number {
    let c = this.singles.get(id);
    if (c === undefined) this.singles.set(id, (c = this.of([id])));
    return c;
  }

  of(ids: number[]): number {
    const key = ids.join(",");
    let c = this.byKey.get(key);
    if (c === undefined) {
      c = this.lists.length;
      if (c >= MAX_COMBOS) throw new Error("too many distinct list combinations");
      this.lists.push(ids);
      this.byKey.set(key, c);
    }
    return c;
  }

  /** combo `c` with `id` added (c itself when id is already in it) */
  extend(c: number, id: number): number {
    const stepKey = c * 2147483648 + id;
    let next = this.steps.get(stepKey);
    if (next === undefined) {
      const ids = this.lists[c]!;
      next = ids.includes(id) ? c : this.of([...ids, id].sort((a, b) => a - b));
      this.steps.set(stepKey, next);
    }
    return next;
  }
}

/**
 * Open-addressing table of byte offsets + 1 with a build-time tag per slot (the hash's low byte:
 * the high bits pick the slot, so they would say little). A resize recomputes each entry's hash
 * from its record, so no full hash per slot is kept (4 bytes a slot at the build's peak).
 */
class Table {
  slots: Uint32Array;
  tags: Uint8Array;
  count = 0;
  constructor(
    expected: number,
    private readonly hashOf: (ref: number) => number,
  ) {
    const size = Math.max(8, Math.ceil(expected / SLOT_LOAD) + 1);
    this.slots = new Uint32Array(size);
    this.tags = new Uint8Array(size);
  }

  put(s: number, ref: number, h: number): void {
    this.slots[s] = ref;
    this.tags[s] = h & 255;
    if (++this.count > this.slots.length * SLOT_LOAD) this.resize(this.slots.length * 2);
  }

  /** grown at once to hold `n` entries (never shrunk here); true when it grew */
  reserve(n: number): boolean {
    const size = Math.ceil(n / SLOT_LOAD) + 1;
    if (size <= this.slots.length) return false;
    this.resize(size);
    return true;
  }

  freeSlot(h: number): number {
    const size = this.slots.length;
    let s = scale(h, size);
    while (this.slots[s] !== 0) if (++s === size) s = 0;
    return s;
  }

  resize(size: number): void {
    const old = this.slots;
    this.slots = new Uint32Array(size);
    this.tags = new Uint8Array(size);
    for (let i = 0; i < old.length; i++) {
      const ref = old[i]!;
      if (ref === 0) continue;
      const h = this.hashOf(ref);
      const s = this.freeSlot(h);
      this.slots[s] = ref;
      this.tags[s] = h & 255;
    }
  }
}

export class DomainSetBuilder {
  private readonly entries: Table;
  private readonly nodeTable = new Table(64, (ref) => fnv1aNode(this.nodes, ref - 1));
  /** a record's wire name, for rehashing on resize */
  private readonly scratch = new WireScratch();
  private chunks: Uint8Array[] = [];
  private chunkLen = CHUNK;
  /** bytes in all records (for sizing the final buffer) */
  private recBytes = 0;
  private nodes: Uint8Array;
  private nodeLen = 0;
  private done: DomainSetShape | null = null;

  constructor(
    readonly combos: ComboTable = new ComboTable(),
    expected = 16,
    /** where the records and nodes live (build-memory.ts: a gravity run's are in a file) */
    private readonly memory: BuildMemory = heapMemory,
  ) {
    this.entries = new Table(expected, (ref) => this.hashOfRecord(ref));
    this.nodes = memory.alloc(4096);
  }

  get count(): number {
    return this.entries.count;
  }

  /** sizes the table for `n` entries in one step (doubling would hold the old and new tables at once, several times) */
  reserve(n: number): boolean {
    return this.entries.reserve(n);
  }

  private hashOfRecord(ref: number): number {
    const chunk = this.chunks[(ref - 1) >>> CHUNK_BITS]!;
    const o = (ref - 1) & POS;
    const len = chunk[o]!;
    return hashName(this.scratch.view(wireOf(chunk, o, len, u32at(chunk, o + 1 + len), this.nodes, this.scratch.buf)));
  }

  /**
   * Adds the wire name (exactly its bytes, ending in the root label) as coming from list `id`.
   * Returns false when the name was already there from that list (nothing to store anew).
   */
  add(wire: Uint8Array, id: number): boolean {
    const len = wire[0]!;
    if (len === 0) return false;
    const h = hashName(wire);
    const tag = h & 255;
    const t = this.entries;
    const size = t.slots.length;
    let s = scale(h, size);
    for (;;) {
      const e = t.slots[s]!;
      if (e === 0) break;
      if (
        t.tags[s] === tag &&
        recordEquals(this.chunks[(e - 1) >>> CHUNK_BITS]!, this.nodes, (e - 1) & POS, wire, BUILD_REF)
      ) {
        const chunk = this.chunks[(e - 1) >>> CHUNK_BITS]!;
        const at = ((e - 1) & POS) + 1 + len + 4;
        const c = u24at(chunk, at);
        const next = this.combos.extend(c, id);
        if (next === c) return false;
        setU24(chunk, at, next);
        return true;
      }
      if (++s === size) s = 0;
    }
    const parent = this.node(wire, len + 1);
    if (this.chunkLen + len + 8 > CHUNK) {
      this.chunks.push(this.memory.alloc(CHUNK));
      this.chunkLen = 0;
    }
    const chunk = this.chunks[this.chunks.length - 1]!;
    const pos = this.chunkLen;
    for (let i = 0; i <= len; i++) chunk[pos + i] = wire[i]!;
    setU32(chunk, pos + 1 + len, parent);
    setU24(chunk, pos + 5 + len, this.combos.single(id));
    this.chunkLen += len + 8;
    this.recBytes += len + 8;
    t.put(s, (((this.chunks.length - 1) << CHUNK_BITS) | pos) + 1, h);
    return true;
  }

  /** The node ref (offset + 1) of the suffix of `wire` at `start`, adding it and its parents. */
  private node(wire: Uint8Array, start: number): number {
    const len = wire[start]!;
    if (len === 0) return 0;
    // build-only table: a JS hash over the bytes in place (no view, no native call per name)
    const h = fnv1a(wire, start);
    const tag = h & 255;
    const t = this.nodeTable;
    const size = t.slots.length;
    let s = scale(h, size);
    for (;;) {
      const e = t.slots[s]!;
      if (e === 0) break;
      if (t.tags[s] === tag && nodeEquals(this.nodes, e - 1, wire, start)) return e;
      if (++s === size) s = 0;
    }
    const parent = this.node(wire, start + len + 1);
    if (this.nodeLen + len + 5 > this.nodes.length) {
      const bigger = this.memory.alloc(Math.max(this.nodeLen + len + 5, Math.ceil(this.nodes.length * 1.5)));
      bigger.set(this.nodes);
      this.nodes = bigger;
    }
    const off = this.nodeLen;
    for (let i = 0; i <= len; i++) this.nodes[off + i] = wire[start + i]!;
    setU32(this.nodes, off + 1 + len, parent);
    this.nodeLen += len + 5;
    // the recursion may have resized the table: probe again for a free slot
    t.put(t.freeSlot(h), off + 1, h);
    return off + 1;
  }

  /**
   * The finished set. The records are rewritten narrow in place (each shrinks, so the write never
   * overtakes the read) in insertion order, each one's slot found again by its hash: no second copy
   * of the records exists while the first is alive (the build's peak). With `copy` the records are
   * then joined into one array, chunk by chunk; without it (for writing to a file at once) they
   * stay in `recsParts` and `nodes` is a view over the build buffer.
   */
  finish(copy = true): DomainSetShape {
    // the rewrite below consumes the build buffers: a second call returns the same set
    if (this.done) return this.done;
    const t = this.entries;
    const n = t.count;
    if (n === 0) return { ...emptyShape(), combos: this.combos.lists };
    const want = Math.ceil(n / SLOT_LOAD) + 1;
    if (t.slots.length > want * 1.3) t.resize(want);
    // the hashes are recomputed per record below: the tags go first
    t.tags = new Uint8Array(0);
    const bloom = new Uint32Array(Math.ceil((n * BLOOM_BITS_PER_NAME) / 32));
    const refBytes = widthOf(this.nodeLen);
    const comboBytes = this.combos.lists.length <= 1 ? 0 : Math.min(3, widthOf(this.combos.lists.length - 1));
    const slots = t.slots;
    const size = slots.length;
    // slots already pointing at a rewritten record (their values are new offsets, not old refs)
    const moved = new Uint8Array((size + 7) >>> 3);
    const chunks = this.chunks;
    const wire = new Uint8Array(256);
    // a view per length made up front: one per record would be garbage enough to raise the peak
    const views = Array.from({ length: 257 }, (_, k) => wire.subarray(0, k));
    let w = 0;
    const put = (v: number) => {
      chunks[w >>> CHUNK_BITS]![w & POS] = v;
      w++;
    };
    for (let ci = 0; ci < chunks.length; ci++) {
      const chunk = chunks[ci]!;
      const end = ci === chunks.length - 1 ? this.chunkLen : CHUNK;
      for (let o = 0; o + 8 <= end; ) {
        const len = chunk[o]!;
        if (len === 0) break;
        const parent = u32at(chunk, o + 1 + len);
        const combo = u24at(chunk, o + 5 + len);
        const h = hashName(views[wireOf(chunk, o, len, parent, this.nodes, wire)]!);
        bloomAdd(bloom, h);
        const ref = ((ci << CHUNK_BITS) | o) + 1;
        let sl = scale(h, size);
        while (slots[sl] !== ref || (moved[sl >>> 3]! & (1 << (sl & 7))) !== 0) if (++sl === size) sl = 0;
        slots[sl] = w + 1;
        moved[sl >>> 3]! |= 1 << (sl & 7);
        for (let i = 0; i <= len; i++) put(chunk[o + i]!);
        for (let i = 0; i < refBytes; i++) put((parent >>> (8 * i)) & 255);
        for (let i = 0; i < comboBytes; i++) put((combo >>> (8 * i)) & 255);
        o += len + 8;
      }
    }
    const parts = chunks.slice(0, Math.ceil(w / CHUNK)).map((c, i) => c.subarray(0, Math.min(CHUNK, w - i * CHUNK)));
    this.chunks = [];
    const nodes = this.nodes.subarray(0, this.nodeLen);
    const slotBytes = widthOf(w);
    const shape = {
      count: n,
      slots: narrow(slots, slotBytes),
      slotBytes,
      refBytes,
      comboBytes,
      bloom,
      combos: this.combos.lists,
    };
    this.entries.slots = new Uint32Array(0);
    if (!copy) return (this.done = { ...shape, recs: new Uint8Array(0), recsParts: parts, nodes });
    // the build chunks are referenced only from `parts` from here on
    chunks.length = 0;
    const recs = new Uint8Array(w);
    // each part let go once copied, and collected every few parts: otherwise every chunk stays
    // alive until the copy ends, beside the whole joined copy
    for (let i = 0; i < parts.length; i++) {
      recs.set(parts[i]!, i * CHUNK);
      parts[i] = new Uint8Array(0);
      if (i % 4 === 3) Bun.gc(true);
    }
    // narrowed in place, the slots still hold their 4-byte buffer: a set kept in memory gets its own
    return (this.done = {
      ...shape,
      slots: shape.slots.byteLength < shape.slots.buffer.byteLength ? shape.slots.slice() : shape.slots,
      recs,
      nodes: nodes.slice(),
    });
  }
}

/** the wire name of the build record at `o` into `out`; returns its length */
function wireOf(chunk: Uint8Array, o: number, len: number, parent: number, nodes: Uint8Array, out: Uint8Array): number {
  for (let i = 0; i <= len; i++) out[i] = chunk[o + i]!;
  let at = len + 1;
  for (let p = parent; p !== 0; ) {
    const no = p - 1;
    const l = nodes[no]!;
    for (let i = 0; i <= l; i++) out[at + i] = nodes[no + i]!;
    at += l + 1;
    p = u32at(nodes, no + 1 + l);
  }
  out[at++] = 0;
  return at;
}

/** bytes needed for values up to `max` */
/**
 * The table's slots as `bytes` little-endian bytes each, rewritten in place (a second array would
 * raise the build's peak): front to back, slot i's bytes land before any slot not yet read.
 */
function narrow(slots: Uint32Array, bytes: number): Uint8Array {
  const out = new Uint8Array(slots.buffer, slots.byteOffset, slots.length * bytes);
  if (bytes === 4) return out;
  for (let i = 0, o = 0; i < slots.length; i++, o += bytes) {
    const v = slots[i]!;
    for (let k = 0; k < bytes; k++) out[o + k] = (v >>> (8 * k)) & 255;
  }
  return out;
}

function widthOf(max: number): number {
  return max < 0x100 ? 1 : max < 0x10000 ? 2 : max < 0x1000000 ? 3 : 4;
}

function fnv1a(b: Uint8Array, start: number): number {
  let h = 0x811c9dc5;
  for (let i = start; ; i += b[i]! + 1) {
    const end = i + b[i]!;
    for (let j = i; j <= end; j++) h = Math.imul(h ^ b[j]!, 0x01000193);
    if (b[i] === 0) return h >>> 0;
  }
}

/** fnv1a of the wire name of the node at `off` (the same bytes, walked along the parent chain) */
function fnv1aNode(nodes: Uint8Array, off: number): number {
  let h = 0x811c9dc5;
  for (let p = off + 1; p !== 0; ) {
    const o = p - 1;
    const len = nodes[o]!;
    for (let j = o; j <= o + len; j++) h = Math.imul(h ^ nodes[j]!, 0x01000193);
    p = u32at(nodes, o + 1 + len);
  }
  return Math.imul(h ^ 0, 0x01000193) >>> 0;
}

function nodeEquals(nodes: Uint8Array, off: number, q: Uint8Array, qi: number): boolean {
  let p = off + 1;
  while (p !== 0) {
    const o = p - 1;
    const len = nodes[o]!;
    if (q[qi] !== len) return false;
    for (let i = 1; i <= len; i++) if (nodes[o + i] !== q[qi + i]) return false;
    qi += len + 1;
    p = u32at(nodes, o + 1 + len);
  }
  return q[qi] === 0;
}

function setU32(b: Uint8Array, o: number, v: number): void {
  b[o] = v & 255;
  b[o + 1] = (v >>> 8) & 255;
  b[o + 2] = (v >>> 16) & 255;
  b[o + 3] = v >>> 24;
}

function setU24(b: Uint8Array, o: number, v: number): void {
  b[o] = v & 255;
  b[o + 1] = (v >>> 8) & 255;
  b[o + 2] = (v >>> 16) & 255;
}

// finish() runs once per build: the optimising tier's compile memory (~5 MiB, measured) would be the
// build's peak, for a loop that barely gains from it.
noFTL(DomainSetBuilder.prototype.finish);
