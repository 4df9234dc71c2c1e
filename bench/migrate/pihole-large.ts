// A Pi-hole v6 directory of a long-lived install, for timing `moat migrate pihole` on it: a gravity.db
// with --domains list entries (over 10 lists) and a few hundred of the household's own entries, and a
// pihole-FTL.db with --queries stored queries (over 50k names and 200 clients, the last 90 days), both
// made in SQL. Prints the directory; time the migration with
//   /usr/bin/time -v bun src/main.ts migrate pihole DIR --data-dir $(mktemp -d)
// Usage: bun bench/migrate/pihole-large.ts [--domains 1000000] [--queries 1000000]
import { Database } from "bun:sqlite";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { GRAVITY_SCHEMA } from "../../src/db/gravity-schema.ts";
import { QUERY_SCHEMA } from "../../src/db/query-schema.ts";

const { values } = parseArgs({
  options: { domains: { type: "string", default: "1000000" }, queries: { type: "string", default: "1000000" } },
});
const domains = Number(values.domains);
const queries = Number(values.queries);
const dir = mkdtempSync(join(tmpdir(), "moat-bench-pihole-"));
// an upstream that is not this machine: the settings check refuses Moat itself (127.0.0.1#53), and the
// migration asks no upstream anything
writeFileSync(join(dir, "pihole.toml"), '[dns]\n  upstreams = ["9.9.9.9"]\n');

const g = new Database(join(dir, "gravity.db"), { create: true });
g.exec(GRAVITY_SCHEMA);
g.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;");
g.transaction(() => {
  for (let i = 1; i <= 10; i++)
    g.run("INSERT INTO adlist (id, address, enabled) VALUES (?, ?, 1)", [i, `https://lists.example/${i}.txt`]);
  g.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
     INSERT INTO gravity (domain, adlist_id) SELECT 'ad' || i || '.tracker' || (i % 997) || '.example', 1 + i % 10 FROM n`,
    [domains],
  );
  g.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < 300)
     INSERT INTO domainlist (type, domain, enabled) SELECT i % 2, 'own' || i || '.example', 1 FROM n`,
  );
  g.run("INSERT OR REPLACE INTO info (property, value) VALUES ('gravity_count', ?)", [domains]);
})();
g.close();

const q = new Database(join(dir, "pihole-FTL.db"), { create: true });
q.exec(QUERY_SCHEMA);
q.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;");
const now = Math.floor(Date.now() / 1000);
q.transaction(() => {
  q.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000) INSERT INTO domain_by_id (id, domain) SELECT i, 'site' || i || '.example' FROM n`,
  );
  q.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO client_by_id (id, ip) SELECT i, '192.168.' || (i / 250) || '.' || (i % 250) FROM n`,
  );
  q.run("INSERT INTO forward_by_id (id, forward) VALUES (1, '9.9.9.9#53')");
  q.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
     INSERT INTO query_storage (timestamp, type, status, domain, client, forward, reply_type, reply_time)
     SELECT ? - 90 * 86400 + i * (90 * 86400 / ?), 1 + i % 2, CASE WHEN i % 5 = 0 THEN 1 ELSE 2 END, 1 + (i * 7919) % 50000, 1 + i % 200,
       CASE WHEN i % 5 = 0 THEN NULL ELSE 1 END, 4, 0.01 FROM n`,
    [queries, now, queries],
  );
})();
q.close();
console.log(dir);
