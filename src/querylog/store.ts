// Writing query records into a database in Pi-hole's layout (query_storage + *_by_id lookup
// tables). The same class serves the on-disk pihole-FTL.db and the in-memory copy of the last
// 24 h that answers /api/queries, so both are filtered by one piece of SQL.
import { Database, type SQLQueryBindings, type Statement } from "bun:sqlite";
import { initQueryDb } from "../db/index.ts";
import type { StoredRecord } from "../query/record.ts";
import { BatchReader, encodeBatch, type RecordBatch } from "../query/record-batch.ts";
import { type Learnt, NameIds } from "./name-ids.ts";

/** addinfo_by_id.type for the CNAME target of a *_CNAME block (Pi-hole's ADDINFO_CNAME_DOMAIN). */
export const ADDINFO_CNAME = 1;

/** query_storage's columns as the writer fills them */
const COLUMNS = [
  "id",
  "timestamp",
  "type",
  "status",
  "domain",
  "client",
  "forward",
  "additional_info",
  "reply_type",
  "reply_time",
  "dnssec",
  "list_id",
  "ede",
] as const;

/**
 * Rows one INSERT statement writes: each statement run is a trip through bun:sqlite's bindings and
 * SQLite's statement machinery, shared here by 128 rows (in-memory, 300k rows: ~2.3 µs a row one by
 * one, ~1.9 in 32s; the INSERT alone with its parameters as one array, 0.32-0.34 µs a row in 128s
 * against 0.38-0.40 in 32s; 128 × 13 parameters are far below SQLite's limit of 32766).
 */
const ROWS_PER_INSERT = 128;

function insertSql(rows: number): string {
  const row = `(${COLUMNS.map(() => "?").join(",")})`;
  return `INSERT OR IGNORE INTO query_storage (${COLUMNS.join(", ")}) VALUES ${Array(rows).fill(row).join(",")}`;
}

/**
 * The answer text ids of `rows` queries (Moat's own table beside Pi-hole's, src/db/migrations.ts). REPLACE: a row
 * left by a query deleted without Moat (Pi-hole on the same file) gives way to the query that has its id now.
 */
function answersSql(rows: number): string {
  return `INSERT OR REPLACE INTO moat_query_answer (id, answer) VALUES ${Array(rows).fill("(?,?)").join(",")}`;
}

/**
 * How often a prune also deletes the answer texts no query names any more: that reads all of
 * moat_query_answer (~0.1 s a million rows), where the rest of a prune is a range of an index.
 */
const TEXT_PRUNE_MS = 3_600_000;

/**
 * query_storage has Pi-hole's timestamp index and no other, as in Pi-hole's own database. Each index
 * costs every insert (six made the writer thread's 5.4 µs a query, none 1.1 µs: measured with
 * bun:sqlite on 50k-row transactions), and a name index costs more the longer the database lives: its
 * entries go all over the tree, so once it outgrows the page cache every insert reads and writes pages
 * of it (with 3M older queries, a domain index took the write from 3.5 to 11.7 µs a query,
 * bench/querylog/insert.ts --prefill 3000000). A domain, client, status or upstream filter scans the
 * rows of its time range newest first (bench/querylog/disk-filters.ts, 3M queries: 0.2-0.45 s over all
 * of them, 0.07-0.12 s over a sixth; a rare name took 23 ms with a domain index, a wildcard 0.6 s; a
 * client index, which cost each insert ~1 µs, did not make a client's filter faster: each of a home's
 * few clients has too large a share of the rows). The range aggregates read the hourly rollups
 * (src/longterm/rollup.ts). Without name indexes the writer's connection needs no page cache beyond
 * SQLite's default (2000 KiB): 16 MiB gave 3.4 against 3.6 µs a query with 3M older ones.
 *
 * The indexes earlier versions made are dropped when a database is opened for writing.
 */
const DROPPED_INDEXES = [
  "moat_idx_qs_status",
  "moat_idx_qs_forward",
  "moat_idx_qs_range",
  "moat_idx_qs_domain",
  "moat_idx_qs_client",
];

/** A query_storage row joined with its domain, client, upstream and CNAME, as the readers select it. */
export interface StoredQueryRow {
  id: number;
  timestamp: number;
  type: number;
  status: number;
  domain: string;
  ip: string;
  forward: string | null;
  cname: string | null;
  reply_type: number | null;
  reply_time: number | null;
  dnssec: number | null;
  list_id: number | null;
  ede: number | null;
  answers?: string | null;
}

export class QueryStore {
  private readonly domains: NameIds;
  private readonly clients: NameIds;
  private readonly forwards: NameIds;
  private readonly cnames: NameIds;
  /** the ids of the distinct answer texts (moat_answer_text) */
  private readonly answers: NameIds;
  /** when a prune last deleted the unused answer texts (performance.now()) */
  private textsPrunedAt = Number.NEGATIVE_INFINITY;
  private readonly insertRow: Statement;
  /** ROWS_PER_INSERT rows in one statement */
  private readonly insertRows: Statement;
  /** the parameters of insertRows, reused */
  private readonly rowArgs: SQLQueryBindings[] = new Array(ROWS_PER_INSERT * COLUMNS.length);
  private readonly insertAnswer: Statement;
  private readonly insertAnswers: Statement;
  /** the parameters of insertAnswers (query id, text id), reused */
  private readonly answerArgs: SQLQueryBindings[] = new Array(ROWS_PER_INSERT * 2);

  /**
   * `maxIds`: lookup ids kept in memory per table. They are a cache of the *_by_id tables, which
   * grow with every name seen for as long as the database lives, so it drops the names not asked
   * for longest when full (two generations, name-ids.ts; a miss costs one indexed SELECT).
   */
  constructor(
    readonly db: Database,
    maxIds = 100_000,
    private readonly textPruneMs = TEXT_PRUNE_MS,
  ) {
    for (const name of DROPPED_INDEXES) db.exec(`DROP INDEX IF EXISTS ${name}`);
    const one = (name: string): SQLQueryBindings[] => [name];
    const table = (select: string, insert: string, unique: boolean, args = one) =>
      new NameIds(db, { select, insert, args, unique }, maxIds);
    this.domains = table(
      "SELECT id FROM domain_by_id WHERE domain = ?",
      "INSERT OR IGNORE INTO domain_by_id (domain) VALUES (?)",
      true,
    );
    // client_by_id's unique index is on (ip, name), and rows without a name may repeat
    this.clients = table(
      "SELECT id FROM client_by_id WHERE ip = ? AND name IS NULL",
      "INSERT INTO client_by_id (ip, name) VALUES (?, NULL)",
      false,
    );
    this.forwards = table(
      "SELECT id FROM forward_by_id WHERE forward = ?",
      "INSERT OR IGNORE INTO forward_by_id (forward) VALUES (?)",
      true,
    );
    this.cnames = table(
      "SELECT id FROM addinfo_by_id WHERE type = ? AND content = ?",
      "INSERT OR IGNORE INTO addinfo_by_id (type, content) VALUES (?, ?)",
      true,
      (name) => [ADDINFO_CNAME, name],
    );
    this.answers = table(
      "SELECT id FROM moat_answer_text WHERE text = ?",
      "INSERT OR IGNORE INTO moat_answer_text (text) VALUES (?)",
      true,
    );
    // answers of queries deleted without Moat (Pi-hole's flush): their ids would be given again
    db.run("DELETE FROM moat_query_answer WHERE id > (SELECT IFNULL(MAX(id), 0) FROM query_storage)");
    this.insertRow = db.prepare(insertSql(1));
    this.insertRows = db.prepare(insertSql(ROWS_PER_INSERT));
    this.insertAnswer = db.prepare(answersSql(1));
    this.insertAnswers = db.prepare(answersSql(ROWS_PER_INSERT));
    // the newest ids: those are the names still being asked; all of them when they fit. The oldest of
    // them are set first, so the newest are in the young generation (NameIds), the one dropped last.
    const load = (names: NameIds, rows: Array<{ id: number; name: string }>) => {
      for (let i = rows.length - 1; i >= 0; i--) names.set(rows[i]!.name, rows[i]!.id);
      names.complete = rows.length < maxIds;
    };
    // what two generations hold (an odd maxIds loses one)
    maxIds = this.domains.capacity;
    type Named = Array<{ id: number; name: string }>;
    load(
      this.domains,
      db.query("SELECT id, domain AS name FROM domain_by_id ORDER BY id DESC LIMIT ?").all(maxIds) as Named,
    );
    // the oldest row of an address without a name is the one used (set last)
    for (const r of db.query("SELECT id, ip, name FROM client_by_id ORDER BY id DESC LIMIT ?").all(maxIds) as Array<{
      id: number;
      ip: string;
      name: string | null;
    }>)
      if (!r.name) this.clients.set(r.ip, r.id);
    load(
      this.forwards,
      db.query("SELECT id, forward AS name FROM forward_by_id ORDER BY id DESC LIMIT ?").all(maxIds) as Named,
    );
    load(
      this.cnames,
      db
        .query("SELECT id, content AS name FROM addinfo_by_id WHERE type = ? ORDER BY id DESC LIMIT ?")
        .all(ADDINFO_CNAME, maxIds) as Named,
    );
    load(
      this.answers,
      db.query("SELECT id, text AS name FROM moat_answer_text ORDER BY id DESC LIMIT ?").all(maxIds) as Named,
    );
  }

  /** An empty in-memory database with the same schema (for tests and tools). */
  static memory(): QueryStore {
    const db = new Database(":memory:", { strict: true });
    initQueryDb(db);
    return new QueryStore(db);
  }

  /** Inserts records with their ids in one transaction; throws on failure (the caller keeps them). */
  insert(records: readonly StoredRecord[]): void {
    if (records.length) this.insertBatches([encodeBatch(records)]);
  }

  /**
   * Inserts the batches' records with their ids in one transaction, read straight from the columns
   * (src/query/record-batch.ts); throws on failure (the caller keeps them). Rows whose id is already
   * stored are left as they are.
   */
  insertBatches(batches: readonly RecordBatch[]): void {
    if (!batches.some((b) => b.count)) return;
    // Ids learnt inside the transaction are forgotten again if it fails (the rows are rolled back).
    const learnt: Learnt = [];
    const { domains, clients, forwards, cnames, answers: texts, rowArgs: a, answerArgs: t } = this;
    const W = COLUMNS.length;
    try {
      this.db.transaction(() => {
        let rows = 0;
        // the answers' text ids beside: most queries have one
        let answered = 0;
        for (const b of batches) {
          const r = new BatchReader(b);
          const text = b.text;
          while (r.next()) {
            const upstream = r.length(2);
            const cname = r.length(3);
            const o = rows * W; // in COLUMNS' order
            a[o] = r.id;
            a[o + 1] = r.time;
            a[o + 2] = r.type;
            a[o + 3] = r.status;
            a[o + 4] = domains.idAt(text, r.start(0), r.length(0), learnt);
            a[o + 5] = clients.idAt(text, r.start(1), r.length(1), learnt);
            a[o + 6] = upstream < 0 ? null : forwards.idAt(text, r.start(2), upstream, learnt);
            a[o + 7] = cname < 0 ? null : cnames.idAt(text, r.start(3), cname, learnt);
            a[o + 8] = r.reply;
            a[o + 9] = r.replyTime / 1000;
            a[o + 10] = r.dnssec;
            a[o + 11] = r.listId;
            a[o + 12] = r.ede;
            if (++rows === ROWS_PER_INSERT) {
              this.insertRows.run(a);
              rows = 0;
            }
            const answers = r.length(4);
            if (answers >= 0) {
              t[answered * 2] = r.id;
              t[answered * 2 + 1] = texts.idAt(text, r.start(4), answers, learnt);
              if (++answered === ROWS_PER_INSERT) {
                this.insertAnswers.run(t);
                answered = 0;
              }
            }
          }
        }
        // the rest one row at a time
        for (let i = 0; i < rows; i++) this.insertRow.run(a.slice(i * W, (i + 1) * W));
        for (let i = 0; i < answered; i++) this.insertAnswer.run(t[i * 2]!, t[i * 2 + 1]!);
      })();
    } catch (e) {
      const gone = new Map<NameIds, Set<string>>();
      for (const [names, name] of learnt) gone.set(names, (gone.get(names) ?? new Set()).add(name));
      for (const [names, set] of gone) names.forget(set);
      throw e;
    }
  }

  /** Deletes the names no query mentions any more, and forgets the cached ids (some may be gone). */
  pruneNames(): void {
    const db = this.db;
    db.transaction(() => {
      db.exec("DELETE FROM domain_by_id WHERE id NOT IN (SELECT domain FROM query_storage)");
      db.exec("DELETE FROM client_by_id WHERE id NOT IN (SELECT client FROM query_storage)");
      db.exec(
        "DELETE FROM forward_by_id WHERE id NOT IN (SELECT forward FROM query_storage WHERE forward IS NOT NULL)",
      );
      db.exec(
        "DELETE FROM addinfo_by_id WHERE id NOT IN (SELECT additional_info FROM query_storage WHERE additional_info IS NOT NULL)",
      );
    })();
    for (const names of [this.domains, this.clients, this.forwards, this.cnames]) names.clear();
  }

  /**
   * Deletes queries older than `before` (unix seconds) and their answers: ids are given in the order
   * queries are answered, so those are the answer rows below the oldest query kept (one range of the
   * primary key, where a trigger deleted them one by one; the few of pruned queries answered just after a
   * kept one go with a later prune). Now and then also the texts no query names any more.
   */
  prune(before: number): number {
    const db = this.db;
    const deleted = db.query("DELETE FROM query_storage WHERE timestamp < ?").run(before).changes;
    if (!deleted) return 0;
    db.run(
      "DELETE FROM moat_query_answer WHERE id < (SELECT IFNULL(MIN(id), (SELECT MAX(id) + 1 FROM moat_query_answer)) FROM query_storage)",
    );
    const now = performance.now();
    if (now - this.textsPrunedAt >= this.textPruneMs) {
      this.textsPrunedAt = now;
      db.run("DELETE FROM moat_answer_text WHERE id NOT IN (SELECT answer FROM moat_query_answer)");
      this.answers.clear();
    }
    return deleted;
  }
}

/**
 * The id of the first query at or after `since` (unix seconds), null for none: where the import at
 * start begins. One seek in the timestamp index (MIN(id) would read every entry after it); ids are
 * given in the order queries are answered, so only a query at the window's very edge could differ.
 */
export function firstQueryIdSince(db: Database, since: number): number | null {
  const r = db.query("SELECT id FROM query_storage WHERE timestamp >= ? ORDER BY timestamp LIMIT 1").get(since) as {
    id: number;
  } | null;
  return r?.id ?? null;
}

/**
 * Up to `limit` records at or after `since` with ids in [fromId, beforeId), oldest first: the import
 * at start reads the last 24 h in such steps, each a few milliseconds, so DNS is answered in between.
 * A range of the primary key (the `+` keeps SQLite from choosing the timestamp index and sorting).
 */
export function readStoredFrom(
  db: Database,
  since: number,
  fromId: number,
  beforeId: number,
  limit: number,
): StoredRecord[] {
  const rows = db
    .query(
      `SELECT q.id, q.timestamp, q.type, q.status, d.domain, c.ip, f.forward, a.content AS cname, q.reply_type, q.reply_time, q.dnssec, q.list_id, q.ede,
         an.text AS answers
       FROM query_storage q JOIN domain_by_id d ON d.id = q.domain JOIN client_by_id c ON c.id = q.client
       LEFT JOIN forward_by_id f ON f.id = q.forward LEFT JOIN addinfo_by_id a ON a.id = q.additional_info
       LEFT JOIN moat_query_answer qa ON qa.id = q.id LEFT JOIN moat_answer_text an ON an.id = qa.answer
       WHERE q.id >= ? AND q.id < ? AND +q.timestamp >= ? ORDER BY q.id LIMIT ?`,
    )
    .all(fromId, beforeId, since, limit) as StoredQueryRow[];
  return rows.map((x) => ({
    id: x.id,
    r: {
      time: x.timestamp,
      type: x.type,
      domain: x.domain,
      client: x.ip,
      status: x.status,
      reply: x.reply_type ?? 0,
      replyTime: (x.reply_time ?? 0) * 1000,
      upstream: x.forward ?? null,
      dnssec: x.dnssec ?? 0,
      listId: x.list_id ?? null,
      ede: x.ede ?? -1,
      cname: x.cname ?? null,
      answers: x.answers ?? null,
    },
  }));
}

/** The id of the newest query a database holds (0 when empty): new records continue from it. */
export function lastQueryId(db: Database): number {
  return (db.query("SELECT MAX(id) AS m FROM query_storage").get() as { m: number | null }).m ?? 0;
}

/**
 * Deletes the queries at or after `since` and their answers (POST /api/action/flush/logs); the rollups follow by
 * themselves. The answers first, by the timestamp index: the next queries are given these ids again.
 */
export function deleteQueriesSince(db: Database, since: number): number {
  return db.transaction(() => {
    db.query("DELETE FROM moat_query_answer WHERE id IN (SELECT id FROM query_storage WHERE timestamp >= ?)").run(
      since,
    );
    return db.query("DELETE FROM query_storage WHERE timestamp >= ?").run(since).changes;
  })();
}
