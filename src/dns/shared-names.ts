// A few strings by small index, the same index in every DNS thread: the shared cache's entries
// (shared-answers.ts) name their upstream by index, and its keys a group's own upstream list, so
// every thread must read the index as the one that wrote it. The names lie in a SharedArrayBuffer in
// order of first use, appended under a lock (rare: once per distinct name); each thread keeps its
// own decoded copy, so a lookup of a known name touches no shared memory.

/** names a table holds, and bytes a name may take (UTF-8): past either a name gets no index */
const NAMES = 256;
const NAME_BYTES = 510;
const ENTRY = 2 + NAME_BYTES;
/** the table's words: how many names are complete, the append lock */
const COUNT = 0,
  LOCK = 1,
  HEAD = 8;
const TABLE = HEAD + NAMES * ENTRY;

/** A buffer for `tables` tables of names. */
export function sharedNamesBuffer(tables: number): SharedArrayBuffer {
  return new SharedArrayBuffer(tables * TABLE);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class SharedNames {
  private readonly w: Int32Array;
  private readonly u8: Uint8Array;
  private readonly names: string[] = [];
  private readonly ids = new Map<string, number>();

  /** the `table`-th table of `buffer` */
  constructor(buffer: SharedArrayBuffer, table: number) {
    this.w = new Int32Array(buffer, table * TABLE, HEAD / 4);
    this.u8 = new Uint8Array(buffer, table * TABLE, TABLE);
  }

  /** The index of `name`, given when new; -1 when the table is full or the name too long. */
  id(name: string): number {
    const id = this.ids.get(name);
    if (id !== undefined) return id;
    this.catchUp();
    const known = this.ids.get(name);
    if (known !== undefined) return known;
    const bytes = encoder.encode(name);
    if (bytes.length > NAME_BYTES) return -1;
    // another thread appends for microseconds at most; a bounded spin, then no index this time
    for (let n = 0; Atomics.compareExchange(this.w, LOCK, 0, 1) !== 0; n++) if (n > 100_000) return -1;
    this.catchUp();
    let out = this.ids.get(name) ?? -1;
    const count = Atomics.load(this.w, COUNT);
    if (out < 0 && count < NAMES) {
      const at = HEAD + count * ENTRY;
      this.u8[at] = bytes.length >> 8;
      this.u8[at + 1] = bytes.length & 0xff;
      for (let i = 0; i < bytes.length; i++) this.u8[at + 2 + i] = bytes[i]!;
      Atomics.store(this.w, COUNT, count + 1);
      this.catchUp();
      out = count;
    }
    Atomics.store(this.w, LOCK, 0);
    return out;
  }

  /** The name of index `id` (null: none that any thread gave). */
  name(id: number): string | null {
    if (id >= this.names.length) this.catchUp();
    return this.names[id] ?? null;
  }

  /** Decodes the names other threads appended since this one last looked. */
  private catchUp(): void {
    const count = Atomics.load(this.w, COUNT);
    for (let i = this.names.length; i < count; i++) {
      const at = HEAD + i * ENTRY;
      const n = (this.u8[at]! << 8) | this.u8[at + 1]!;
      // a copy: the decoder takes no view of shared memory
      const name = decoder.decode(Uint8Array.from(this.u8.subarray(at + 2, at + 2 + n)));
      this.names.push(name);
      this.ids.set(name, i);
    }
  }
}
