// Hourly (and 10-minute) rollups of query_storage, so the /api/stats/database/* and
// /api/history/database* aggregates over days read a few thousand pre-summed rows instead of
// scanning every query. They live in Moat's own `moat_rollup_*` tables of the query database;
// Pi-hole's tables are only read, so Pi-hole can still open the file.
//
// Nothing on the insert path knows about them. They are brought up to date when a database
// statistic is asked for (and, while a large backlog remains, by short background steps):
//
//   rolled set = rows with  low <= timestamp < boundary  and  id <= maxid
//
// Hours [low, boundary) are complete: an answer takes them from the rollups and scans the raw
// rows only for the partial hours at the range's edges. Moving `boundary` to the current hour
// adds the rows of the newly complete hours; moving `maxid` adds rows that were written late
// into already complete hours (the writer flushes every DBinterval seconds). This relies on ids
// growing in write order, which holds for Pi-hole's AUTOINCREMENT table and Moat's writer.
//
// Rows are deleted by two paths this module does not own: pruning (database.maxDBdays: every
// row older than a cut-off) and POST /api/action/flush/logs (every row newer than a cut-off).
// Both remove a time prefix or suffix, so checking the two ends of the rolled hours is enough:
// the oldest surviving timestamp moves `low` past emptied hours (a partially pruned hour is
// handed back to the raw scan), and the newest rolled hours are re-counted and rebuilt until one
// matches. Deleting rows from the middle of the range by hand is not detected (see resetRollups).
import type { Database } from "bun:sqlite";
import { BLOCKED_STATUSES, Status } from "../query/enums.ts";

const HOUR = 3600;
export const DAY = 86400;
/** Pi-hole's history slot (10 minutes), the same as the 24 h window's (src/stats/window.ts). */
export const SLOT_SECONDS = 600;
/** Bump when a table's shape or meaning changes: the rollups are then rebuilt from scratch. */
const VERSION = 2;

const BLOCKED = [...BLOCKED_STATUSES].join(",");
export const FORWARDED_SQL = [Status.FORWARDED, Status.RETRIED, Status.RETRIED_DNSSEC].join(",");
const HOUR_OF = `CAST(timestamp / ${HOUR} AS INTEGER) * ${HOUR}`;
/** A query_storage row's history slot, in SQL. */
export const SLOT_OF = `CAST(timestamp / ${SLOT_SECONDS} AS INTEGER) * ${SLOT_SECONDS}`;
const DAY_OF = `CAST(timestamp / ${DAY} AS INTEGER) * ${DAY}`;

interface Spec {
  table: string;
  /** the bucket column: `h` (hour start), `slot` (10-minute slot start) or `d` (UTC day start) */
  bucket: "h" | "slot" | "d";
  columns: string;
  key: string;
  create: string;
  /** aggregate over query_storage rows, in `columns` order */
  select: string;
  /** extra row filter */
  only?: string;
  add: string;
}

const SPECS: readonly Spec[] = [
  {
    table: "moat_rollup_hour",
    bucket: "h",
    columns: "h, n",
    key: "h",
    create: "h INTEGER PRIMARY KEY, n INTEGER NOT NULL",
    select: `${HOUR_OF}, COUNT(*)`,
    add: "n = n + excluded.n",
  },
  {
    table: "moat_rollup_slot",
    bucket: "slot",
    columns: "slot, status, type, n",
    key: "slot, status, type",
    create:
      "slot INTEGER NOT NULL, status INTEGER NOT NULL, type INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (slot, status, type)",
    select: `${SLOT_OF}, status, type, COUNT(*)`,
    add: "n = n + excluded.n",
  },
  {
    table: "moat_rollup_client",
    bucket: "h",
    columns: "h, client, n, blocked",
    key: "h, client",
    create:
      "h INTEGER NOT NULL, client INTEGER NOT NULL, n INTEGER NOT NULL, blocked INTEGER NOT NULL, PRIMARY KEY (h, client)",
    select: `${HOUR_OF}, client, COUNT(*), SUM(status IN (${BLOCKED}))`,
    add: "n = n + excluded.n, blocked = blocked + excluded.blocked",
  },
  {
    table: "moat_rollup_client_slot",
    bucket: "slot",
    columns: "slot, client, n",
    key: "slot, client",
    create: "slot INTEGER NOT NULL, client INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (slot, client)",
    select: `${SLOT_OF}, client, COUNT(*)`,
    add: "n = n + excluded.n",
  },
  {
    table: "moat_rollup_domain",
    bucket: "h",
    columns: "h, domain, n, blocked",
    key: "h, domain",
    create:
      "h INTEGER NOT NULL, domain INTEGER NOT NULL, n INTEGER NOT NULL, blocked INTEGER NOT NULL, PRIMARY KEY (h, domain)",
    select: `${HOUR_OF}, domain, COUNT(*), SUM(status IN (${BLOCKED}))`,
    add: "n = n + excluded.n, blocked = blocked + excluded.blocked",
  },
  // Domains barely compress per hour (a long tail of rarely asked names), so whole days are
  // summed once more: a week reads ~7 day rows per domain instead of ~168 hour rows.
  {
    table: "moat_rollup_domain_day",
    bucket: "d",
    columns: "d, domain, n, blocked",
    key: "d, domain",
    create:
      "d INTEGER NOT NULL, domain INTEGER NOT NULL, n INTEGER NOT NULL, blocked INTEGER NOT NULL, PRIMARY KEY (d, domain)",
    select: `${DAY_OF}, domain, COUNT(*), SUM(status IN (${BLOCKED}))`,
    add: "n = n + excluded.n, blocked = blocked + excluded.blocked",
  },
  {
    table: "moat_rollup_forward",
    bucket: "h",
    columns: "h, forward, n, s, s2",
    key: "h, forward",
    create:
      "h INTEGER NOT NULL, forward INTEGER NOT NULL, n INTEGER NOT NULL, s REAL NOT NULL, s2 REAL NOT NULL, PRIMARY KEY (h, forward)",
    select: `${HOUR_OF}, forward, COUNT(*), TOTAL(reply_time), TOTAL(reply_time * reply_time)`,
    only: `forward IS NOT NULL AND status IN (${FORWARDED_SQL})`,
    add: "n = n + excluded.n, s = s + excluded.s, s2 = s2 + excluded.s2",
  },
];

/** What the rollups cover right now: hours [low, boundary), when `ready`. */
interface Coverage {
  ready: boolean;
  low: number;
  boundary: number;
}

interface State {
  low: number;
  boundary: number;
  maxid: number;
}

/** Per connection: prepared-once flags and the background catch-up timer. */
const conns = new WeakMap<Database, { timer: ReturnType<typeof setTimeout> | null }>();

// The unary `+` keeps SQLite on the intended index: the timestamp index for an hour range, the
// rowid for an id range (either term alone would also be a valid, but far larger, range).
const IN_HOURS = "timestamp >= ? AND timestamp < ? AND +id <= ?";
const IN_IDS = "id > ? AND id <= ? AND +timestamp >= ? AND +timestamp < ?";

const floorHour = (t: number) => Math.floor(t / HOUR) * HOUR;

function setup(db: Database): void {
  if (conns.has(db)) return;
  db.exec(
    "CREATE TABLE IF NOT EXISTS moat_rollup_state (id INTEGER PRIMARY KEY CHECK (id = 0), version INTEGER NOT NULL, low INTEGER NOT NULL, boundary INTEGER NOT NULL, maxid INTEGER NOT NULL)",
  );
  const st = db.query("SELECT version FROM moat_rollup_state WHERE id = 0").get() as { version: number } | null;
  db.transaction(() => {
    if (st && st.version !== VERSION) for (const s of SPECS) db.exec(`DROP TABLE IF EXISTS ${s.table}`);
    for (const s of SPECS)
      db.exec(
        `CREATE TABLE IF NOT EXISTS ${s.table} (${s.create})${s.table === "moat_rollup_hour" ? "" : " WITHOUT ROWID"}`,
      );
    if (!st || st.version !== VERSION)
      db.query(
        "INSERT OR REPLACE INTO moat_rollup_state (id, version, low, boundary, maxid) VALUES (0, ?, 0, 0, 0)",
      ).run(VERSION);
  })();
  conns.set(db, { timer: null });
}

function readState(db: Database): State {
  return db.query("SELECT low, boundary, maxid FROM moat_rollup_state WHERE id = 0").get() as State;
}

function writeState(db: Database, s: State): void {
  db.query("UPDATE moat_rollup_state SET low = ?, boundary = ?, maxid = ? WHERE id = 0").run(
    s.low,
    s.boundary,
    s.maxid,
  );
}

/** Adds the aggregates of the query_storage rows matching `where` to every rollup table. */
function addRows(db: Database, where: string, args: number[]): void {
  for (const s of SPECS) {
    db.query(
      `INSERT INTO ${s.table} (${s.columns}) SELECT ${s.select} FROM query_storage WHERE ${where}${s.only ? ` AND ${s.only}` : ""}
       GROUP BY ${s.key
         .split(",")
         .map((_, i) => i + 1)
         .join(", ")} ON CONFLICT (${s.key}) DO UPDATE SET ${s.add}`,
    ).run(...args);
  }
}

/** Removes the rollups of the hours [from, until). */
function dropBuckets(db: Database, from: number, until: number): void {
  if (from <= -Number.MAX_VALUE) {
    for (const s of SPECS) db.exec(`DELETE FROM ${s.table}`);
    return;
  }
  // A day row keeps its other hours: it loses exactly what the dropped hours held.
  db.query(
    `INSERT INTO moat_rollup_domain_day (d, domain, n, blocked) SELECT CAST(h / ${DAY} AS INTEGER) * ${DAY}, domain, -SUM(n), -SUM(blocked)
     FROM moat_rollup_domain WHERE h >= ? AND h < ? GROUP BY 1, 2 ON CONFLICT (d, domain) DO UPDATE SET n = n + excluded.n, blocked = blocked + excluded.blocked`,
  ).run(from, until);
  db.query("DELETE FROM moat_rollup_domain_day WHERE d >= ? AND d < ? AND n = 0").run(
    Math.floor(from / DAY) * DAY,
    until,
  );
  for (const s of SPECS)
    if (s.bucket !== "d")
      db.query(`DELETE FROM ${s.table} WHERE ${s.bucket} >= ? AND ${s.bucket} < ?`).run(from, until);
}

function rolledCount(db: Database, h: number): number {
  return (db.query("SELECT n FROM moat_rollup_hour WHERE h = ?").get(h) as { n: number } | null)?.n ?? 0;
}

function rawCount(db: Database, h: number, maxid: number): number {
  return (
    db.query(`SELECT COUNT(*) AS n FROM query_storage WHERE ${IN_HOURS}`).get(h, h + HOUR, maxid) as { n: number }
  ).n;
}

/** Follows deletions at both ends of the rolled hours (pruning, flush/logs). */
function followDeletions(db: Database, st: State): void {
  if (st.boundary <= st.low) return;
  const mt = (db.query("SELECT MIN(timestamp) AS t FROM query_storage").get() as { t: number | null }).t;
  if (mt === null) {
    dropBuckets(db, -Number.MAX_VALUE, Number.MAX_VALUE);
    st.low = st.boundary;
    return;
  }
  // Hours before the oldest row are empty now; the oldest hour itself may be partly pruned, and
  // pruning nibbles at it every minute, so it goes back to the raw scan instead of being rebuilt.
  const h0 = floorHour(mt);
  if (h0 > st.low) {
    const low = Math.min(h0, st.boundary);
    dropBuckets(db, st.low, low);
    st.low = low;
  }
  if (h0 >= st.low && h0 < st.boundary && rawCount(db, h0, st.maxid) !== rolledCount(db, h0)) {
    dropBuckets(db, h0, h0 + HOUR);
    st.low = h0 + HOUR;
  }
  // flush/logs removes everything newer than a cut-off: walk down from the newest rolled hour
  // and rebuild each hour whose count changed, until one still matches.
  let below = st.boundary;
  for (;;) {
    const last = (
      db.query("SELECT MAX(h) AS h FROM moat_rollup_hour WHERE h < ? AND h >= ?").get(below, st.low) as {
        h: number | null;
      }
    ).h;
    if (last === null) break;
    const n = rawCount(db, last, st.maxid);
    if (n === rolledCount(db, last)) break;
    dropBuckets(db, last, last + HOUR);
    if (n > 0) addRows(db, IN_HOURS, [last, last + HOUR, st.maxid]);
    below = last;
  }
}

/** Rows per catch-up step: one step is one short write transaction. */
const STEP_ROWS = 50_000;
const STEP_HOURS = 6;

/**
 * Brings the rollups up to date, spending at most about `budgetMs` (a large backlog, e.g. the
 * first request on a big database, continues in background steps). Never throws: on any error
 * the answer is simply "not ready" and callers scan the raw rows.
 */
export function ensureRollups(db: Database, budgetMs = 100, now = Date.now() / 1000): Coverage {
  const t0 = performance.now();
  try {
    setup(db);
    const target = floorHour(now);
    const top = (db.query("SELECT MAX(id) AS m FROM query_storage").get() as { m: number | null }).m ?? 0;
    let st = readState(db);
    db.transaction(() => {
      st = readState(db);
      followDeletions(db, st);
      writeState(db, st);
    }).immediate();
    // Newly complete hours first (rows up to maxid), then the rows written since (ids above
    // maxid) for all complete hours. Each step is its own transaction so the writer is not held up.
    if (st.boundary === 0) {
      // First run: nothing is rolled yet, so start where the data starts.
      const mt = (db.query("SELECT MIN(timestamp) AS t FROM query_storage").get() as { t: number | null }).t;
      st.low = st.boundary = Math.min(target, mt === null ? target : floorHour(mt));
      writeState(db, st);
    }
    while (st.boundary < target && performance.now() - t0 < budgetMs) {
      const next = Math.min(target, st.boundary + STEP_HOURS * HOUR);
      db.transaction(() => {
        if (st.maxid > 0) addRows(db, IN_HOURS, [st.boundary, next, st.maxid]);
        st.boundary = next;
        writeState(db, st);
      }).immediate();
    }
    while (st.boundary >= target && st.maxid < top && performance.now() - t0 < budgetMs) {
      const upto = Math.min(top, st.maxid + STEP_ROWS);
      db.transaction(() => {
        addRows(db, IN_IDS, [st.maxid, upto, st.low, st.boundary]);
        st.maxid = upto;
        writeState(db, st);
      }).immediate();
    }
    const ready = st.boundary >= target && st.maxid >= top;
    if (!ready) scheduleCatchUp(db);
    return { ready, low: st.low, boundary: st.boundary };
  } catch {
    return { ready: false, low: 0, boundary: 0 };
  }
}

/** Continues a large backlog in short steps between requests (and DNS work). */
function scheduleCatchUp(db: Database): void {
  const c = conns.get(db);
  if (!c || c.timer) return;
  c.timer = setTimeout(() => {
    c.timer = null;
    try {
      ensureRollups(db, 30);
    } catch {
      // the database may have been closed: stop quietly
    }
  }, 20);
  (c.timer as { unref?: () => void }).unref?.();
}

/** Runs the catch-up to the end (benchmarks, tests). */
export function catchUpRollups(db: Database, now = Date.now() / 1000): Coverage {
  return ensureRollups(db, Number.POSITIVE_INFINITY, now);
}

/**
 * Forgets every rollup; the next request rebuilds them. For code that deletes query_storage
 * rows other than an old prefix or a recent suffix.
 */
export function resetRollups(db: Database): void {
  setup(db);
  db.transaction(() => {
    dropBuckets(db, -Number.MAX_VALUE, Number.MAX_VALUE);
    writeState(db, { low: 0, boundary: 0, maxid: 0 });
  })();
}

/**
 * How a range [from, until] (both inclusive, like Pi-hole's SQL) splits: complete hours
 * [full0, full1) come from the rollups, the rest from two raw edges, each `timestamp >= lo AND
 * timestamp < hi AND timestamp <= until`. An empty part has lo = hi.
 */
export interface Split {
  full: [number, number];
  edges: [[number, number], [number, number]];
  until: number;
}

export function splitRange(from: number, until: number, c: Coverage): Split {
  const none: [number, number] = [0, 0];
  const a = Math.max(Math.ceil(from / HOUR) * HOUR, c.low);
  const e = Math.min(floorHour(until), c.boundary);
  if (!c.ready || !(a < e) || !(from <= until)) return { full: none, edges: [[from, Number.MAX_VALUE], none], until };
  return {
    full: [a, e],
    edges: [
      [from, a],
      [e, Number.MAX_VALUE],
    ],
    until,
  };
}
