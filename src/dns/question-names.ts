// The text and lowercase wire form of recent question names, found by their bytes: a name asked again
// (most of a network's queries: the same few thousand names all day) costs neither a string nor a copy of
// its bytes, where each was a young object for the collector (src/dns/README.md, "Rules for the hot path";
// bench/dns/alloc.ts counts them). Both are shared by every question of that name, so no one may write
// into a question's `wire` (nothing does: its readers hash and compare it). A hash picks a pair of slots:
// a new name takes the first and moves the one there to the second (the older one goes), so two busy
// names that share a pair do not push each other out (with one slot, 11% of bench/dns/alloc.ts's 1,000
// names did). Bounded: a name that finds no room costs what it did before the memo.

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
    const first = (hash << 1) & (this.slots - 1);
    return this.at(first, lower, length) || this.at(first + 1, lower, length) || this.miss();
  }

  /** Keeps a name find() missed: `wire` must be its own copy, never written again. */
  keep(wire: Uint8Array, name: string, hash: number): void {
    const first = (hash << 1) & (this.slots - 1);
    this.wires[first + 1] = this.wires[first]!;
    this.names[first + 1] = this.names[first]!;
    this.wires[first] = wire;
    this.names[first] = name;
  }

  private at(slot: number, lower: Uint8Array, length: number): boolean {
    const w = this.wires[slot];
    if (w === null || w === undefined || w.length !== length) return false;
    for (let i = 0; i < length; i++) if (w[i] !== lower[i]) return false;
    this.hits++;
    this.wire = w;
    this.name = this.names[slot]!;
    return true;
  }

  private miss(): false {
    this.misses++;
    return false;
  }
}

/** FNV-1a's step, over the lowercase wire bytes of a name */
export const FNV_START = 0x811c9dc5;
export const fnvStep = (h: number, byte: number): number => Math.imul(h ^ byte, 0x01000193);
