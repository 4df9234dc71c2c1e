// /api/history: 145 ten-minute slots of the last 24 h (live) or of a range of the long-term
// database, overall and per client.
import { t } from "elysia";
import { queryReads } from "../core/query-reads.ts";
import type { Context } from "../../core/runtime.ts";
import type { ApiDeps } from "../deps.ts";
import { topN } from "../../stats/topn.ts";
import { clientNames } from "../stats/clients.ts";
import { FleetRangeQuery, intParam, liveStats, RangeQuery, rangeParams } from "../stats/params.ts";
import { Errors } from "../core/errors.ts";
import { coarsen, IntervalQuery, intervalParam } from "./interval.ts";

const Slot = t.Object({
  timestamp: t.Integer(),
  total: t.Integer(),
  cached: t.Integer(),
  blocked: t.Integer(),
  forwarded: t.Integer(),
});
const ClientsReply = t.Object({
  clients: t.Record(t.String(), t.Object({ name: t.Union([t.String(), t.Null()]), total: t.Integer() })),
  history: t.Array(t.Object({ timestamp: t.Integer(), data: t.Record(t.String(), t.Integer()) })),
});

type SlotRow = { timestamp: number; total: number; cached: number; blocked: number; forwarded: number };
const addSlot = (a: SlotRow, b: SlotRow) => {
  a.total += b.total;
  a.cached += b.cached;
  a.blocked += b.blocked;
  a.forwarded += b.forwarded;
};
const addClients = (a: { data: Record<string, number> }, b: { data: Record<string, number> }) => {
  a.data = { ...a.data };
  for (const [k, n] of Object.entries(b.data)) a.data[k] = (a.data[k] ?? 0) + n;
};

/** N as Pi-hole reads it: default min(#clients, maxClients), 0 = all. */
function clientLimit(q: string | undefined, rt: Context): number {
  return intParam(q, rt.config.current.webserver.api.maxClients);
}

function clientHistory(
  chosen: Array<[string, number]>,
  slots: Array<{ timestamp: number; counts: Map<string, number> }>,
  names: Map<string, string | null> = new Map(),
) {
  const keep = new Set(chosen.map(([ip]) => ip));
  return {
    clients: Object.fromEntries(chosen.map(([ip, total]) => [ip, { name: names.get(ip) ?? null, total }])),
    history: slots.map(({ timestamp, counts }) => {
      const data: Record<string, number> = {};
      for (const ip of keep) data[ip] = counts.get(ip) ?? 0;
      let others = 0;
      for (const [ip, n] of counts) if (!keep.has(ip)) others += n;
      data.others = others;
      return { timestamp, data };
    }),
  };
}

export function historyRoutes(rt: ApiDeps) {
  const detail = (summary: string) => ({ tags: ["History"], summary });
  return queryReads(rt, "history")
    .get(
      "/history",
      async ({ query }) => {
        const slots = liveStats(rt).window.history();
        if (rt.fleetHistory && query.node !== "local") {
          try {
            return {
              history: await rt.fleetHistory.history(
                slots[0]!.timestamp,
                slots[slots.length - 1]!.timestamp,
                query.node || undefined,
              ),
            };
          } catch (e) {
            throw Errors.fleetUnavailable((e as Error).message);
          }
        }
        return {
          history: slots.map(({ timestamp, slot }) => ({
            timestamp,
            total: slot?.total ?? 0,
            cached: slot?.cached ?? 0,
            blocked: slot?.blocked ?? 0,
            forwarded: slot?.forwarded ?? 0,
          })),
        };
      },
      {
        query: t.Object(
          {
            node: t.Optional(
              t.String({
                description:
                  "with fleet.postgres: one node (its fleet.node name), 'local' for this node; absent: the whole fleet",
              }),
            ),
          },
          { additionalProperties: true },
        ),
        response: t.Object({ history: t.Array(Slot) }),
        detail: detail("Queries per 10 minutes over the last 24 h (145 slots)"),
      },
    )
    .get(
      "/history/clients",
      ({ query }) => {
        const w = liveStats(rt).window;
        const chosen = topN(w.clients, clientLimit(query.N, rt), (x) => x.count);
        return clientHistory(
          chosen,
          w.history().map(({ timestamp, slot }) => ({ timestamp, counts: slot?.clients ?? new Map() })),
          clientNames(rt),
        );
      },
      {
        query: t.Object({ N: t.Optional(t.String({ description: "number of clients (0: all)" })) }),
        response: ClientsReply,
        detail: detail("Queries per client per 10 minutes"),
      },
    )
    .get(
      "/history/database",
      async ({ query }) => {
        const r = rangeParams(query);
        const every = intervalParam(query.interval);
        if (!rt.fleetHistory || query.node === "local")
          return { history: coarsen(await liveStats(rt).longTerm.read("dbHistory", r), every, addSlot) };
        try {
          const h = await rt.fleetHistory.history(r.from, r.until, query.node || undefined);
          return { history: coarsen(h, every, addSlot) };
        } catch (e) {
          throw Errors.fleetUnavailable((e as Error).message);
        }
      },
      {
        query: t.Object({ ...FleetRangeQuery.properties, ...IntervalQuery }),
        response: t.Object({ history: t.Array(Slot) }),
        detail: detail(
          "Queries per 10 minutes over a range of the long-term database (with fleet.postgres: of the whole fleet, or node=)",
        ),
      },
    )
    .get(
      "/history/database/clients",
      async ({ query }) => {
        const x = await liveStats(rt).longTerm.read("dbHistoryClients", rangeParams(query));
        const totals = new Map<string, { count: number; blocked: number }>();
        const names = new Map<string, string | null>();
        const known = clientNames(rt);
        const bySlot = new Map<number, Map<string, number>>();
        for (const r of x.rows) {
          const tl = totals.get(r.ip) ?? { count: 0, blocked: 0 };
          tl.count += r.n;
          totals.set(r.ip, tl);
          names.set(r.ip, r.name ?? known.get(r.ip) ?? null);
          let m = bySlot.get(r.slot);
          if (!m) bySlot.set(r.slot, (m = new Map()));
          m.set(r.ip, (m.get(r.ip) ?? 0) + r.n);
        }
        const chosen = topN(totals, clientLimit(query.N, rt), (v) => v.count);
        const reply = clientHistory(
          chosen,
          x.slots.map((ts) => ({ timestamp: ts, counts: bySlot.get(ts) ?? new Map() })),
          names,
        );
        return { ...reply, history: coarsen(reply.history, intervalParam(query.interval), addClients) };
      },
      {
        query: t.Object({ ...RangeQuery.properties, N: t.Optional(t.String()), ...IntervalQuery }),
        response: ClientsReply,
        detail: detail("Queries per client per 10 minutes over a range of the long-term database"),
      },
    );
}
