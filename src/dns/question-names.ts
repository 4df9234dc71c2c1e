// The text and lowercase wire form of recent question names, found by their bytes: a name asked again
// (most of a network's queries: the same few thousand names all day) costs neither a string nor a copy of
// its bytes, where each was a young object for the collector (src/dns/README.md, "Rules for the hot path";
// bench/dns/alloc.ts counts them). Both are shared by every question of that name, so no one may write
// into a question's `wire` (nothing does: its readers hash and compare it). One slot per hash, replaced on
// a miss: bounded, and a name that only collides costs what it did before the memo.

/** slots, a power of two: ~120 bytes each when full (the string, the bytes and their cells) */
const SLOTS = 8192;

export class QuestionNames {
  private readonly wires: Array<Uint8Array | null>;
  private readonly names: string[];
  /** what the last find() that returned true found */
  wire: Uint8Array = new Uint8Array(1);
  name = "";
  hits = 0;
  misses = 0;

  constructor(private readonly slots = SLOTS) {
    this.wires = new Array<Uint8Array | null>(slots).fill(null);
    this.names = new Array<string>(slots).fill("");
  }

  /** Whether the name whose lowercase wire form is `lower`'s first `length` bytes (hashed as `hash`) is here: then `wire` and `name` are its. */
  find(lower: Uint8Array, length: number, hash: number): boolean {
    const slot = hash & (this.slots - 1);
    const w = this.wires[slot];
    if (w === null || w === undefined || w.length !== length) return this.miss();
    for (let i = 0; i < length; i++) if (w[i] !== lower[i]) return this.miss();
    this.hits++;
    this.wire = w;
    this.name = this.names[slot]!;
    return true;
  }

  /** Keeps a name find() missed: `wire` must be its own copy, never written again. */
  keep(wire: Uint8Array, name: string, hash: number): void {
    const slot = hash & (this.slots - 1);
    this.wires[slot] = wire;
    this.names[slot] = name;
  }

  private miss(): false {
    this.misses++;
    return false;
  }
}

/** FNV-1a's step, over the lowercase wire bytes of a name */
export const FNV_START = 0x811c9dc5;
export const fnvStep = (h: number, byte: number): number => Math.imul(h ^ byte, 0x01000193);
