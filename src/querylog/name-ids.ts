// The ids of one *_by_id table's names (domain_by_id, client_by_id, ...), cached for the writer.
// The names arrive as ranges of a batch's one text (src/query/record-batch.ts) and are looked up
// where they lie: a Map needs each range sliced out and hashed as a string of its own. The table is
// flat: a slot holds a name's hash, id and place in one byte array of all the names, so a lookup
// reads one slot and the name's bytes. With a string object per name (a cell, its characters
// elsewhere, and arrays of hashes, names and ids beside the slots) a lookup among 100k names took
// 0.9-1.5 µs here, in cache misses (the machine's memory answers a miss in ~300 ns), the largest
// part of the writer's JavaScript: bench/querylog/insert.ts --records 300000 --against the commit
// before gave 6.0 against 7.8 µs a record.
import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";

const FIRST_SLOTS = 1024;
const FIRST_BYTES = 16_384;
/** a slot: hash, id, where the name begins in `bytes`, its length + 1 (0: an empty slot) */
const SLOT = 4;

/** FNV-1a over the UTF-16 code units of text[start, start + len). */
function hashOf(text: string, start: number, len: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < start + len; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Names learnt in a transaction, forgotten again if it fails (its rows are rolled back). */
export type Learnt = Array<[NameIds, string]>;

/** The two statements a table's names need, and how its rows are told apart. */
export interface NameTable {
  select: string;
  insert: string;
  /** the statements' parameters for a name (the same for both) */
  args: (name: string) => SQLQueryBindings[];
  /** a unique index on the name, so an insert of a name already there is ignored */
  unique: boolean;
}

/**
 * `maxIds` names at most, then it starts again (the table grows with every name seen for as long as
 * the database lives; a miss costs an indexed SELECT). Open addressing with linear probing. A name
 * with a character beyond Latin-1 or an id beyond 32 bits is not kept: it is looked up in the table
 * each time (neither occurs in practice: names are ASCII, ids count the names).
 */
export class NameIds {
  private slots = new Int32Array(FIRST_SLOTS * SLOT);
  private bytes = new Uint8Array(FIRST_BYTES);
  private used = 0;
  private count = 0;
  private readonly select: Statement;
  private readonly insert: Statement;
  /**
   * Every name of the table is here: a miss is a new name, inserted without the SELECT before it
   * (most misses: new names, a quarter of the queries in bench/querylog/insert.ts; 4% less CPU there).
   * Set when the whole table was loaded; cleared when the cache starts again.
   */
  complete = false;

  constructor(
    db: Database,
    private readonly table: NameTable,
    private readonly maxIds: number,
  ) {
    this.select = db.prepare(table.select);
    this.insert = db.prepare(table.insert);
  }

  get size(): number {
    return this.count;
  }

  /** The id of text[start, start + len), inserted into the table when new. */
  idAt(text: string, start: number, len: number, learnt: Learnt): number {
    const e = this.find(text, start, len, hashOf(text, start, len));
    return e < 0 ? this.learn(text.slice(start, start + len), learnt) : this.slots[e + 1]!;
  }

  /** Remembers a name's id (a later one for the same name replaces it). */
  set(name: string, id: number): void {
    const len = name.length;
    const h = hashOf(name, 0, len);
    const known = this.find(name, 0, len, h);
    if (known >= 0) {
      if ((id | 0) === id) this.slots[known + 1] = id;
      else this.forget(new Set([name]));
      return;
    }
    if ((id | 0) !== id) return;
    for (let i = 0; i < len; i++) if (name.charCodeAt(i) > 0xff) return;
    if (this.count >= this.maxIds) this.clear();
    if ((this.count + 1) * 2 * SLOT > this.slots.length) this.rehash(this.slots.length * 2);
    if (this.used + len > this.bytes.length) {
      const more = new Uint8Array(Math.max(this.bytes.length * 2, this.used + len));
      more.set(this.bytes.subarray(0, this.used));
      this.bytes = more;
    }
    const at = this.used;
    for (let i = 0; i < len; i++) this.bytes[at + i] = name.charCodeAt(i);
    this.used += len;
    this.place(h, id, at, len);
    this.count++;
  }

  /** Forgets names (those of a failed transaction, gone from the table too). */
  forget(gone: ReadonlySet<string>): void {
    const keep: Array<[string, number]> = [];
    const s = this.slots;
    for (let o = 0; o < s.length; o += SLOT) {
      const len = s[o + 3]! - 1;
      if (len < 0) continue;
      const name = String.fromCharCode(...this.bytes.subarray(s[o + 2]!, s[o + 2]! + len));
      if (!gone.has(name)) keep.push([name, s[o + 1]!]);
    }
    const complete = this.complete;
    this.clear();
    for (const [n, id] of keep) this.set(n, id);
    this.complete = complete;
  }

  clear(): void {
    this.complete = false;
    this.slots = new Int32Array(FIRST_SLOTS * SLOT);
    this.bytes = new Uint8Array(FIRST_BYTES);
    this.used = 0;
    this.count = 0;
  }

  private learn(name: string, learnt: Learnt): number {
    const args = this.table.args(name);
    // The new row's id from the run's own result: RETURNING made SQLite a row and bun:sqlite an object
    // for it. Ignored (no change) only if another connection added the name: looked up then.
    let id: number | undefined;
    if (this.complete && this.table.unique) {
      const run = this.insert.run(args);
      if (run.changes === 1) id = Number(run.lastInsertRowid);
    }
    if (id === undefined) {
      // looked up first: client_by_id's unique index lets (ip, NULL) repeat, so only a miss inserts
      const found = this.select.get(args) as { id: number } | null;
      id = found ? found.id : Number(this.insert.run(args).lastInsertRowid);
    }
    this.set(name, id);
    learnt.push([this, name]);
    return id;
  }

  /** The slot (its first index in `slots`) of text[start, start + len), -1 for none. */
  private find(text: string, start: number, len: number, h: number): number {
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
