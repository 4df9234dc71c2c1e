// The read side of the long-term database's indexes: /api/queries?disk=true filtered by domain
// (exact, a rare name, wildcards) and by client, over --rows queries, as shipped (Pi-hole's timestamp
// index alone), then with an index on query_storage.client and one on .domain added. The writer pays
// for such an index on every insert, a name's more the older the database (bench/querylog/insert.ts
// --prefill); this measures what a filter pays without it.
// Each filter runs over everything and over a range of a sixth of it, with the same queryPage() the
// API runs (a page of 100 and the filtered count).
// Usage: bun bench/querylog/disk-filters.ts [--rows 3000000]
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { queryPage, type QueryFilter } from "../../src/querylog/read.ts";
import { DOMAINS, prefillQueries } from "./prefill.ts";

const { values: opt } = parseArgs({ options: { rows: { type: "string", default: "3000000" } } });
const ROWS = Number(opt.rows);
const T0 = 1_700_000_000;

const FILTERS: Array<[string, QueryFilter]> = [
  ["the most asked name", { domain: "d0.site0.example" }],
  ["a rare name", { domain: "d99990.site*" }],
  ["a name asked ~80 times", { domain: "d5000.site*" }],
  ["a wildcard (*site7*)", { domain: "*site7*" }],
  ["a client", { client_ip: "192.168.1.7" }],
];
const RANGE = { from: T0 + ROWS / 60, until: T0 + ROWS / 60 + ROWS / 60 };

function timeAll(db: Database, label: string): void {
  for (const [name, f] of FILTERS)
    for (const [scope, extra] of [
      ["all", {}],
      ["a sixth", RANGE],
    ] as const) {
      const t0 = performance.now();
      const page = queryPage(db, { ...f, ...extra, length: 100 });
      const ms = performance.now() - t0;
      console.log(
        `${label.padEnd(16)} ${name.padEnd(24)} ${scope.padEnd(8)} ${String(page.recordsFiltered).padStart(8)} rows  ${ms.toFixed(0).padStart(6)} ms`,
      );
    }
}

const dir = mkdtempSync(join(tmpdir(), "moat-bench-filters-"));
try {
  const file = join(dir, "q.db");
  prefillQueries(file, ROWS, T0);
  const db = new Database(file);
  console.log(`${ROWS} queries over ${DOMAINS} names; filtered count and time of one /api/queries?disk=true page:`);
  timeAll(db, "as shipped");
  db.exec("CREATE INDEX moat_idx_qs_client ON query_storage (client)");
  timeAll(db, "client index");
  db.exec("CREATE INDEX moat_idx_qs_domain ON query_storage (domain)");
  timeAll(db, "+ domain index");
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
