// Query-log benchmark: fills a long-term database (pihole-FTL.db layout) with N synthetic
// queries through the real writer (QueryStore), then times the common /api/queries filters and
// the database aggregates with the same code the API runs. The database aggregates read hourly
// rollups; building them for the whole database (what the first request after an upgrade sets
// off in the background) is timed on its own first.
// Usage: bun bench/querylog/run.ts [rows=1000000]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openQueryDb } from "../../src/db/index.ts";
import {
  dbHistory,
  dbHistoryClients,
  dbQueryTypes,
  dbSummary,
  dbTop,
  dbUpstreams,
} from "../../src/longterm/dbstats.ts";
import { Reply, Status, dbQueryType } from "../../src/query/enums.ts";
import { queryPage } from "../../src/querylog/read.ts";
import { catchUpRollups } from "../../src/longterm/rollup.ts";
import type { QueryRecord } from "../../src/query/record.ts";
import { lastQueryId, QueryStore } from "../../src/querylog/store.ts";

const ROWS = Number(process.argv[2] ?? 1_000_000);
const DOMAINS = 50_000;
const CLIENTS = 200;
const dir = mkdtempSync(join(tmpdir(), "moat-bench-ql-"));
const db = openQueryDb(dir);
const store = new QueryStore(db);

// Deterministic pseudo-random stream (xorshift) so runs are comparable.
let seed = 2463534242;
const rnd = () => ((seed ^= seed << 13), (seed ^= seed >>> 17), (seed ^= seed << 5), (seed >>> 0) / 4294967296);
const now = Math.floor(Date.now() / 1000);
const span = 7 * 86400;
const statuses = [
  Status.FORWARDED,
  Status.FORWARDED,
  Status.FORWARDED,
  Status.CACHE,
  Status.CACHE,
  Status.GRAVITY,
  Status.REGEX,
  Status.DENYLIST,
];
const qtypes = [1, 1, 1, 28, 28, 65, 12, 16].map(dbQueryType);

let t0 = performance.now();
const BATCH = 20_000;
for (let done = 0; done < ROWS; done += BATCH) {
  const batch = [];
  for (let i = done; i < Math.min(ROWS, done + BATCH); i++) {
    const status = statuses[Math.floor(rnd() * statuses.length)]!;
    // Zipf-like domain popularity: a few domains get most queries.
    const d = Math.floor(DOMAINS * rnd() ** 3);
    const r: QueryRecord = {
      time: now - span + (span * i) / ROWS,
      type: qtypes[Math.floor(rnd() * qtypes.length)]!,
      domain: `d${d}.${d % 7 === 0 ? "ads" : "site"}${d % 13}.example`,
      client: `10.0.${Math.floor(rnd() * CLIENTS) >> 8}.${Math.floor(rnd() * CLIENTS) & 255}`,
      status,
      reply: status === Status.FORWARDED || status === Status.CACHE ? Reply.IP : Reply.IP,
      replyTime: status === Status.FORWARDED ? 5 + rnd() * 40 : 0.05,
      upstream: status === Status.FORWARDED ? `127.0.0.1#${5300 + Math.floor(rnd() * 3)}` : null,
      dnssec: 0,
      listId: status === Status.GRAVITY ? 1 : null,
      ede: -1,
      cname: null,
      answers: null,
    };
    batch.push({ id: i + 1, r });
  }
  store.insert(batch);
}
const fillMs = performance.now() - t0;
db.exec("ANALYZE");

function time(label: string, fn: () => unknown, reps = 5): void {
  fn(); // warm the page cache and statement cache
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) {
    t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(48)} median ${ms[Math.floor(reps / 2)]!.toFixed(1).padStart(8)} ms   max ${ms[reps - 1]!.toFixed(1).padStart(8)} ms`,
  );
}

console.log(
  `rows ${ROWS}, fill ${(fillMs / 1000).toFixed(1)} s (${Math.round(ROWS / (fillMs / 1000))} rows/s), file ${(statSync(join(dir, "pihole-FTL.db")).size / 1e6).toFixed(0)} MB`,
);
const last = lastQueryId(store.db);
time("page 1 (no filter, length 100)", () => queryPage(db, { length: 100 }));
time("by client (client_ip=10.0.0.17)", () => queryPage(db, { client_ip: "10.0.0.17", length: 100 }));
time("by domain wildcard (domain=*.ads3.example)", () => queryPage(db, { domain: "*.ads3.example", length: 100 }));
time("blocked only (upstream=blocklist)", () => queryPage(db, { upstream: "blocklist", length: 100 }));
time("status=GRAVITY", () => queryPage(db, { status: "GRAVITY", length: 100 }));
time("page by cursor (cursor=mid, length 100)", () => queryPage(db, { cursor: Math.floor(last / 2), length: 100 }));
time("last 24 h, type=AAAA", () => queryPage(db, { from: now - 86400, until: now, type: "AAAA", length: 100 }));
t0 = performance.now();
catchUpRollups(db);
console.log(
  `${`rollup build (whole database, once)`.padEnd(48)} ${(performance.now() - t0).toFixed(0).padStart(8)} ms`,
);
const week = { from: now - span, until: now };
const day = { from: now - 86400, until: now };
time("database summary (7 days)", () => dbSummary(db, week));
time("database summary (24 h)", () => dbSummary(db, day));
time("database top domains (24 h)", () => dbTop(db, day, "domain", false, 10));
time("database top domains (7 days)", () => dbTop(db, week, "domain", false, 10));
time("database top blocked domains (7 days)", () => dbTop(db, week, "domain", true, 10));
time("database top clients (7 days)", () => dbTop(db, week, "client", null, 10));
time("database upstreams (7 days)", () => dbUpstreams(db, week));
time("database query types (7 days)", () => dbQueryTypes(db, week));
time("database history (24 h)", () => dbHistory(db, day));
time("database history (7 days)", () => dbHistory(db, week));
time("database client history (24 h)", () => dbHistoryClients(db, day));
// Steady state: a minute of new queries lands (as the writer's flush does), then a request.
const perMinute = Math.max(1, Math.round(ROWS / (span / 60)));
let nextId = last + 1;
time(`+${perMinute} new rows, then summary (7 days)`, () => {
  const batch = [];
  for (let i = 0; i < perMinute; i++)
    batch.push({
      id: nextId++,
      r: {
        time: now - 30,
        type: 1,
        domain: "new.example",
        client: "10.0.0.1",
        status: Status.FORWARDED,
        reply: Reply.IP,
        replyTime: 5,
        upstream: "127.0.0.1#5300",
        dnssec: 0,
        listId: null,
        ede: -1,
        cname: null,
        answers: null,
      },
    });
  store.insert(batch);
  return dbSummary(db, week);
});
db.close();
// MOAT_BENCH_KEEP=1 keeps the database for a closer look.
if (process.env.MOAT_BENCH_KEEP) console.log(`database kept in ${dir}`);
else rmSync(dir, { recursive: true, force: true });
