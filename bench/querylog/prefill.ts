// Older queries made in SQL for the query-log benchmarks: a long-term database that has lived a while,
// with Moat's indexes (through QueryStore, as the writer makes them), `rows` queries one every 0.1 s
// from `t0` over DOMAINS names skewed like a home's (the cube of a uniform draw) and 40 clients.
import { Database } from "bun:sqlite";
import { initQueryDb } from "../../src/db/index.ts";
import { Reply, Status } from "../../src/query/enums.ts";
import { QueryStore } from "../../src/querylog/store.ts";

/** names d0.site0.example .. d99999.site12.example: the ids 1 .. DOMAINS of domain_by_id */
export const DOMAINS = 100_000;

export function prefillQueries(file: string, rows: number, t0: number): void {
  const db = new Database(file, { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  initQueryDb(db);
  new QueryStore(db);
  const series = (n: number) => `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${n})`;
  db.exec(
    `${series(DOMAINS)} INSERT INTO domain_by_id (id, domain) SELECT i, 'd' || (i - 1) || '.site' || ((i - 1) % 13) || '.example' FROM c`,
  );
  db.exec(`${series(40)} INSERT INTO client_by_id (id, ip) SELECT i, '192.168.1.' || (i - 1) FROM c`);
  db.exec(
    `${series(rows)} INSERT INTO query_storage (id, timestamp, type, status, domain, client, reply_type, reply_time, dnssec, ede)
     SELECT i, ${t0} + i / 10, 1, ${Status.CACHE}, CAST(${DOMAINS} * pow(abs(random()) / 9223372036854775807.0, 3) AS INTEGER) + 1,
       abs(random()) % 40 + 1, ${Reply.IP}, 0.00005, 0, -1 FROM c`,
  );
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
}
