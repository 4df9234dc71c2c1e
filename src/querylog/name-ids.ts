// The ids of one *_by_id table's names (domain_by_id, client_by_id, ...), cached for the writer.
// The names arrive as ranges of a batch's one text (src/query/record-batch.ts) and are looked up
// where they lie: a Map needs each range sliced out and hashed as a string of its own. Measured in
// one process with the row's INSERT stubbed out and every name known: reading a record and its four
// names 0.71 µs with a slice and a Map per name, 0.36 µs with these tables.
import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";

const EMPTY = 0;
const FIRST_SLOTS = 1024;

/** FNV-1a over the UTF-16 code units of text[start, start + len). */
function hashOf(text: string, start: number, len: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < start + len; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

/**
 * A string with storage of its own. A range sliced from a batch's text keeps the whole text alive:
 * a cached name would hold every batch it came from (measured: most of the writer thread's memory on
 * a busy network).
 */
function ownCopy(s: string): string {
  return Buffer.from(s, "utf8").toString("utf8");
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
 * the database lives; a miss costs an indexed SELECT). Open addressing with linear probing over
 * slots that hold an entry's index + 1.
 */
export class NameIds {
  private slots = new Int32Array(FIRST_SLOTS);
  private hashes: number[] = [];
  private names: string[] = [];
  private ids: number[] = [];
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
    return this.names.length;
  }

  /** The id of text[start, start + len), inserted into the table when new. */
  idAt(text: string, start: number, len: number, learnt: Learnt): number {
    const e = this.find(text, start, len, hashOf(text, start, len));
    return e < 0 ? this.learn(text.slice(start, start + len), learnt) : this.ids[e]!;
  }

  /** Remembers a name's id (a later one for the same name replaces it). */
  set(name: string, id: number): void {
    const h = hashOf(name, 0, name.length);
    const known = this.find(name, 0, name.length, h);
    if (known >= 0) {
      this.ids[known] = id;
      return;
    }
    if (this.names.length >= this.maxIds) this.clear();
    if ((this.names.length + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    this.place(h, this.names.length);
    this.hashes.push(h);
    this.names.push(name);
    this.ids.push(id);
  }

  /** Forgets names (those of a failed transaction, gone from the table too). */
  forget(gone: ReadonlySet<string>): void {
    const keep = this.names.map((n, i) => [n, this.ids[i]!] as const).filter(([n]) => !gone.has(n));
    const complete = this.complete;
    this.clear();
    for (const [n, id] of keep) this.set(n, id);
    this.complete = complete;
  }

  clear(): void {
    this.complete = false;
    this.slots = new Int32Array(FIRST_SLOTS);
    this.hashes = [];
    this.names = [];
    this.ids = [];
  }

  private learn(name: string, learnt: Learnt): number {
    const args = this.table.args(name);
    // The new row's id from the run's own result: RETURNING made SQLite a row and bun:sqlite an object
    // for it. Ignored (no change) only if another connection added the name: looked up then.
    let id: number | undefined;
    if (this.complete && this.table.unique) {
      const run = this.insert.run(...args);
      if (run.changes === 1) id = Number(run.lastInsertRowid);
    }
    if (id === undefined) {
      // looked up first: client_by_id's unique index lets (ip, NULL) repeat, so only a miss inserts
      const found = this.select.get(...args) as { id: number } | null;
      id = found ? found.id : Number(this.insert.run(...args).lastInsertRowid);
    }
    const own = ownCopy(name);
    this.set(own, id);
    learnt.push([this, own]);
    return id;
  }

  /** The entry of text[start, start + len), -1 for none. */
  private find(text: string, start: number, len: number, h: number): number {
    const mask = this.slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s]! - 1;
      if (e < 0) return -1;
      if (this.hashes[e] === h) {
        const name = this.names[e]!;
        if (name.length === len && text.startsWith(name, start)) return e;
      }
    }
  }

  private place(h: number, entry: number): void {
    const mask = this.slots.length - 1;
    let s = h & mask;
    while (this.slots[s] !== EMPTY) s = (s + 1) & mask;
    this.slots[s] = entry + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let e = 0; e < this.hashes.length; e++) this.place(this.hashes[e]!, e);
  }
}
