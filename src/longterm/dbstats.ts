// The /api/stats/database/* and /api/history/database* numbers: aggregates over a time range of a
// database in Pi-hole's layout. Complete hours come from the rollups (rollup.ts), the partial
// hours at the edges from an indexed scan of query_storage; each answer is one SQL statement
// that adds both, so it equals the plain scan of the whole range.
import type { Database } from "bun:sqlite";
import { BLOCKED_STATUSES, QUERY_TYPES, Status } from "../query/enums.ts";
import { DAY, ensureRollups, FORWARDED_SQL, SLOT_OF, SLOT_SECONDS, splitRange, type Split } from "./rollup.ts";

const BLOCKED = [...BLOCKED_STATUSES].join(",");
const CACHED = [Status.CACHE, Status.CACHE_STALE].join(",");
/** A raw edge of the range: see Split. */
const EDGE = "timestamp >= ? AND timestamp < ? AND timestamp <= ?";

export interface Range {
  from: number;
  until: number;
}

/** The range split into rolled-up hours and raw edges, with the rollups brought up to date. */
function split(db: Database, r: Range): Split {
  return splitRange(r.from, r.until, ensureRollups(db));
}

/**
 * `rolled` (over a bucket range, two `?`) and `raw` (over an EDGE, three `?`), one for each part
 * the split has, glued with UNION ALL.
 */
function parts(s: Split, rolled: string, raw: string, daily?: string): { sql: string; args: number[] } {
  const sql: string[] = [];
  const args: number[] = [];
  const [a, e] = s.full;
  const d0 = Math.ceil(a / DAY) * DAY;
  const d1 = Math.floor(e / DAY) * DAY;
  if (daily && a < e && d0 < d1) {
    // whole days from the day rollup, the hours around them from the hourly one
    for (const [lo, hi, q] of [
      [a, d0, rolled],
      [d0, d1, daily],
      [d1, e, rolled],
    ] as const) {
      if (!(lo < hi)) continue;
      sql.push(q);
      args.push(lo, hi);
    }
  } else if (a < e) {
    sql.push(rolled);
    args.push(a, e);
  }
  for (const [lo, hi] of s.edges) {
    if (!(lo < hi)) continue;
    sql.push(raw);
    args.push(lo, hi, s.until);
  }
  if (!sql.length) {
    sql.push(raw);
    args.push(0, 0, 0);
  }
  return { sql: sql.join(" UNION ALL "), args };
}

interface Counts {
  total: number;
  blocked: number;
  cached: number;
  forwarded: number;
}

function counts(db: Database, s: Split): Counts {
  const p = parts(
    s,
    `SELECT SUM(n) AS t, SUM(CASE WHEN status IN (${BLOCKED}) THEN n END) AS b, SUM(CASE WHEN status IN (${CACHED}) THEN n END) AS c,
            SUM(CASE WHEN status IN (${FORWARDED_SQL}) THEN n END) AS f FROM moat_rollup_slot WHERE slot >= ? AND slot < ?`,
    `SELECT COUNT(*) AS t, SUM(status IN (${BLOCKED})) AS b, SUM(status IN (${CACHED})) AS c, SUM(status IN (${FORWARDED_SQL})) AS f FROM query_storage WHERE ${EDGE}`,
  );
  return db
    .query(
      `SELECT COALESCE(SUM(t), 0) AS total, COALESCE(SUM(b), 0) AS blocked, COALESCE(SUM(c), 0) AS cached, COALESCE(SUM(f), 0) AS forwarded FROM (${p.sql})`,
    )
    .get(...p.args) as Counts;
}

export function dbSummary(db: Database, r: Range) {
  const s = split(db, r);
  const c = counts(db, s);
  // Distinct clients do not add up across hours: the union of each hour's client ids does.
  const p = parts(
    s,
    "SELECT client FROM moat_rollup_client WHERE h >= ? AND h < ?",
    `SELECT client FROM query_storage WHERE ${EDGE}`,
  );
  const clients = (db.query(`SELECT COUNT(DISTINCT client) AS n FROM (${p.sql})`).get(...p.args) as { n: number }).n;
  return {
    sum_queries: c.total,
    sum_blocked: c.blocked,
    percent_blocked: c.total ? (100 * c.blocked) / c.total : 0,
    total_clients: clients,
  };
}

/** blocked: true = blocked only, false = permitted only, null = all. Without `count` (≤ 0): every row. */
export function dbTop(db: Database, r: Range, what: "domain" | "client", blocked: boolean | null, count: number) {
  const s = split(db, r);
  const filter = blocked === null ? "1" : blocked ? `status IN (${BLOCKED})` : `status NOT IN (${BLOCKED})`;
  const metric = blocked === null ? "n" : blocked ? "blocked" : "n - blocked";
  const [table, col] = what === "domain" ? ["domain_by_id", "domain"] : ["client_by_id", "ip"];
  const p = parts(
    s,
    `SELECT ${what} AS id, ${metric} AS n FROM moat_rollup_${what} WHERE h >= ? AND h < ?`,
    `SELECT ${what} AS id, COUNT(*) AS n FROM query_storage WHERE ${EDGE} AND ${filter} GROUP BY ${what}`,
    what === "domain"
      ? `SELECT domain AS id, ${metric} AS n FROM moat_rollup_domain_day WHERE d >= ? AND d < ?`
      : undefined,
  );
  const rows = db
    .query(
      `SELECT t.${col} AS k, ${what === "client" ? "t.name" : "NULL"} AS name, x.n FROM
         (SELECT id, SUM(n) AS n FROM (${p.sql}) GROUP BY id HAVING SUM(n) > 0) x
       JOIN ${table} t ON t.id = x.id ORDER BY x.n DESC, k LIMIT ?`,
    )
    .all(...p.args, count > 0 ? count : -1) as Array<{ k: string; name: string | null; n: number }>;
  const t = counts(db, s);
  return { rows, total_queries: t.total, blocked_queries: t.blocked };
}

export function dbUpstreams(db: Database, r: Range) {
  const s = split(db, r);
  const p = parts(
    s,
    "SELECT forward, n, s, s2 FROM moat_rollup_forward WHERE h >= ? AND h < ?",
    `SELECT forward, COUNT(*) AS n, TOTAL(reply_time) AS s, TOTAL(reply_time * reply_time) AS s2 FROM query_storage
     WHERE ${EDGE} AND forward IS NOT NULL AND status IN (${FORWARDED_SQL}) GROUP BY forward`,
  );
  const rows = db
    .query(
      `SELECT f.forward, x.n, x.s, x.s2 FROM (SELECT forward, SUM(n) AS n, SUM(s) AS s, SUM(s2) AS s2 FROM (${p.sql}) GROUP BY forward) x
       JOIN forward_by_id f ON f.id = x.forward ORDER BY x.n DESC`,
    )
    .all(...p.args) as Array<{ forward: string; n: number; s: number; s2: number }>;
  return {
    rows: rows.map((x) => ({ upstream: x.forward, count: x.n, sum: x.s ?? 0, sumSq: x.s2 ?? 0 })),
    ...counts(db, s),
  };
}

export function dbQueryTypes(db: Database, r: Range): Record<string, number> {
  const p = parts(
    split(db, r),
    "SELECT type, n FROM moat_rollup_slot WHERE slot >= ? AND slot < ?",
    `SELECT type, COUNT(*) AS n FROM query_storage WHERE ${EDGE} GROUP BY type`,
  );
  const rows = db.query(`SELECT type, SUM(n) AS n FROM (${p.sql}) GROUP BY type`).all(...p.args) as Array<{
    type: number;
    n: number;
  }>;
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
  const p = parts(
    split(db, r),
    `SELECT slot, n AS t, CASE WHEN status IN (${BLOCKED}) THEN n ELSE 0 END AS b, CASE WHEN status IN (${CACHED}) THEN n ELSE 0 END AS c,
            CASE WHEN status IN (${FORWARDED_SQL}) THEN n ELSE 0 END AS f FROM moat_rollup_slot WHERE slot >= ? AND slot < ?`,
    `SELECT ${SLOT_OF} AS slot, COUNT(*) AS t, SUM(status IN (${BLOCKED})) AS b, SUM(status IN (${CACHED})) AS c, SUM(status IN (${FORWARDED_SQL})) AS f
     FROM query_storage WHERE ${EDGE} GROUP BY 1`,
  );
  const rows = db
    .query(
      `SELECT slot, SUM(t) AS total, SUM(b) AS blocked, SUM(c) AS cached, SUM(f) AS forwarded FROM (${p.sql}) GROUP BY slot`,
    )
    .all(...p.args) as Array<{ slot: number; total: number; blocked: number; cached: number; forwarded: number }>;
  const by = new Map(rows.map((x) => [x.slot, x]));
  return slotKeys(r).map((ts) => {
    const x = by.get(ts);
    return {
      timestamp: ts,
      total: x?.total ?? 0,
      cached: x?.cached ?? 0,
      blocked: x?.blocked ?? 0,
      forwarded: x?.forwarded ?? 0,
    };
  });
}

export function dbHistoryClients(db: Database, r: Range) {
  const p = parts(
    split(db, r),
    "SELECT slot, client, n FROM moat_rollup_client_slot WHERE slot >= ? AND slot < ?",
    `SELECT ${SLOT_OF} AS slot, client, COUNT(*) AS n FROM query_storage WHERE ${EDGE} GROUP BY 1, 2`,
  );
  const rows = db
    .query(
      `SELECT x.slot, c.ip, c.name, x.n FROM (SELECT slot, client, SUM(n) AS n FROM (${p.sql}) GROUP BY slot, client) x
       JOIN client_by_id c ON c.id = x.client`,
    )
    .all(...p.args) as Array<{ slot: number; ip: string; name: string | null; n: number }>;
  return { slots: slotKeys(r), rows };
}
