// Query-string parsing as lenient as Pi-hole's get_bool_var/get_int_var: absent or unparsable
// values fall back to the default. Shared by the statistics, history and query-log routes.
import { t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import type { Stats } from "../../stats/sink.ts";
import { Errors } from "../core/errors.ts";

export function boolParam(v: string | undefined, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  const s = v.toLowerCase();
  if (s === "true" || s === "yes" || s === "1") return true;
  if (s === "false" || s === "no" || s === "0") return false;
  return dflt;
}

export function intParam(v: string | undefined, dflt: number): number {
  if (v === undefined || v.trim() === "") return dflt;
  const n = Number(v);
  // clamped to what SQLite binds as an integer: 1e20 as LIMIT/OFFSET was "datatype mismatch" (500)
  return Number.isFinite(n)
    ? Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Math.trunc(n)))
    : dflt;
}

export function numParam(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** The from/until pair the database variants require. */
export function rangeParams(q: { from?: string; until?: string }): { from: number; until: number } {
  const from = numParam(q.from);
  const until = numParam(q.until);
  if (from === undefined || until === undefined)
    throw Errors.badRequest('You need to specify both "from" and "until" in the request.');
  return { from, until };
}

export const RangeQuery = t.Object({
  from: t.Optional(t.String({ description: "unix timestamp (required)" })),
  until: t.Optional(t.String({ description: "unix timestamp (required)" })),
  blocked: t.Optional(t.String({ description: "true: blocked queries only" })),
  count: t.Optional(t.String({ description: "number of entries (default 10)" })),
});

/** RangeQuery plus node=, for the routes that can answer from the fleet's query history. */
export const FleetRangeQuery = t.Object({
  ...RangeQuery.properties,
  node: t.Optional(
    t.String({
      description:
        "with fleet.postgres: one node (its fleet.node name), 'local' for this node; absent: the whole fleet",
    }),
  ),
});

/** The statistics service, fresh (queued records applied, old ones aged out). */
export function liveStats(rt: Pick<ApiDeps, "stats">): Stats {
  rt.stats.syncMemory();
  return rt.stats;
}

/** "ip#port" → the upstreams reply's ip, name and port. */
export function splitUpstream(u: string): { ip: string | null; name: string | null; port: number } {
  const i = u.lastIndexOf("#");
  const host = i >= 0 ? u.slice(0, i) : u;
  const port = i >= 0 ? Number(u.slice(i + 1)) : 53;
  return { ip: host, name: host, port: Number.isFinite(port) ? port : 53 };
}

/** Mean and variance (seconds) from count, sum and sum of squares. */
export function meanVariance(count: number, sum: number, sumSq: number): { response: number; variance: number } {
  if (count <= 0) return { response: 0, variance: 0 };
  const mean = sum / count;
  return { response: mean, variance: Math.max(0, sumSq / count - mean * mean) };
}
