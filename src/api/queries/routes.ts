// /api/queries: the query log with every filter of Pi-hole's API, newest first, from the
// in-memory copy of the last 24 h or (disk=true) from the long-term database.
import { IpAddress } from "../core/address.ts";
import { t } from "elysia";
import { queryReads } from "../core/query-reads.ts";
import type { ApiDeps } from "../deps.ts";
import { FilterError } from "../../querylog/read.ts";
import { Errors } from "../core/errors.ts";
import { clientNames, excludes } from "../stats/clients.ts";
import { boolParam, intParam, liveStats, numParam } from "../stats/params.ts";
import type { FleetHistory } from "../../fleet/pg-history.ts";
import { statusName } from "../../query/enums.ts";

/** Moat's own statuses (dns.access's CLIENT_REFUSED) as Pi-hole's nearest in compat mode, and its own fields left out */
function compatRows<R extends { status: string; answers?: string | null }>(rows: R[], compat: boolean): R[] {
  if (compat)
    for (const r of rows) {
      r.status = statusName(r.status, true);
      delete r.answers;
    }
  return rows;
}

/** The whole fleet's log (or node=<name>'s) from PostgreSQL, in the same shape as this node's. */
async function fleetQueries(h: FleetHistory, q: Record<string, string | undefined>, compat: boolean) {
  let page: Awaited<ReturnType<FleetHistory["queries"]>>;
  try {
    page = await h.queries({
      node: q.node || undefined,
      from: numParam(q.from),
      until: numParam(q.until),
      length: q.length === undefined ? undefined : intParam(q.length, 100),
      start: Math.max(0, intParam(q.start, 0)),
      cursor: q.cursor !== undefined && /^\d+$/.test(q.cursor) ? Number(q.cursor) : undefined,
      domain: q.domain || undefined,
      client_ip: q.client_ip || undefined,
      upstream: q.upstream || undefined,
      type: q.type || undefined,
      status: q.status || undefined,
    });
  } catch (e) {
    if (e instanceof RangeError) throw Errors.badRequest(e.message);
    throw Errors.fleetUnavailable((e as Error).message);
  }
  const { earliest, ...rest } = page;
  return {
    ...rest,
    queries: compatRows(rest.queries, compat),
    draw: intParam(q.draw, 0),
    ...(compat ? {} : floors(earliest, earliest)),
  };
}

/**
 * How far back the 24 h log and the long-term database go. Moat's own mode answers them here so a
 * client can tell "nothing matched" from "before the data starts"; Pi-hole FTL v6.4 has them only
 * in /api/info/database (its test/api/checkAPI.py reports them here), so compatibility mode leaves
 * them out.
 */
function floors(memory: number, disk: number) {
  return { earliest_timestamp: memory, earliest_timestamp_disk: disk };
}

const Str = (description: string) => t.Optional(t.String({ description }));
const QueriesQuery = t.Object(
  {
    from: Str("unix time: oldest query"),
    until: Str("unix time: newest query"),
    length: Str("rows per page (default 100)"),
    start: Str("offset from the cursor"),
    cursor: Str("id of the newest query to show (from a previous reply)"),
    domain: Str("domain, * as wildcard"),
    client_ip: Str("client IP, * as wildcard"),
    client_name: Str("client name, * as wildcard"),
    upstream: Str("upstream ip#port, * as wildcard; or cache, blocklist, permitted"),
    type: Str("query type (A, AAAA, …, OTHER, TYPEnnn)"),
    status: Str("query status (GRAVITY, FORWARDED, …)"),
    reply: Str("reply type (IP, NXDOMAIN, …)"),
    dnssec: Str("DNSSEC status"),
    disk: Str("true: read the long-term database instead of the last 24 h"),
    node: Str(
      "with fleet.postgres: one node's queries (its fleet.node name), 'local' for this node's own log; absent: the whole fleet",
    ),
    draw: Str("DataTables draw counter, echoed"),
    "order[0][column]": Str(
      "DataTables: index N of the column to sort by (its name is columns[N][data]: time, domain, client.ip, client.name, upstream, type, status, reply, reply.time, dnssec, list_id, ede)",
    ),
    "order[0][dir]": Str("DataTables: asc or desc"),
  },
  { additionalProperties: true },
);

const Row = t.Object({
  id: t.Integer(),
  time: t.Number(),
  type: t.String(),
  domain: t.String(),
  cname: t.Union([t.String(), t.Null()]),
  status: t.String(),
  client: t.Object({ ip: IpAddress(), name: t.Union([t.String(), t.Null()]) }),
  dnssec: t.String(),
  reply: t.Object({ type: t.String(), time: t.Number() }),
  list_id: t.Union([t.Integer(), t.Null()]),
  upstream: t.Union([t.String(), t.Null()]),
  ede: t.Object({ code: t.Integer(), text: t.Union([t.String(), t.Null()]) }),
  answers: t.Optional(
    t.Union([t.String(), t.Null()], {
      description:
        'the reply\'s answer records, e.g. "CNAME b.example, A 192.0.2.1" (null when none, and for queries stored before Moat kept them or under privacy level 1 and up; left out in Pi-hole compatibility mode)',
      "x-moat-only": true,
    }),
  ),
});

export function queriesRoutes(rt: ApiDeps) {
  return queryReads(rt, "queries")
    .get(
      "/queries",
      async ({ query }) => {
        const q = query as Record<string, string | undefined>;
        const compat = rt.config.current.webserver.api.piholeCompat;
        if (rt.fleetHistory && q.node !== "local" && !boolParam(q.disk, false))
          return fleetQueries(rt.fleetHistory, q, compat);
        const s = liveStats(rt);
        const disk = boolParam(q.disk, false);
        const cursorRaw = q.cursor;
        let cursor: number | undefined;
        if (cursorRaw !== undefined) {
          cursor = Number(cursorRaw);
          if (!/^\d+$/.test(cursorRaw)) throw Errors.badRequest("Requested cursor is invalid", "Not a number");
        }
        // DataTables sends its searches as columns[3][search][value] (domain) and columns[4][…] (client).
        const col = (i: number) => (q[`columns[${i}][search][value]`] ? q[`columns[${i}][search][value]`] : undefined);
        // Ordering names its column by index: order[0][column]=N, whose name is columns[N][data].
        const orderCol = q["order[0][column]"];
        const orderColumn =
          orderCol !== undefined && /^\d+$/.test(orderCol) ? q[`columns[${orderCol}][data]`] : undefined;
        const orderDir = q["order[0][dir]"];
        const ex = excludes(rt, true);
        const names = clientNames(rt);
        try {
          const filter = {
            from: numParam(q.from),
            until: numParam(q.until),
            length: q.length === undefined ? undefined : intParam(q.length, 100),
            start: Math.max(0, intParam(q.start, 0)),
            cursor,
            domain: q.domain || undefined,
            client_ip: q.client_ip || undefined,
            client_name: q.client_name || undefined,
            upstream: q.upstream || undefined,
            type: q.type || undefined,
            status: q.status || undefined,
            reply: q.reply || undefined,
            dnssec: q.dnssec || undefined,
            domainSearch: col(3),
            clientSearch: col(4),
            order: orderColumn && orderDir ? { column: orderColumn, dir: orderDir } : undefined,
            hide: ex.active ? ex : undefined,
            names,
          };
          const api = rt.config.current.webserver.api;
          const page = disk
            ? await s.longTerm.read("queryPage", {
                ...filter,
                hide: ex.active ? { domains: api.excludeDomains, clients: api.excludeClients } : undefined,
              })
            : await s.queryPage(filter);
          const earliest = s.earliest();
          return {
            ...page,
            queries: compatRows(page.queries, compat),
            draw: intParam(q.draw, 0),
            ...(compat ? {} : floors(earliest.memory, earliest.disk)),
          };
        } catch (e) {
          if (e instanceof FilterError) throw Errors.badRequest(e.message, e.hint);
          throw Errors.database("Could not read from in-memory database", (e as Error).message, 500);
        }
      },
      {
        query: QueriesQuery,
        response: t.Object({
          queries: t.Array(Row),
          cursor: t.Integer(),
          recordsTotal: t.Integer(),
          recordsFiltered: t.Integer(),
          draw: t.Integer(),
          earliest_timestamp: t.Optional(
            t.Number({
              description:
                "time of the oldest query of the last 24 h (0: none; left out in Pi-hole compatibility mode)",
              "x-moat-only": true,
            }),
          ),
          earliest_timestamp_disk: t.Optional(
            t.Number({
              description:
                "time of the oldest query in the long-term database (0: none; left out in Pi-hole compatibility mode)",
              "x-moat-only": true,
            }),
          ),
        }),
        detail: { tags: ["Queries"], summary: "The query log, newest first, filtered and paged" },
      },
    )
    .get("/queries/suggestions", async () => ({ suggestions: await liveStats(rt).suggestions() }), {
      response: t.Object({
        suggestions: t.Object({
          domain: t.Array(t.String()),
          client_ip: t.Array(t.String()),
          client_name: t.Array(t.String()),
          upstream: t.Array(t.String()),
          type: t.Array(t.String()),
          status: t.Array(t.String()),
          reply: t.Array(t.String()),
          dnssec: t.Array(t.String()),
        }),
      }),
      detail: { tags: ["Queries"], summary: "Values the query-log filters can take" },
    });
}
