// The database statistics read hourly rollups plus raw edges; these tests hold them to the plain
// SQL over query_storage (the oracle below, Pi-hole's own queries) on a temporary database:
// random ranges with edges inside hours, rows written late into rolled hours, pruning of the
// oldest rows, flush/logs of the newest, and a reopened database.
import { afterEach, beforeEach, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
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
  type Range,
} from "../../src/longterm/dbstats.ts";
import { BLOCKED_STATUSES, QUERY_TYPES, Status, dbQueryType } from "../../src/query/enums.ts";
import { catchUpRollups, ensureRollups, resetRollups, splitRange } from "../../src/longterm/rollup.ts";
import { QueryStore } from "../../src/querylog/store.ts";
import { rec } from "./fixture.ts";

const B = [...BLOCKED_STATUSES].join(",");
const FWD = [Status.FORWARDED, Status.RETRIED, Status.RETRIED_DNSSEC].join(",");
const CACHED = [Status.CACHE, Status.CACHE_STALE].join(",");
const W = "timestamp >= ? AND timestamp <= ?";

/** The plain scans, written independently of dbstats.ts. */
const oracle = {
  summary(db: Database, r: Range) {
    const x = db
      .query(
        `SELECT COUNT(*) AS t, COALESCE(SUM(status IN (${B})), 0) AS b, COUNT(DISTINCT client) AS c FROM query_storage WHERE ${W}`,
      )
      .get(r.from, r.until) as { t: number; b: number; c: number };
    return { sum_queries: x.t, sum_blocked: x.b, percent_blocked: x.t ? (100 * x.b) / x.t : 0, total_clients: x.c };
  },
  top(db: Database, r: Range, what: "domain" | "client", blocked: boolean | null, count: number) {
    const f = blocked === null ? "1" : blocked ? `status IN (${B})` : `status NOT IN (${B})`;
    const [table, col] = what === "domain" ? ["domain_by_id", "domain"] : ["client_by_id", "ip"];
    const rows = db
      .query(`SELECT t.${col} AS k, ${what === "client" ? "t.name" : "NULL"} AS name, COUNT(*) AS n FROM query_storage q JOIN ${table} t ON t.id = q.${what}
              WHERE ${W} AND ${f} GROUP BY q.${what} ORDER BY n DESC, k LIMIT ?`)
      .all(r.from, r.until, count > 0 ? count : -1);
    const t = db
      .query(`SELECT COUNT(*) AS t, COALESCE(SUM(status IN (${B})), 0) AS b FROM query_storage WHERE ${W}`)
      .get(r.from, r.until) as { t: number; b: number };
    return { rows, total_queries: t.t, blocked_queries: t.b };
  },
  upstreams(db: Database, r: Range) {
    const rows = db
      .query(`SELECT f.forward AS upstream, COUNT(*) AS count, TOTAL(reply_time) AS sum, TOTAL(reply_time * reply_time) AS sumSq FROM query_storage q
              JOIN forward_by_id f ON f.id = q.forward WHERE ${W} AND status IN (${FWD}) GROUP BY q.forward ORDER BY count DESC, upstream`)
      .all(r.from, r.until) as Array<{ upstream: string; count: number; sum: number; sumSq: number }>;
    const c = db
      .query(`SELECT COUNT(*) AS total, COALESCE(SUM(status IN (${B})), 0) AS blocked, COALESCE(SUM(status IN (${CACHED})), 0) AS cached,
              COALESCE(SUM(status IN (${FWD})), 0) AS forwarded FROM query_storage WHERE ${W}`)
      .get(r.from, r.until) as { total: number; blocked: number; cached: number; forwarded: number };
    return { rows, ...c };
  },
  types(db: Database, r: Range) {
    const out = Object.fromEntries(QUERY_TYPES.map((t) => [t, 0])) as Record<string, number>;
    for (const x of db
      .query(`SELECT type, COUNT(*) AS n FROM query_storage WHERE ${W} GROUP BY type`)
      .all(r.from, r.until) as Array<{ type: number; n: number }>)
      out[x.type >= 1 && x.type <= 16 ? QUERY_TYPES[x.type - 1]! : "OTHER"]! += x.n;
    return out;
  },
  history(db: Database, r: Range) {
    return db
      .query(`SELECT CAST(timestamp / 600 AS INTEGER) * 600 AS timestamp, COUNT(*) AS total, SUM(status IN (${CACHED})) AS cached,
              SUM(status IN (${B})) AS blocked, SUM(status IN (${FWD})) AS forwarded FROM query_storage WHERE ${W} GROUP BY 1 ORDER BY 1`)
      .all(r.from, r.until);
  },
  historyClients(db: Database, r: Range) {
    return db
      .query(`SELECT CAST(q.timestamp / 600 AS INTEGER) * 600 AS slot, c.ip, c.name, COUNT(*) AS n FROM query_storage q
              JOIN client_by_id c ON c.id = q.client WHERE ${W} GROUP BY slot, q.client ORDER BY slot, c.ip`)
      .all(r.from, r.until);
  },
};

const NOW = Date.now() / 1000;
const HOURS = 60;
let dir: string;
let db: Database;
let store: QueryStore;
let nextId = 1;
let seed = 12345;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;

const STATUSES = [
  Status.FORWARDED,
  Status.FORWARDED,
  Status.CACHE,
  Status.CACHE_STALE,
  Status.GRAVITY,
  Status.REGEX,
  Status.RETRIED,
  Status.DENYLIST_CNAME,
  Status.SPECIAL_DOMAIN,
];

/** n random rows with timestamps in [from, until), some whole seconds, some fractional. */
function fill(n: number, from: number, until: number): void {
  const batch = [];
  for (let i = 0; i < n; i++) {
    const status = pick(STATUSES);
    const fwd = status === Status.FORWARDED || status === Status.RETRIED;
    let time = from + rnd() * (until - from);
    if (i % 2) time = Math.floor(time);
    batch.push({
      id: nextId++,
      r: rec({
        time,
        status,
        type: dbQueryType(pick([1, 1, 28, 65, 12, 99])),
        domain: `d${Math.floor(40 * rnd() ** 2)}.example`,
        client: `10.0.0.${Math.floor(rnd() * 12)}`,
        upstream: fwd ? pick(["127.0.0.1#53", "127.0.0.2#53", "127.0.0.3#5353"]) : null,
        replyTime: fwd ? Math.round(rnd() * 40_000) / 1000 : 0.1,
      }),
    });
  }
  store.insert(batch);
}

function expectSame(r: Range): void {
  expect(dbSummary(db, r)).toEqual(oracle.summary(db, r));
  for (const what of ["domain", "client"] as const)
    for (const blocked of [null, true, false])
      for (const count of [5, 0])
        expect(dbTop(db, r, what, blocked, count)).toEqual(oracle.top(db, r, what, blocked, count) as never);
  const u = dbUpstreams(db, r);
  const o = oracle.upstreams(db, r);
  expect({ ...u, rows: u.rows.map((x) => x.upstream).sort() }).toEqual({
    ...o,
    rows: o.rows.map((x) => x.upstream).sort(),
  });
  for (const x of o.rows) {
    const y = u.rows.find((z) => z.upstream === x.upstream)!;
    expect(y.count).toBe(x.count);
    // sums of reals added in another order: equal up to rounding
    expect(y.sum).toBeCloseTo(x.sum, 6);
    expect(y.sumSq).toBeCloseTo(x.sumSq, 4);
  }
  expect(dbQueryTypes(db, r)).toEqual(oracle.types(db, r));
  // (history answers stop at 100 000 slots, about two years)
  if (r.until - r.from < 50_000 * 600)
    expect(dbHistory(db, r).filter((s) => s.total > 0)).toEqual(oracle.history(db, r) as never);
  const hc = dbHistoryClients(db, r).rows.sort((a, b) => a.slot - b.slot || (a.ip < b.ip ? -1 : 1));
  expect(hc).toEqual(oracle.historyClients(db, r) as never);
}

/** Ranges with edges on, just inside and between hour boundaries, plus random ones. */
function ranges(): Range[] {
  const h = Math.floor(NOW / 3600) * 3600;
  const out: Range[] = [
    { from: NOW - HOURS * 3600, until: NOW + 60 },
    { from: h - 24 * 3600, until: h },
    { from: h - 24 * 3600, until: h - 1 },
    { from: h - 5 * 3600 + 1, until: h - 3600 - 0.5 },
    { from: h - 3 * 3600, until: h - 3 * 3600 + 1800 },
    { from: h - 2 * 3600, until: h - 6 * 3600 },
    { from: 1, until: NOW + 86400 },
    { from: NOW - 50 * 3600, until: NOW - 3 * 3600 },
    { from: Math.floor(NOW / 86400) * 86400 - 86400, until: Math.floor(NOW / 86400) * 86400 },
  ];
  for (let i = 0; i < 25; i++) {
    const a = NOW - rnd() * (HOURS + 2) * 3600;
    const b = a + rnd() * 40 * 3600;
    out.push({ from: i % 3 ? Math.floor(a) : a, until: i % 4 ? Math.floor(b) : b });
  }
  return out;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "moat-rollup-"));
  db = openQueryDb(dir);
  store = new QueryStore(db);
  nextId = 1;
  fill(6000, NOW - HOURS * 3600, NOW);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

test("rollups cover the complete hours, and the answers read them", () => {
  const c = catchUpRollups(db);
  expect(c.ready).toBe(true);
  expect(c.boundary).toBe(Math.floor(NOW / 3600) * 3600);
  const r = { from: NOW - 20 * 3600, until: NOW };
  const s = splitRange(r.from, r.until, c);
  expect(s.full[1] - s.full[0]).toBeGreaterThanOrEqual(18 * 3600);
  // A planted count in a rolled hour shows up: the answer really comes from the rollups.
  const before = dbSummary(db, r).sum_queries;
  const row = db
    .query("SELECT slot, status, type FROM moat_rollup_slot WHERE slot >= ? AND slot < ? LIMIT 1")
    .get(s.full[0], s.full[1]) as { slot: number; status: number; type: number };
  db.query("UPDATE moat_rollup_slot SET n = n + 1000 WHERE slot = ? AND status = ? AND type = ?").run(
    row.slot,
    row.status,
    row.type,
  );
  expect(dbSummary(db, r).sum_queries).toBe(before + 1000);
  resetRollups(db);
  expect(dbSummary(db, r).sum_queries).toBe(before);
});

test("rollup answers equal the plain scan for random ranges", () => {
  expect(ensureRollups(db).ready).toBe(true);
  for (const r of ranges()) expectSame(r);
});

test("hours completed since the last update are rolled up", () => {
  // as if the last request came five hours ago: the hours since are still raw
  expect(catchUpRollups(db, NOW - 5 * 3600).boundary).toBe(Math.floor(NOW / 3600) * 3600 - 5 * 3600);
  for (const r of ranges().slice(0, 10)) expectSame(r);
  expect(ensureRollups(db).boundary).toBe(Math.floor(NOW / 3600) * 3600);
});

test("rows written late into rolled hours are added", () => {
  catchUpRollups(db);
  fill(500, NOW - HOURS * 3600, NOW - 3600);
  for (const r of ranges().slice(0, 10)) expectSame(r);
  fill(300, NOW - 10 * 3600, NOW);
  for (const r of ranges().slice(0, 10)) expectSame(r);
});

test("pruning old rows (maxDBdays) and flushing recent ones (flush/logs) are followed", () => {
  catchUpRollups(db);
  // Cut-offs relative to the UTC day, so that yesterday is a whole day inside the answer and its
  // day rollup has to follow: pruning ends the day before, flush/logs cuts into yesterday.
  const today = Math.floor(NOW / 86400) * 86400;
  store.prune(today - 2 * 86400 + 1234);
  for (const r of ranges().slice(0, 12)) expectSame(r);
  store.prune(today - 2 * 86400 + 5000);
  for (const r of ranges().slice(0, 6)) expectSame(r);
  // flush/logs: everything after a cut-off, then new queries arrive
  db.run("DELETE FROM query_storage WHERE timestamp >= ?", [today - 3.5 * 3600]);
  for (const r of ranges().slice(0, 12)) expectSame(r);
  fill(200, NOW - 60, NOW);
  for (const r of ranges().slice(0, 12)) expectSame(r);
  db.run("DELETE FROM query_storage");
  expect(dbSummary(db, { from: 1, until: NOW + 1 })).toEqual({
    sum_queries: 0,
    sum_blocked: 0,
    percent_blocked: 0,
    total_clients: 0,
  });
  fill(100, NOW - 3 * 3600, NOW);
  for (const r of ranges().slice(0, 8)) expectSame(r);
});

test("the rollups survive a reopen, and the file still opens as a query database", () => {
  catchUpRollups(db);
  db.close();
  db = openQueryDb(dir);
  store = new QueryStore(db);
  fill(100, NOW - 5 * 3600, NOW);
  expect(ensureRollups(db).ready).toBe(true);
  for (const r of ranges().slice(0, 8)) expectSame(r);
  // Pi-hole's own tables and view are untouched
  expect(db.query("SELECT COUNT(*) AS n FROM queries").get()).toEqual({ n: 6100 });
});
