// /api/queries over the 24 h window's own columns (ring.ts): the window is the 24 h query log, so
// each query is kept once. The filters mean what the long-term database's SQL means
// (src/querylog/read.ts: names compared with `*` wildcards, case-insensitive; newest first, paged by
// cursor and offset; recordsFiltered counts every match), and each name filter resolves to a set
// of ids first, so the scan compares numbers only.
import { BLOCKED_STATUSES, DNSSEC_STATUS, QUERY_STATUS, QUERY_TYPES, REPLY_TYPE, Status } from "../query/enums.ts";
import {
  enumValue,
  FilterError,
  formatRow,
  isOtherType,
  type LogRow,
  pageLength,
  type QueryFilter,
  type QueryPage,
  typeFilter,
  wildcard,
} from "../querylog/read.ts";
import { type Chunk, listIdAt } from "./ring.ts";
import type { IdSet } from "./tallies.ts";
import type { QueryWindow } from "./window.ts";

type Test = (c: Chunk, i: number) => boolean;

const CACHE = new Set<number>([Status.CACHE, Status.CACHE_STALE]);

/**
 * The filters of `f` as tests on a ring entry (all must pass). The domain filters compare a day's
 * names first, a few milliseconds at a time.
 */
async function tests(w: QueryWindow, f: QueryFilter): Promise<Test[]> {
  const out: Test[] = [];
  const inSet = (col: "domain" | "client" | "upstream", ids: IdSet, keep = true) =>
    out.push((c, i) => ids.has(c[col].get(i)) === keep);
  if (f.from !== undefined) {
    const from = f.from;
    out.push((c, i) => c.timeAt(i) >= from);
  }
  if (f.until !== undefined) {
    const until = f.until;
    out.push((c, i) => c.timeAt(i) <= until);
  }
  if (f.domain) inSet("domain", await w.names.domainIdsMatching(f.domain));
  if (f.client_ip) inSet("client", w.names.clientIds(matcher(f.client_ip)));
  if (f.client_name) {
    // the window stores addresses only: a name matches through the network table's names
    const re = wildcard(f.client_name);
    const ips = new Set([...(f.names ?? [])].filter(([, n]) => re.test(n)).map(([ip]) => ip));
    inSet(
      "client",
      w.names.clientIds((ip) => ips.has(ip)),
    );
  }
  if (f.upstream) {
    const u = f.upstream.toLowerCase();
    if (u === "blocklist") out.push((c, i) => BLOCKED_STATUSES.has(c.status[i]!));
    else if (u === "cache") out.push((c, i) => CACHE.has(c.status[i]!));
    else if (u === "permitted") out.push((c, i) => !BLOCKED_STATUSES.has(c.status[i]!));
    else inSet("upstream", w.names.upstreamIds(matcher(f.upstream)));
  }
  if (f.type) {
    const t = typeFilter(f.type);
    out.push(t < 0 ? (c, i) => isOtherType(c.type.get(i)) : (c, i) => c.type.get(i) === t);
  }
  if (f.status) {
    const s = enumValue(QUERY_STATUS, f.status, "status");
    out.push((c, i) => c.status[i] === s);
  }
  if (f.reply) {
    const r = enumValue(REPLY_TYPE, f.reply, "reply");
    out.push((c, i) => c.reply[i] === r);
  }
  if (f.dnssec) {
    const d = enumValue(DNSSEC_STATUS, f.dnssec, "dnssec");
    out.push((c, i) => c.dnssec.get(i) === d);
  }
  if (f.domainSearch) inSet("domain", await w.names.domainIdsMatching(`*${f.domainSearch}*`));
  if (f.clientSearch) inSet("client", w.names.clientIds(matcher(`*${f.clientSearch}*`)));
  if (f.hide) {
    const hide = f.hide;
    const doms =
      hide.domainKey === undefined
        ? w.names.domainIds(hide.domain)
        : await w.names.domainIdsKept(hide.domainKey, hide.domain);
    if (doms.size) inSet("domain", doms, false);
    const cls = w.names.clientIds((ip) => hide.client(ip, f.names?.get(ip) ?? null));
    if (cls.size) inSet("client", cls, false);
  }
  return out;
}

/** LIKE with `*` as its only wildcard: whole name, case-insensitive. */
function matcher(pattern: string): (name: string) => boolean {
  const re = wildcard(pattern);
  return (name) => re.test(name);
}

/** The row of one entry in the shape the long-term reader's SQL gives. */
function row(w: QueryWindow, c: Chunk, i: number): LogRow {
  const cname = c.cname.get(i),
    upstream = c.upstream.get(i),
    answers = c.answers.get(i);
  return {
    id: c.idAt(i),
    timestamp: c.timeAt(i),
    type: c.type.get(i),
    status: c.status[i]!,
    domain: w.names.domain(c.domain.get(i)) ?? "",
    ip: w.names.client(c.client.get(i)) ?? "",
    name: null,
    forward: upstream < 0 ? null : (w.names.upstream(upstream) ?? null),
    cname: cname < 0 ? null : (w.names.cname(cname) ?? null),
    reply_type: c.reply[i]!,
    // the ring keeps milliseconds as a 32-bit float: whole microseconds, in seconds, as stored on disk
    reply_time: Math.round(c.replyTime[i]! * 1000) / 1e6,
    dnssec: c.dnssec.get(i),
    list_id: listIdAt(c, i),
    ede: c.ede.get(i),
    answers: answers < 0 ? null : (w.names.answers(answers) ?? null),
  };
}

/** Sort keys of the DataTables columns Pi-hole sorts by (read.ts's ORDER_COLUMNS). */
function sortKey(column: string, names: QueryFilter["names"]): ((r: LogRow) => string | number | null) | null {
  switch (column.toLowerCase()) {
    case "time":
      return (r) => r.timestamp;
    case "domain":
      return (r) => r.domain;
    case "client.ip":
      return (r) => r.ip;
    case "client.name":
      return (r) => names?.get(r.ip) ?? null;
    case "upstream":
      return (r) => r.forward;
    case "type":
      return (r) => r.type;
    case "status":
      return (r) => r.status;
    case "reply":
      return (r) => r.reply_type;
    case "reply.time":
      return (r) => r.reply_time;
    case "dnssec":
      return (r) => r.dnssec;
    case "list_id":
      return (r) => r.list_id;
    case "ede":
      return (r) => r.ede;
  }
  return null;
}

/** SQLite's order: NULL first, numbers before text. */
function compare(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a !== typeof b) return typeof a === "number" ? -1 : 1;
  return a < b ? -1 : 1;
}

/**
 * A page of the 24 h log. Async: with a filter the whole day is scanned to count the matches, in
 * slices with the event loop free between them (QueryWindow.scanNewestInSlices).
 */
export async function windowPage(w: QueryWindow, f: QueryFilter): Promise<QueryPage> {
  let largest = 0;
  w.scanNewest((c, i) => {
    largest = c.idAt(i);
    return largest === 0;
  });
  // a name first asked while the tests are made may have no answer in them: its queries are newer
  // than `largest`, and left out below (the filters' errors come first, as in read.ts)
  const checks = await tests(w, f);
  let cursor = largest;
  if (f.cursor !== undefined) {
    if (!Number.isSafeInteger(f.cursor) || f.cursor < 0 || f.cursor > largest)
      throw new FilterError("Requested cursor is invalid", "Cursor larger than largest database index");
    cursor = f.cursor;
  }
  const length = pageLength(f.length);
  const start = Math.max(0, f.start ?? 0);
  const key = f.order ? sortKey(f.order.column, f.names) : null;
  const dir = f.order
    ? ({ asc: 1, ascending: 1, desc: -1, descending: -1 } as Record<string, number>)[f.order.dir.toLowerCase()]
    : undefined;
  const ordered = key && dir !== undefined;
  const picked: LogRow[] = [];
  let filtered = 0,
    skipped = 0;
  await w.scanNewestInSlices((c, i) => {
    const id = c.idAt(i);
    if (id === 0 || id > largest) return true; // counted only (privacy level 3), or newer than the request
    for (const t of checks) if (!t(c, i)) return true;
    filtered++;
    if (id > cursor) return true;
    if (ordered) picked.push(row(w, c, i));
    else if (skipped < start) skipped++;
    else if (picked.length < length) picked.push(row(w, c, i));
    // without filters every later entry matches: the count is the log's size
    return checks.length > 0 || picked.length < length;
  });
  const total = w.logged;
  if (!checks.length) filtered = total;
  let rows = picked;
  if (ordered) {
    rows.sort((a, b) => dir * compare(key(a), key(b)) || b.id - a.id);
    rows = rows.slice(start, start + length);
  }
  return { queries: rows.map((x) => formatRow(x, f.names)), cursor, recordsTotal: total, recordsFiltered: filtered };
}

/**
 * Distinct values the query-log filter boxes offer: the most recently asked first. Each column's
 * ids are collected (no name decoded per query) over at most 200,000 queries, in slices with the
 * event loop free between them: a day of one client and one upstream made each a scan that long.
 */
export async function windowSuggestions(w: QueryWindow, limit = 30) {
  const pick = async (column: "domain" | "client" | "upstream", name: (id: number) => string | undefined) => {
    const ids = new Set<number>();
    let scanned = 0;
    await w.scanNewestInSlices((c, i) => {
      const id = c.idAt(i) ? c[column].get(i) : -1;
      if (id >= 0) ids.add(id);
      // bounded: a day of one name asked over and over must not make this a scan of the day
      return ids.size < limit && ++scanned < 200_000;
    });
    const out: string[] = [];
    for (const id of ids) {
      const n = name(id);
      if (n) out.push(n);
    }
    return out;
  };
  return {
    domain: await pick("domain", w.names.domain),
    client_ip: await pick("client", w.names.client),
    client_name: [] as string[],
    upstream: await pick("upstream", w.names.upstream),
    type: [...QUERY_TYPES],
    status: [...QUERY_STATUS],
    reply: [...REPLY_TYPE],
    dnssec: [...DNSSEC_STATUS],
  };
}
