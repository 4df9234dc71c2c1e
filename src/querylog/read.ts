// /api/queries over a database in Pi-hole's layout: filters → one SQL statement, newest first,
// paged by cursor (an id upper bound, so new queries do not shift pages) and offset.
import type { Database } from "bun:sqlite";
import {
  BLOCKED_STATUSES,
  DNSSEC_STATUS,
  QUERY_STATUS,
  QUERY_TYPES,
  REPLY_TYPE,
  Status,
  queryTypeName,
} from "../query/enums.ts";
import { ADDINFO_CNAME, type StoredQueryRow } from "./store.ts";

/** Hard cap of rows in one reply, whatever `length` asks. */
const MAX_ROWS = 100_000;

export interface QueryFilter {
  from?: number;
  until?: number;
  length?: number;
  start?: number;
  cursor?: number;
  domain?: string;
  client_ip?: string;
  client_name?: string;
  upstream?: string;
  type?: string;
  status?: string;
  reply?: string;
  dnssec?: string;
  /** DataTables free-text searches (columns[3] = domain, columns[4] = client) */
  domainSearch?: string;
  clientSearch?: string;
  /** DataTables ordering: the column's `data` name (time, domain, client.ip, …) and asc/desc */
  order?: { column: string; dir: string };
  /** rows to leave out (webserver.api.excludeDomains / excludeClients) */
  hide?: {
    domain: (domain: string) => boolean;
    /** equal keys, equal `domain` tests: the 24 h window keeps each name's answer (stats/tallies.ts) */
    domainKey?: string;
    client: (ip: string, name: string | null) => boolean;
  };
  /** ip → host name for clients the database has no name for */
  names?: ReadonlyMap<string, string>;
}

/** DataTables column names Pi-hole sorts by, and their SQL. Anything else: newest first. */
const ORDER_COLUMNS: Record<string, string> = {
  time: "q.timestamp",
  domain: "d.domain",
  "client.ip": "c.ip",
  "client.name": "c.name",
  upstream: "fw.forward",
  type: "q.type",
  status: "q.status",
  reply: "q.reply_type",
  "reply.time": "q.reply_time",
  dnssec: "q.dnssec",
  list_id: "q.list_id",
  ede: "q.ede",
};
const ORDER_DIRS: Record<string, string> = { asc: "ASC", ascending: "ASC", desc: "DESC", descending: "DESC" };

function orderBy(o: QueryFilter["order"]): string {
  const col = o && ORDER_COLUMNS[o.column.toLowerCase()];
  const dir = o && ORDER_DIRS[o.dir.toLowerCase()];
  // the id breaks ties, so pages stay stable
  return col && dir ? `${col} ${dir}, q.id DESC` : "q.id DESC";
}

/** `*` wildcard pattern → a case-insensitive whole-string RegExp (LIKE's semantics for names kept outside SQL). */
export function wildcard(p: string): RegExp {
  return new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`, "i");
}

/** A filter value the API rejects with 400 bad_request: message and hint. */
export class FilterError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

export interface QueryRow {
  id: number;
  time: number;
  type: string;
  domain: string;
  cname: string | null;
  status: string;
  client: { ip: string; name: string | null };
  dnssec: string;
  reply: { type: string; time: number };
  list_id: number | null;
  upstream: string | null;
  ede: { code: number; text: string | null };
  /** Moat's own: the answer records (null for none, and for queries stored before Moat kept them), left out in Pi-hole compatibility mode */
  answers?: string | null;
}

export interface QueryPage {
  queries: QueryRow[];
  cursor: number;
  recordsTotal: number;
  recordsFiltered: number;
}

const BLOCKED_SQL = [...BLOCKED_STATUSES].join(",");
const CACHE_SQL = [Status.CACHE, Status.CACHE_STALE].join(",");

/** `*` wildcards → LIKE pattern (with `\` escaping the LIKE metacharacters of the input). */
function likePattern(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, "%");
}

export function enumValue(list: readonly string[], name: string, what: string): number {
  const i = list.findIndex((x) => x.toLowerCase() === name.toLowerCase());
  if (i < 0) throw new FilterError(`Requested ${what} is invalid`, name);
  return i;
}

/** The query type filter: a name, OTHER (every 100+qtype, and ANY) or TYPEnnn; -1 for OTHER, else the database type. */
export function typeFilter(name: string): number {
  const upper = name.toUpperCase();
  if (upper === "OTHER") return -1;
  const i = QUERY_TYPES.indexOf(upper as (typeof QUERY_TYPES)[number]);
  if (i >= 0) return i + 1;
  const m = /^TYPE(\d{1,5})$/.exec(upper);
  if (m && Number(m[1]) <= 65535) return 100 + Number(m[1]);
  throw new FilterError("Requested type is invalid", name);
}

/** Whether a database type is in OTHER: every 100+qtype, and ANY (14). */
export function isOtherType(type: number): boolean {
  return type >= 100 || type === 14;
}

/** The largest `length` honours; none asked: 100. */
export function pageLength(length: number | undefined): number {
  return !length || length <= 0 || length > MAX_ROWS ? (length === undefined ? 100 : MAX_ROWS) : length;
}

/** A row as both query logs' readers produce it, before the client's name is looked up. */
export type LogRow = StoredQueryRow & { name: string | null };

/** A row in /api/queries' shape. */
export function formatRow(x: LogRow, names: ReadonlyMap<string, string> | undefined): QueryRow {
  return {
    id: x.id,
    time: x.timestamp,
    type: queryTypeName(x.type),
    domain: x.domain,
    cname: x.cname ?? null,
    status: QUERY_STATUS[x.status] ?? "UNKNOWN",
    client: { ip: x.ip, name: x.name ?? names?.get(x.ip) ?? null },
    dnssec: DNSSEC_STATUS[x.dnssec ?? 0] ?? "UNKNOWN",
    reply: { type: REPLY_TYPE[x.reply_type ?? 0] ?? "UNKNOWN", time: x.reply_time ?? 0 },
    list_id: x.list_id ?? null,
    upstream: x.forward ?? null,
    ede: { code: x.ede ?? -1, text: EDE_TEXT[x.ede ?? -1] ?? null },
    answers: x.answers ?? null,
  };
}

/** The time of the oldest query a query database holds (0 when empty); the timestamp index answers it. */
export function earliestQuery(db: Database): number {
  return (db.query("SELECT MIN(timestamp) AS t FROM query_storage").get() as { t: number | null }).t ?? 0;
}

/** ip → the host name stored with a client's queries (Pi-hole's client_by_id.name), where one is. */
export function storedClientNames(db: Database): Array<{ ip: string; name: string }> {
  return db.query("SELECT ip, name FROM client_by_id WHERE name IS NOT NULL AND name != ''").all() as Array<{
    ip: string;
    name: string;
  }>;
}

/** How many queries a query database holds, and the time of its oldest. */
export function storedQueries(db: Database): { count: number; earliest: number } {
  return {
    count: (db.query("SELECT COUNT(*) AS n FROM query_storage").get() as { n: number }).n,
    earliest: earliestQuery(db),
  };
}

export function queryPage(db: Database, f: QueryFilter): QueryPage {
  const where: string[] = [];
  const args: Array<string | number> = [];
  const add = (sql: string, ...a: Array<string | number>) => {
    where.push(sql);
    args.push(...a);
  };
  if (f.from !== undefined) add("q.timestamp >= ?", f.from);
  if (f.until !== undefined) add("q.timestamp <= ?", f.until);
  // Text filters resolve to lookup-table ids first: the tables are small and the ids are indexed.
  const idSet = (table: string, col: string) => `(SELECT id FROM ${table} WHERE ${col} LIKE ? ESCAPE '\\')`;
  if (f.domain) add(`q.domain IN ${idSet("domain_by_id", "domain")}`, likePattern(f.domain));
  if (f.client_ip) add(`q.client IN ${idSet("client_by_id", "ip")}`, likePattern(f.client_ip));
  if (f.client_name) {
    // names from the network table count too: their addresses join the stored names
    const re = wildcard(f.client_name);
    const ips = [...(f.names ?? [])].filter(([, n]) => re.test(n)).map(([ip]) => ip);
    add(
      `q.client IN (SELECT id FROM client_by_id WHERE name LIKE ? ESCAPE '\\' OR ip IN (${ips.map(() => "?").join(",")}))`,
      likePattern(f.client_name),
      ...ips,
    );
  }
  if (f.upstream) {
    const u = f.upstream.toLowerCase();
    if (u === "blocklist") where.push(`q.status IN (${BLOCKED_SQL})`);
    else if (u === "cache") where.push(`q.status IN (${CACHE_SQL})`);
    else if (u === "permitted") where.push(`q.status NOT IN (${BLOCKED_SQL})`);
    else add(`q.forward IN ${idSet("forward_by_id", "forward")}`, likePattern(f.upstream));
  }
  if (f.type) {
    const t = typeFilter(f.type);
    if (t < 0) where.push("(q.type >= 100 OR q.type = 14)");
    else add("q.type = ?", t);
  }
  if (f.status) add("q.status = ?", enumValue(QUERY_STATUS, f.status, "status"));
  if (f.reply) add("q.reply_type = ?", enumValue(REPLY_TYPE, f.reply, "reply"));
  if (f.dnssec) add("q.dnssec = ?", enumValue(DNSSEC_STATUS, f.dnssec, "dnssec"));
  if (f.domainSearch) add(`q.domain IN ${idSet("domain_by_id", "domain")}`, `%${likePattern(f.domainSearch)}%`);
  if (f.clientSearch)
    add(
      `q.client IN (SELECT id FROM client_by_id WHERE ip LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\')`,
      `%${likePattern(f.clientSearch)}%`,
      `%${likePattern(f.clientSearch)}%`,
    );

  if (f.hide) {
    // The lookup tables are small next to query_storage: test each name once, filter by id.
    const hide = f.hide;
    const doms = (
      db.query("SELECT id, domain FROM domain_by_id").all() as Array<{ id: number; domain: string }>
    ).filter((x) => hide.domain(x.domain));
    if (doms.length) where.push(`q.domain NOT IN (${doms.map((x) => x.id).join(",")})`);
    const cls = (
      db.query("SELECT id, ip, name FROM client_by_id").all() as Array<{ id: number; ip: string; name: string | null }>
    ).filter((x) => hide.client(x.ip, x.name ?? f.names?.get(x.ip) ?? null));
    if (cls.length) where.push(`q.client NOT IN (${cls.map((x) => x.id).join(",")})`);
  }

  const largest = (db.query("SELECT MAX(id) AS m FROM query_storage").get() as { m: number | null }).m ?? 0;
  let cursor = largest;
  if (f.cursor !== undefined) {
    if (!Number.isSafeInteger(f.cursor) || f.cursor < 0 || f.cursor > largest)
      throw new FilterError("Requested cursor is invalid", "Cursor larger than largest database index");
    cursor = f.cursor;
  }
  const filterSql = where.length ? `WHERE ${where.join(" AND ")}` : "";
  // The page walks ids downwards (newest first); a time range must not make SQLite sort a whole
  // range by id instead, hence `+` (no index) on the timestamp terms of the page query only. The
  // range bounds that walk through idsOfRange(), so a filter that matches little in it stops there.
  const ids = idsOfRange(db, f.from, f.until);
  const pageWhere = [...where.map((w) => w.replace(/^q\.timestamp/, "+q.timestamp")), "q.id >= ?", "q.id <= ?"];
  const length = pageLength(f.length);
  const rows = db
    .query(
      `SELECT q.id, q.timestamp, q.type, q.status, q.reply_type, q.reply_time, q.dnssec, q.list_id, q.ede,
              d.domain, c.ip, c.name, fw.forward, a.content AS cname, an.text AS answers
       FROM query_storage q
       JOIN domain_by_id d ON d.id = q.domain
       JOIN client_by_id c ON c.id = q.client
       LEFT JOIN forward_by_id fw ON fw.id = q.forward
       LEFT JOIN addinfo_by_id a ON a.id = q.additional_info AND a.type = ${ADDINFO_CNAME}
       LEFT JOIN moat_query_answer qa ON qa.id = q.id
       LEFT JOIN moat_answer_text an ON an.id = qa.answer
       WHERE ${pageWhere.join(" AND ")}
       ORDER BY ${orderBy(f.order)} LIMIT ? OFFSET ?`,
    )
    .all(...args, ids.low, Math.min(cursor, ids.high), length, f.start ?? 0) as LogRow[];
  const recordsTotal = (db.query("SELECT COUNT(*) AS n FROM query_storage").get() as { n: number }).n;
  const recordsFiltered = where.length
    ? (db.query(`SELECT COUNT(*) AS n FROM query_storage q ${filterSql}`).get(...args) as { n: number }).n
    : recordsTotal;
  return {
    queries: rows.map((x) => formatRow(x, f.names)),
    cursor,
    recordsTotal,
    recordsFiltered,
  };
}

/**
 * How far a query's id may stray from the order of the times, in seconds: ids are given as queries
 * are answered (a DNS thread's come over in batches a few milliseconds later), so a row more than
 * ID_SLACK_S older than another has the smaller id, as the import at start assumes too
 * (readStoredFrom). Only a clock set back by more than this breaks it: a page whose range holds rows
 * from both sides of that moment may then miss the earlier ones (its count still has them). Finding
 * exact bounds instead reads the range's whole timestamp index: 36 ms for 500k queries here.
 */
const ID_SLACK_S = 3600;

/**
 * The ids a time range's rows can have, from Pi-hole's timestamp index: the newest row more than
 * ID_SLACK_S before `from` and the oldest more than that after `until` bound them. A page filtered by
 * what no index serves (a domain, a status) then reads only the rows about its range: without the
 * bounds, a rare name in yesterday's range read every row before and after it.
 */
function idsOfRange(db: Database, from: number | undefined, until: number | undefined): { low: number; high: number } {
  const edge = (sql: string, t: number) => (db.query(sql).get(t) as { id: number } | null)?.id;
  const low =
    from === undefined
      ? 0
      : (edge("SELECT id FROM query_storage WHERE timestamp < ? ORDER BY timestamp DESC LIMIT 1", from - ID_SLACK_S) ??
        0);
  const high =
    until === undefined
      ? Number.MAX_SAFE_INTEGER
      : (edge("SELECT id FROM query_storage WHERE timestamp > ? ORDER BY timestamp LIMIT 1", until + ID_SLACK_S) ??
        Number.MAX_SAFE_INTEGER);
  return { low, high };
}

/** RFC 8914 texts of the EDE codes Moat sets. */
export const EDE_TEXT: Record<number, string> = {
  0: "Other",
  1: "Unsupported DNSKEY Algorithm",
  2: "Unsupported DS Digest Type",
  3: "Stale Answer",
  4: "Forged Answer",
  5: "DNSSEC Indeterminate",
  6: "DNSSEC Bogus",
  7: "Signature Expired",
  8: "Signature Not Yet Valid",
  9: "DNSKEY Missing",
  10: "RRSIGs Missing",
  11: "No Zone Key Bit Set",
  12: "NSEC Missing",
  13: "Cached Error",
  14: "Not Ready",
  15: "Blocked",
  16: "Censored",
  17: "Filtered",
  18: "Prohibited",
  19: "Stale NXDOMAIN Answer",
  20: "Not Authoritative",
  21: "Not Supported",
  22: "No Reachable Authority",
  23: "Network Error",
  24: "Invalid Data",
};
