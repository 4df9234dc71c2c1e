// Stored queries carried from another install (`moat migrate`, src/migrate/): the rows of a Pi-hole
// pihole-FTL.db (v6's query_storage, or v5's `queries` table; the `queries` view reads both), or rows
// read from AdGuard Home's query log. Names go into the *_by_id tables as the writer's do, so the
// query log, the long-term statistics and the start-up's history import read them like Moat's own.
import type { Database } from "bun:sqlite";

export interface ImportedQuery {
  timestamp: number;
  type: number;
  status: number;
  domain: string;
  client: string;
  forward: string | null;
  replyTime: number | null;
  /** the answer records as the query log shows them (src/dns/answer-text.ts), null for none */
  answers: string | null;
}

const SRC = "migrated";

/** Copies every query of the Pi-hole database `file` into `db`, in one transaction; the number copied. */
export function importPiholeQueries(db: Database, file: string): number {
  db.run(`ATTACH DATABASE ? AS ${SRC}`, [file]);
  try {
    const names = new Set(
      (
        db.query(`SELECT name FROM ${SRC}.sqlite_master WHERE type IN ('table', 'view')`).all() as Array<{
          name: string;
        }>
      ).map((r) => r.name),
    );
    if (!names.has("queries")) return 0;
    const cols = new Set(
      (db.query(`PRAGMA ${SRC}.table_info(queries)`).all() as Array<{ name: string }>).map((r) => r.name),
    );
    const col = (c: string) => (cols.has(c) ? `s.${c}` : "NULL");
    return db.transaction(() => {
      db.run(
        `INSERT OR IGNORE INTO domain_by_id (domain) SELECT DISTINCT domain FROM ${SRC}.queries WHERE domain IS NOT NULL`,
      );
      db.run(
        `INSERT INTO client_by_id (ip, name) SELECT DISTINCT s.client, NULL FROM ${SRC}.queries s WHERE s.client IS NOT NULL AND NOT EXISTS (SELECT 1 FROM client_by_id c WHERE c.ip = s.client AND c.name IS NULL)`,
      );
      db.run(
        `INSERT OR IGNORE INTO forward_by_id (forward) SELECT DISTINCT forward FROM ${SRC}.queries WHERE forward IS NOT NULL`,
      );
      return db.run(
        `INSERT INTO query_storage (timestamp, type, status, domain, client, forward, reply_type, reply_time, dnssec, list_id, ede)
         SELECT s.timestamp, s.type, s.status,
           (SELECT id FROM domain_by_id d WHERE d.domain = s.domain),
           (SELECT id FROM client_by_id c WHERE c.ip = s.client AND c.name IS NULL),
           (SELECT id FROM forward_by_id f WHERE f.forward = s.forward),
           ${col("reply_type")}, ${col("reply_time")}, ${col("dnssec")}, ${col("list_id")}, ${col("ede")}
         FROM ${SRC}.queries s WHERE s.domain IS NOT NULL AND s.client IS NOT NULL ORDER BY s.timestamp, s.id`,
      ).changes;
    })();
  } finally {
    db.run(`DETACH DATABASE ${SRC}`);
  }
}

/** Inserts `rows` (oldest first) in one transaction; the number inserted. */
export function importQueryRows(db: Database, rows: readonly ImportedQuery[]): number {
  const domain = db.query("INSERT OR IGNORE INTO domain_by_id (domain) VALUES (?)");
  const domainId = db.query("SELECT id FROM domain_by_id WHERE domain = ?");
  const clientId = db.query("SELECT id FROM client_by_id WHERE ip = ? AND name IS NULL");
  const client = db.query("INSERT INTO client_by_id (ip, name) VALUES (?, NULL)");
  const forward = db.query("INSERT OR IGNORE INTO forward_by_id (forward) VALUES (?)");
  const forwardId = db.query("SELECT id FROM forward_by_id WHERE forward = ?");
  const insert = db.query(
    "INSERT INTO query_storage (timestamp, type, status, domain, client, forward, reply_type, reply_time) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
  );
  const text = db.query("INSERT OR IGNORE INTO moat_answer_text (text) VALUES (?)");
  const textId = db.query("SELECT id FROM moat_answer_text WHERE text = ?");
  const answer = db.query("INSERT OR REPLACE INTO moat_query_answer (id, answer) VALUES (?, ?)");
  const id = (q: ReturnType<Database["query"]>, v: string) => (q.get(v) as { id: number }).id;
  return db.transaction(() => {
    for (const r of rows) {
      domain.run(r.domain);
      if (!clientId.get(r.client)) client.run(r.client);
      let f: number | null = null;
      if (r.forward) {
        forward.run(r.forward);
        f = id(forwardId, r.forward);
      }
      const row = insert.run(
        r.timestamp,
        r.type,
        r.status,
        id(domainId, r.domain),
        id(clientId, r.client),
        f,
        r.replyTime,
      );
      if (r.answers !== null) {
        text.run(r.answers);
        answer.run(row.lastInsertRowid, id(textId, r.answers));
      }
    }
    return rows.length;
  })();
}
