// Writing query records into a database in Pi-hole's layout (query_storage + *_by_id lookup
// tables). The same class serves the on-disk pihole-FTL.db and the in-memory copy of the last
// 24 h that answers /api/queries, so both are filtered by one piece of SQL.
import { Database } from "bun:sqlite";
import { QUERY_SCHEMA } from "../db/query-schema.ts";
import type { StoredRecord } from "../query/record.ts";

/** addinfo_by_id.type for the CNAME target of a *_CNAME block (Pi-hole's ADDINFO_CNAME_DOMAIN). */
export const ADDINFO_CNAME = 1;

/**
 * Indexes the name filters of /api/queries?disk=true need; Moat's own, hence the prefix. Each index
 * costs every insert ~0.7 µs (six made the writer thread's 5.4 µs a query, none 1.1 µs: measured
 * with bun:sqlite on 50k-row transactions), so only names are indexed: a time range uses Pi-hole's
 * timestamp index, the range aggregates read the hourly rollups (src/longterm/rollup.ts), and status
 * or upstream filters scan the rows of the range, newest first.
 */
const INDEXES = [
  "CREATE INDEX IF NOT EXISTS moat_idx_qs_domain ON query_storage (domain)",
  "CREATE INDEX IF NOT EXISTS moat_idx_qs_client ON query_storage (client)",
];
/** Indexes earlier versions made, dropped when a database is opened for writing. */
const DROPPED_INDEXES = ["moat_idx_qs_status", "moat_idx_qs_forward", "moat_idx_qs_range"];

/**
 * A string with storage of its own. The writer thread's records are slices of their batch's one
 * text (src/query/record-batch.ts), and a slice keeps its whole parent alive: a cached id key would hold every
 * batch it came from (measured: most of the writer thread's memory on a busy network).
 */
function ownCopy(s: string): string {
  return Buffer.from(s, "utf8").toString("utf8");
}

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
}

export class QueryStore {
  private domainIds = new Map<string, number>();
  private clientIds = new Map<string, number>();
  private forwardIds = new Map<string, number>();
  private addinfoIds = new Map<string, number>();

  /**
   * `maxIds`: lookup ids kept in memory per table. They are a cache of the *_by_id tables, which
   * grow with every name seen for as long as the database lives, so it starts again when full
   * (a miss costs one indexed SELECT).
   */
  constructor(
    readonly db: Database,
    private readonly maxIds = 100_000,
  ) {
    for (const sql of INDEXES) db.exec(sql);
    for (const name of DROPPED_INDEXES) db.exec(`DROP INDEX IF EXISTS ${name}`);
    // the newest ids first: those are the names still being asked
    for (const r of db.query("SELECT id, domain FROM domain_by_id ORDER BY id DESC LIMIT ?").all(maxIds) as Array<{
      id: number;
      domain: string;
    }>)
      this.domainIds.set(r.domain, r.id);
    for (const r of db.query("SELECT id, ip, name FROM client_by_id ORDER BY id DESC LIMIT ?").all(maxIds) as Array<{
      id: number;
      ip: string;
      name: string | null;
    }>)
      if (!r.name) this.clientIds.set(r.ip, r.id);
    for (const r of db.query("SELECT id, forward FROM forward_by_id ORDER BY id DESC LIMIT ?").all(maxIds) as Array<{
      id: number;
      forward: string;
    }>)
      this.forwardIds.set(r.forward, r.id);
    for (const r of db
      .query("SELECT id, content FROM addinfo_by_id WHERE type = ? ORDER BY id DESC LIMIT ?")
      .all(ADDINFO_CNAME, maxIds) as Array<{ id: number; content: string }>)
      this.addinfoIds.set(r.content, r.id);
  }

  /** An empty in-memory database with the same schema (for tests and tools). */
  static memory(): QueryStore {
    const db = new Database(":memory:", { strict: true });
    db.exec(QUERY_SCHEMA);
    return new QueryStore(db);
  }

  /** Inserts records with their ids in one transaction; throws on failure (the caller keeps them). */
  insert(batch: readonly StoredRecord[]): void {
    if (!batch.length) return;
    const db = this.db;
    const ins = db.query(
      "INSERT OR IGNORE INTO query_storage (id, timestamp, type, status, domain, client, forward, additional_info, reply_type, reply_time, dnssec, list_id, ede) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
    );
    // Ids learnt inside the transaction are forgotten again if it fails (the rows are rolled back).
    const learnt: Array<[Map<string, number>, string]> = [];
    const lookup = (map: Map<string, number>, sel: string, insSql: string, key: string, ...args: unknown[]): number => {
      let id = map.get(key);
      if (id === undefined) {
        // looked up first: client_by_id's unique index lets (ip, NULL) repeat, so only a miss inserts
        const found = db.query(sel).get(...(args as never[])) as { id: number } | null;
        id = found ? found.id : Number(db.query(insSql).run(...(args as never[])).lastInsertRowid);
        if (map.size >= this.maxIds) map.clear();
        map.set(ownCopy(key), id);
        learnt.push([map, key]);
      }
      return id;
    };
    try {
      db.transaction(() => {
        for (const { id, r } of batch) {
          const d = lookup(
            this.domainIds,
            "SELECT id FROM domain_by_id WHERE domain = ?",
            "INSERT OR IGNORE INTO domain_by_id (domain) VALUES (?)",
            r.domain,
            r.domain,
          );
          const c = lookup(
            this.clientIds,
            "SELECT id FROM client_by_id WHERE ip = ? AND name IS NULL",
            "INSERT INTO client_by_id (ip, name) VALUES (?, NULL)",
            r.client,
            r.client,
          );
          const f =
            r.upstream === null
              ? null
              : lookup(
                  this.forwardIds,
                  "SELECT id FROM forward_by_id WHERE forward = ?",
                  "INSERT OR IGNORE INTO forward_by_id (forward) VALUES (?)",
                  r.upstream,
                  r.upstream,
                );
          const a =
            r.cname === null
              ? null
              : lookup(
                  this.addinfoIds,
                  "SELECT id FROM addinfo_by_id WHERE type = ? AND content = ?",
                  "INSERT OR IGNORE INTO addinfo_by_id (type, content) VALUES (?, ?)",
                  r.cname,
                  ADDINFO_CNAME,
                  r.cname,
                );
          ins.run(id, r.time, r.type, r.status, d, c, f, a, r.reply, r.replyTime / 1000, r.dnssec, r.listId, r.ede);
        }
      })();
    } catch (e) {
      for (const [map, key] of learnt) map.delete(key);
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
    this.domainIds.clear();
    this.clientIds.clear();
    this.forwardIds.clear();
    this.addinfoIds.clear();
  }

  /** Deletes queries older than `before` (unix seconds). */
  prune(before: number): number {
    return this.db.query("DELETE FROM query_storage WHERE timestamp < ?").run(before).changes;
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
      `SELECT q.id, q.timestamp, q.type, q.status, d.domain, c.ip, f.forward, a.content AS cname, q.reply_type, q.reply_time, q.dnssec, q.list_id, q.ede
       FROM query_storage q JOIN domain_by_id d ON d.id = q.domain JOIN client_by_id c ON c.id = q.client
       LEFT JOIN forward_by_id f ON f.id = q.forward LEFT JOIN addinfo_by_id a ON a.id = q.additional_info
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
    },
  }));
}

/** The id of the newest query a database holds (0 when empty): new records continue from it. */
export function lastQueryId(db: Database): number {
  return (db.query("SELECT MAX(id) AS m FROM query_storage").get() as { m: number | null }).m ?? 0;
}

/** Deletes the queries at or after `since` (POST /api/action/flush/logs); the rollups follow by themselves. */
export function deleteQueriesSince(db: Database, since: number): number {
  return db.query("DELETE FROM query_storage WHERE timestamp >= ?").run(since).changes;
}
