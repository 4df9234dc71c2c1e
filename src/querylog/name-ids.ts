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
import { FlatNames, hashOf } from "./flat-names.ts";

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
 * `maxIds` names at most, in two generations of half as many (the table grows with every name seen for
 * as long as the database lives; a miss costs an indexed SELECT, and a new name an INSERT). New names go
 * into the young one; when it is full it becomes the old one and the old one's names are dropped. A name
 * found in the old one is copied into the young one, so the names in use stay through every turn: with
 * one table emptied when full, bench/mix's popular names were all asked of SQLite again each time.
 * A name with a character beyond Latin-1 or an id beyond 32 bits is not kept: it is looked up in the
 * table each time (neither occurs in practice: names are ASCII, ids count the names).
 */
export class NameIds {
  private young = new FlatNames();
  private old = new FlatNames();
  /** names a generation holds */
  private readonly half: number;
  private readonly select: Statement;
  private readonly insert: Statement;
  /**
   * Every name of the table is here: a miss is a new name, inserted without the SELECT before it
   * (most misses: new names, a quarter of the queries in bench/querylog/insert.ts; 4% less CPU there).
   * Set when the whole table was loaded; cleared when names are dropped.
   */
  complete = false;

  constructor(
    db: Database,
    private readonly table: NameTable,
    maxIds: number,
  ) {
    this.half = Math.max(1, Math.floor(maxIds / 2));
    this.select = db.prepare(table.select);
    this.insert = db.prepare(table.insert);
  }

  /** the names it holds at most: two generations' */
  get capacity(): number {
    return this.half * 2;
  }

  get size(): number {
    return this.young.count + this.old.count;
  }

  /** The id of text[start, start + len), inserted into the table when new. */
  idAt(text: string, start: number, len: number, learnt: Learnt): number {
    const h = hashOf(text, start, len);
    const y = this.young.find(text, start, len, h);
    if (y >= 0) return this.young.idOf(y);
    const o = this.old.find(text, start, len, h);
    if (o < 0) return this.learn(text.slice(start, start + len), learnt);
    const id = this.old.idOf(o);
    this.addYoung(text, start, len, h, id);
    return id;
  }

  /** Remembers a name's id (a later one for the same name replaces it). */
  set(name: string, id: number): void {
    const len = name.length;
    const h = hashOf(name, 0, len);
    let known = false;
    for (const g of [this.young, this.old]) {
      const e = g.find(name, 0, len, h);
      if (e < 0) continue;
      if ((id | 0) !== id) {
        this.forget(new Set([name]));
        return;
      }
      g.setId(e, id);
      known = true;
    }
    if (known || (id | 0) !== id) return;
    for (let i = 0; i < len; i++) if (name.charCodeAt(i) > 0xff) return;
    this.addYoung(name, 0, len, h, id);
  }

  /** Forgets names (those of a failed transaction, gone from the table too). */
  forget(gone: ReadonlySet<string>): void {
    for (const g of [this.young, this.old]) {
      const keep = g.entries().filter(([n]) => !gone.has(n));
      g.empty();
      for (const [n, id] of keep) g.add(n, 0, n.length, hashOf(n, 0, n.length), id);
    }
  }

  clear(): void {
    this.complete = false;
    this.young = new FlatNames();
    this.old = new FlatNames();
  }

  private addYoung(text: string, start: number, len: number, h: number, id: number): void {
    if (this.young.count >= this.half) {
      if (this.old.count > 0) this.complete = false;
      const emptied = this.old;
      emptied.empty();
      this.old = this.young;
      this.young = emptied;
    }
    this.young.add(text, start, len, h, id);
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
}
