// /api/stats/*: the live numbers of the last 24 h (from the in-memory window, no scans) and the
// /api/stats/database/* variants over a from/until range of the long-term database.
import { IpAddress } from "../core/address.ts";
import { t } from "elysia";
import { queryReads } from "../core/query-reads.ts";
import type { ApiDeps } from "../deps.ts";
import { PIHOLE_STATUSES, QUERY_STATUS, QUERY_TYPES, REPLY_TYPE, statusName } from "../../query/enums.ts";
import { TopList, topDomains, topN } from "../../stats/topn.ts";
import {
  boolParam,
  FleetRangeQuery,
  intParam,
  liveStats,
  meanVariance,
  RangeQuery,
  rangeParams,
  splitUpstream,
} from "./params.ts";
import { Errors } from "../core/errors.ts";
import { dnsCounters } from "../core/dns-counters.ts";
import { clientNames, excludes } from "./clients.ts";

const Counts = (keys: readonly string[]) => t.Object(Object.fromEntries(keys.map((k) => [k, t.Integer()])));
const TypesObj = Counts(QUERY_TYPES);
const Upstream = t.Object({
  ip: t.Union([t.String(), t.Null()]),
  name: t.Union([t.String(), t.Null()]),
  port: t.Integer(),
  count: t.Integer(),
  statistics: t.Object({ response: t.Number(), variance: t.Number() }),
});
const UpstreamsReply = t.Object({
  upstreams: t.Array(Upstream),
  forwarded_queries: t.Integer(),
  total_queries: t.Integer(),
});
const DomainsReply = t.Object({
  domains: t.Array(t.Object({ domain: t.String(), count: t.Integer() })),
  total_queries: t.Integer(),
  blocked_queries: t.Integer(),
});
// FTL sends "" for a client without a host name here (not null, as /api/queries' client.name does)
const ClientsReply = t.Object({
  clients: t.Array(t.Object({ ip: IpAddress(), name: t.String(), count: t.Integer() })),
  total_queries: t.Integer(),
  blocked_queries: t.Integer(),
});
const TopQuery = t.Object({ blocked: t.Optional(t.String()), count: t.Optional(t.String()) });

function byName(names: readonly string[], values: number[]): Record<string, number> {
  return Object.fromEntries(names.map((n, i) => [n, values[i] ?? 0]));
}

/** By status name; in compat mode Pi-hole's alone, each Moat-only status counted as its nearest Pi-hole one */
function statusCounts(values: number[], compat: boolean): Record<string, number> {
  const out = byName(QUERY_STATUS.slice(0, compat ? PIHOLE_STATUSES : undefined), values);
  if (compat)
    for (let i = PIHOLE_STATUSES; i < QUERY_STATUS.length; i++) {
      const to = statusName(QUERY_STATUS[i]!, true);
      out[to] = (out[to] ?? 0) + (values[i] ?? 0);
    }
  return out;
}

/** The upstreams with their counts and reply times, after the pseudo-upstreams Pi-hole lists first. */
function upstreamsReply(
  t: { blocked: number; cached: number; forwarded: number; total: number },
  rows: ReadonlyArray<{ upstream: string; count: number; sum: number; sumSq: number }>,
) {
  return {
    upstreams: [
      { ip: "blocklist", name: "blocklist", port: -1, count: t.blocked, statistics: { response: 0, variance: 0 } },
      { ip: "cache", name: "cache", port: -1, count: t.cached, statistics: { response: 0, variance: 0 } },
      ...rows.map((u) => ({
        ...splitUpstream(u.upstream),
        count: u.count,
        statistics: meanVariance(u.count, u.sum, u.sumSq),
      })),
    ],
    forwarded_queries: t.forwarded,
    total_queries: t.total,
  };
}

export function gravityCount(rt: ApiDeps): number {
  try {
    const live = dnsCounters(rt)?.gravitySize?.();
    if (live !== undefined) return live;
    return Number(rt.gravity.info("gravity_count")) || 0;
  } catch {
    return 0;
  }
}

function gravityUpdated(rt: ApiDeps): number {
  return Number(rt.gravity.info("updated")) || 0;
}

/** Queries per second over the last minute of the window. */
export function frequency(rt: ApiDeps): number {
  const h = rt.stats.window.history();
  const last = h[h.length - 1]?.slot?.total ?? 0;
  const prev = h[h.length - 2]?.slot?.total ?? 0;
  const elapsed = (Date.now() / 1000) % 600;
  return (last + prev * (1 - elapsed / 600)) / 600;
}

function summary(rt: ApiDeps) {
  const s = liveStats(rt);
  const w = s.window;
  return {
    queries: {
      total: w.total,
      blocked: w.blocked,
      percent_blocked: w.total ? (100 * w.blocked) / w.total : 0,
      unique_domains: w.domains.size,
      forwarded: w.forwarded,
      cached: w.cached,
      frequency: frequency(rt),
      types: byName(QUERY_TYPES, w.types),
      status: statusCounts(w.status, rt.config.current.webserver.api.piholeCompat),
      replies: byName(REPLY_TYPE, w.replies),
    },
    clients: { active: w.clients.size, total: w.clientsEver.size },
    gravity: { domains_being_blocked: gravityCount(rt), last_update: gravityUpdated(rt) },
  };
}

export function statsRoutes(rt: ApiDeps) {
  const detail = (summary: string) => ({ tags: ["Stats"], summary });
  return queryReads(rt, "stats")
    .get("/stats/summary", () => summary(rt), {
      response: t.Object({
        queries: t.Object({
          total: t.Integer(),
          blocked: t.Integer(),
          percent_blocked: t.Number(),
          unique_domains: t.Integer(),
          forwarded: t.Integer(),
          cached: t.Integer(),
          frequency: t.Number(),
          types: TypesObj,
          status: t.Object(
            Object.fromEntries(
              QUERY_STATUS.map((k, i) => [
                k,
                i < PIHOLE_STATUSES
                  ? t.Integer()
                  : t.Optional(
                      t.Integer({
                        description: "Moat's own status (left out in Pi-hole compatibility mode)",
                        "x-moat-only": true,
                      }),
                    ),
              ]),
            ),
          ),
          replies: Counts(REPLY_TYPE),
        }),
        clients: t.Object({ active: t.Integer(), total: t.Integer() }),
        gravity: t.Object({ domains_being_blocked: t.Integer(), last_update: t.Integer() }),
      }),
      detail: detail("Totals of the last 24 h"),
    })
    .get(
      "/stats/top_domains",
      async ({ query }) => {
        const w = liveStats(rt).window;
        const blocked = boolParam(query.blocked, false);
        const ex = excludes(rt);
        const top = new TopList(
          intParam(query.count, 10),
          blocked ? (x) => x.blocked : (x) => x.count - x.blocked,
          ex.active ? ex.domain : undefined,
        );
        const [rows = []] = await topDomains(w.domains, [top]);
        return {
          domains: rows.map(([domain, count]) => ({ domain, count })),
          total_queries: w.total,
          blocked_queries: w.blocked,
        };
      },
      {
        query: TopQuery,
        response: DomainsReply,
        detail: detail("Most queried (or blocked) domains of the last 24 h"),
      },
    )
    .get(
      "/stats/top_clients",
      ({ query }) => {
        const w = liveStats(rt).window;
        const blocked = boolParam(query.blocked, false);
        const names = clientNames(rt);
        const ex = excludes(rt);
        const clients = ex.active
          ? new Map([...w.clients].filter(([ip]) => !ex.client(ip, names.get(ip) ?? null)))
          : w.clients;
        const rows = topN(clients, intParam(query.count, 10), blocked ? (x) => x.blocked : (x) => x.count);
        return {
          clients: rows.map(([ip, count]) => ({ ip, name: names.get(ip) ?? "", count })),
          total_queries: w.total,
          blocked_queries: w.blocked,
        };
      },
      {
        query: TopQuery,
        response: ClientsReply,
        detail: detail("Most active (or most blocked) clients of the last 24 h"),
      },
    )
    .get(
      "/stats/upstreams",
      () => {
        const w = liveStats(rt).window;
        const rows = [...w.upstreams]
          .sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1))
          .map(([upstream, x]) => ({ upstream, count: x.count, sum: x.sum, sumSq: x.sumSq }));
        return upstreamsReply(w, rows);
      },
      { response: UpstreamsReply, detail: detail("Upstream servers with counts and reply times (seconds)") },
    )
    .get("/stats/query_types", () => ({ types: byName(QUERY_TYPES, liveStats(rt).window.types) }), {
      response: t.Object({ types: TypesObj }),
      detail: detail("Queries per type in the last 24 h"),
    })
    .get(
      "/stats/recent_blocked",
      ({ query }) => ({ blocked: liveStats(rt).window.recentBlockedDomains(Math.max(0, intParam(query.count, 1))) }),
      {
        query: t.Object({ count: t.Optional(t.String()) }),
        response: t.Object({ blocked: t.Array(t.String()) }),
        detail: detail("Most recently blocked domains"),
      },
    )
    .get(
      "/stats/database/summary",
      async ({ query }) => {
        const r = rangeParams(query);
        if (!rt.fleetHistory || query.node === "local") return await liveStats(rt).longTerm.read("dbSummary", r);
        try {
          return await rt.fleetHistory.summary(r.from, r.until, query.node || undefined);
        } catch (e) {
          throw Errors.fleetUnavailable((e as Error).message);
        }
      },
      {
        query: FleetRangeQuery,
        response: t.Object({
          sum_queries: t.Integer(),
          sum_blocked: t.Integer(),
          percent_blocked: t.Number(),
          total_clients: t.Integer(),
        }),
        detail: detail(
          "Totals over a range of the long-term database (with fleet.postgres: of the whole fleet, or node=)",
        ),
      },
    )
    .get(
      "/stats/database/top_domains",
      async ({ query }) => {
        const x = await liveStats(rt).longTerm.read(
          "dbTop",
          rangeParams(query),
          "domain",
          boolParam(query.blocked, false),
          intParam(query.count, 10),
        );
        return {
          domains: x.rows.map((r) => ({ domain: r.k, count: r.n })),
          total_queries: x.total_queries,
          blocked_queries: x.blocked_queries,
        };
      },
      {
        query: RangeQuery,
        response: DomainsReply,
        detail: detail("Top domains over a range of the long-term database"),
      },
    )
    .get(
      "/stats/database/top_clients",
      async ({ query }) => {
        // Live top_clients counts all queries of a client unless blocked=true; so does this one.
        const blocked = boolParam(query.blocked, false) ? true : null;
        const x = await liveStats(rt).longTerm.read(
          "dbTop",
          rangeParams(query),
          "client",
          blocked,
          intParam(query.count, 10),
        );
        const names = clientNames(rt);
        return {
          clients: x.rows.map((c) => ({ ip: c.k, name: c.name ?? names.get(c.k) ?? "", count: c.n })),
          total_queries: x.total_queries,
          blocked_queries: x.blocked_queries,
        };
      },
      {
        query: RangeQuery,
        response: ClientsReply,
        detail: detail("Top clients over a range of the long-term database"),
      },
    )
    .get(
      "/stats/database/upstreams",
      async ({ query }) => {
        const x = await liveStats(rt).longTerm.read("dbUpstreams", rangeParams(query));
        return upstreamsReply(x, x.rows);
      },
      {
        query: RangeQuery,
        response: UpstreamsReply,
        detail: detail("Upstreams over a range of the long-term database"),
      },
    )
    .get(
      "/stats/database/query_types",
      async ({ query }) => ({ types: await liveStats(rt).longTerm.read("dbQueryTypes", rangeParams(query)) }),
      {
        query: RangeQuery,
        response: t.Object({ types: TypesObj }),
        detail: detail("Queries per type over a range of the long-term database"),
      },
    );
}
