// The /api/stats/database/* and /api/history/database* numbers: aggregates over a time range
// of a database in Pi-hole's layout, each one indexed query on query_storage.
import type { Database } from "bun:sqlite";
import { BLOCKED_STATUSES, QUERY_TYPES, Status } from "./enums.ts";
import { SLOT_SECONDS } from "./window.ts";

const BLOCKED = [...BLOCKED_STATUSES].join(",");
const FORWARDED = [Status.FORWARDED, Status.RETRIED, Status.RETRIED_DNSSEC].join(",");
const CACHED = [Status.CACHE, Status.CACHE_STALE].join(",");

export interface Range {
  from: number;
  until: number;
}

export function dbSummary(db: Database, r: Range) {
  const x = db
    .query(
      `SELECT COUNT(*) AS total, COALESCE(SUM(status IN (${BLOCKED})), 0) AS blocked, COUNT(DISTINCT client) AS clients
       FROM query_storage WHERE timestamp >= ? AND timestamp <= ?`,
    )
    .get(r.from, r.until) as { total: number; blocked: number; clients: number };
  return {
    sum_queries: x.total,
    sum_blocked: x.blocked,
    percent_blocked: x.total ? (100 * x.blocked) / x.total : 0,
    total_clients: x.clients,
  };
}

function totals(db: Database, r: Range) {
  return db
    .query(`SELECT COUNT(*) AS total, COALESCE(SUM(status IN (${BLOCKED})), 0) AS blocked FROM query_storage WHERE timestamp >= ? AND timestamp <= ?`)
    .get(r.from, r.until) as { total: number; blocked: number };
}

/** blocked: true = blocked only, false = permitted only, null = all. */
export function dbTop(db: Database, r: Range, what: "domain" | "client", blocked: boolean | null, count: number) {
  const filter = blocked === null ? "1" : blocked ? `status IN (${BLOCKED})` : `status NOT IN (${BLOCKED})`;
  const [table, col] = what === "domain" ? ["domain_by_id", "domain"] : ["client_by_id", "ip"];
  const rows = db
    .query(
      `SELECT t.${col} AS k, ${what === "client" ? "t.name" : "NULL"} AS name, x.n FROM
         (SELECT ${what} AS id, COUNT(*) AS n FROM query_storage WHERE timestamp >= ? AND timestamp <= ? AND ${filter} GROUP BY ${what}) x
       JOIN ${table} t ON t.id = x.id ORDER BY x.n DESC, k LIMIT ?`,
    )
    .all(r.from, r.until, count > 0 ? count : -1) as Array<{ k: string; name: string | null; n: number }>;
  const t = totals(db, r);
  return { rows, total_queries: t.total, blocked_queries: t.blocked };
}

export function dbUpstreams(db: Database, r: Range) {
  const rows = db
    .query(
      `SELECT f.forward, x.n, x.s, x.s2 FROM
         (SELECT forward, COUNT(*) AS n, SUM(reply_time) AS s, SUM(reply_time * reply_time) AS s2 FROM query_storage
          WHERE timestamp >= ? AND timestamp <= ? AND forward IS NOT NULL AND status IN (${FORWARDED}) GROUP BY forward) x
       JOIN forward_by_id f ON f.id = x.forward ORDER BY x.n DESC`,
    )
    .all(r.from, r.until) as Array<{ forward: string; n: number; s: number; s2: number }>;
  const c = db
    .query(
      `SELECT COUNT(*) AS total, COALESCE(SUM(status IN (${BLOCKED})), 0) AS blocked, COALESCE(SUM(status IN (${CACHED})), 0) AS cached,
              COALESCE(SUM(status IN (${FORWARDED})), 0) AS forwarded
       FROM query_storage WHERE timestamp >= ? AND timestamp <= ?`,
    )
    .get(r.from, r.until) as { total: number; blocked: number; cached: number; forwarded: number };
  return { rows: rows.map((x) => ({ upstream: x.forward, count: x.n, sum: x.s ?? 0, sumSq: x.s2 ?? 0 })), ...c };
}

export function dbQueryTypes(db: Database, r: Range): Record<string, number> {
  const rows = db
    .query("SELECT type, COUNT(*) AS n FROM query_storage WHERE timestamp >= ? AND timestamp <= ? GROUP BY type")
    .all(r.from, r.until) as Array<{ type: number; n: number }>;
  const out = Object.fromEntries(QUERY_TYPES.map((t) => [t, 0])) as Record<string, number>;
  for (const x of rows) {
    const name = x.type >= 1 && x.type <= QUERY_TYPES.length ? QUERY_TYPES[x.type - 1]! : "OTHER";
    out[name]! += x.n;
  }
  return out;
}

/** 10-minute slots covering the range, empty ones included. */
function slotKeys(r: Range): number[] {
  const first = Math.floor(r.from / SLOT_SECONDS) * SLOT_SECONDS;
  const out: number[] = [];
  for (let t = first; t <= r.until && out.length < 100_000; t += SLOT_SECONDS) out.push(t);
  return out;
}

export function dbHistory(db: Database, r: Range) {
  const rows = db
    .query(
      `SELECT CAST(timestamp / ${SLOT_SECONDS} AS INTEGER) * ${SLOT_SECONDS} AS slot, COUNT(*) AS total,
              SUM(status IN (${BLOCKED})) AS blocked, SUM(status IN (${CACHED})) AS cached, SUM(status IN (${FORWARDED})) AS forwarded
       FROM query_storage WHERE timestamp >= ? AND timestamp <= ? GROUP BY slot`,
    )
    .all(r.from, r.until) as Array<{ slot: number; total: number; blocked: number; cached: number; forwarded: number }>;
  const by = new Map(rows.map((x) => [x.slot, x]));
  return slotKeys(r).map((ts) => {
    const x = by.get(ts);
    return { timestamp: ts, total: x?.total ?? 0, cached: x?.cached ?? 0, blocked: x?.blocked ?? 0, forwarded: x?.forwarded ?? 0 };
  });
}

export function dbHistoryClients(db: Database, r: Range) {
  const rows = db
    .query(
      `SELECT CAST(q.timestamp / ${SLOT_SECONDS} AS INTEGER) * ${SLOT_SECONDS} AS slot, c.ip, c.name, COUNT(*) AS n
       FROM query_storage q JOIN client_by_id c ON c.id = q.client WHERE q.timestamp >= ? AND q.timestamp <= ? GROUP BY slot, q.client`,
    )
    .all(r.from, r.until) as Array<{ slot: number; ip: string; name: string | null; n: number }>;
  return { slots: slotKeys(r), rows };
}
