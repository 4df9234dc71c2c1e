// GET /api/info/system, host, sensors, ftl, database, metrics and the message list: real values
// from /proc, /sys, the process and the databases (null where the machine has none).
import { Elysia, t } from "elysia";

import type { Runtime } from "../../core/runtime.ts";
import { fileInfo, hostInfo, processUsage, sensorsInfo, systemInfo } from "../../stats/system.ts";
import { ApiError, Errors } from "../core/errors.ts";
import { frequency } from "../stats/routes.ts";
import { liveStats } from "../stats/params.ts";
import { dnsCounters } from "../../stats/dns-view.ts";

const Any = t.Any();
const N = t.Union([t.Number(), t.Null()]);

function count(rt: Runtime, sql: string): number {
  try {
    return (rt.gravityDb.query(sql).get() as { n: number }).n;
  } catch {
    return 0;
  }
}

export function ftlInfo(rt: Runtime) {
  const w = rt.stats?.window;
  const dl = (type: number) => ({
    total: count(rt, `SELECT COUNT(*) AS n FROM domainlist WHERE type = ${type}`),
    enabled: count(rt, `SELECT COUNT(*) AS n FROM domainlist WHERE type = ${type} AND enabled = 1`),
  });
  const use = processUsage();
  const c = dnsCounters(rt);
  return {
    database: {
      gravity: count(rt, "SELECT COUNT(*) AS n FROM gravity"),
      groups: count(rt, 'SELECT COUNT(*) AS n FROM "group"'),
      lists: count(rt, "SELECT COUNT(*) AS n FROM adlist"),
      clients: count(rt, "SELECT COUNT(*) AS n FROM client"),
      domains: { allowed: dl(0), denied: dl(1) },
      regex: { allowed: dl(2), denied: dl(3) },
    },
    privacy_level: rt.config.current.misc.privacylevel,
    query_frequency: frequency(rt),
    clients: { total: w?.clientsEver.size ?? 0, active: w?.clients.size ?? 0 },
    pid: process.pid,
    uptime: Math.floor((Date.now() - rt.startedAt) / 1000),
    "%mem": use["%mem"],
    "%cpu": use["%cpu"],
    allow_destructive: rt.config.current.webserver.api.allow_destructive,
    // Pi-hole shows dnsmasq's own counters here; Moat's resolver reports its equivalents.
    dnsmasq: {
      dns_cache_inserted: c?.cache.inserted ?? null,
      dns_cache_live_freed: c?.cache.evicted ?? null,
      dns_queries_forwarded: c?.replies?.forwarded ?? null,
      dns_auth_answered: c?.replies?.auth ?? null,
      dns_local_answered: c?.replies?.local ?? null,
      dns_stale_answered: w?.status[17] ?? null,
      dns_unanswered: c?.replies?.unanswered ?? null,
    },
  };
}

export function metricsInfo(rt: Runtime) {
  const c = dnsCounters(rt);
  const r = c?.replies;
  return {
    dns: {
      cache: {
        size: c?.cache.size ?? null,
        inserted: c?.cache.inserted ?? null,
        evicted: c?.cache.evicted ?? null,
        expired: c?.cache.expired ?? null,
        immortal: c?.cache.immortal ?? null,
        content: [] as unknown[],
      },
      replies: {
        forwarded: r?.forwarded ?? null,
        unanswered: r?.unanswered ?? null,
        local: r?.local ?? null,
        optimized: r?.optimized ?? null,
        auth: r?.auth ?? null,
        sum: r ? r.forwarded + r.unanswered + r.local + r.optimized + r.auth : null,
      },
    },
    dhcp: { ack: 0, nak: 0, decline: 0, offer: 0, discover: 0, inform: 0, request: 0, release: 0, noanswer: 0, bootp: 0, pxe: 0, leases: { allocated_4: 0, pruned_4: 0, allocated_6: 0, pruned_6: 0 } },
  };
}

function messages(rt: Runtime) {
  const rows = rt.queryDb.query("SELECT id, timestamp, type, message, blob1, blob2, blob3, blob4, blob5 FROM message ORDER BY id").all() as Array<Record<string, any>>;
  const esc = (s: string) => s.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return rows.map((m) => ({ id: m.id, timestamp: m.timestamp, type: m.type, plain: String(m.message), html: esc(String(m.message)) }));
}

export function systemInfoRoutes(rt: Runtime) {
  const detail = (summary: string) => ({ tags: ["Info"], summary });
  return new Elysia({ name: "info-system" })
    .get("/info/system", () => ({ system: systemInfo() }), { response: t.Object({ system: Any }), detail: detail("Uptime, memory, CPU and load of the machine") })
    .get("/info/host", () => ({ host: hostInfo() }), { response: t.Object({ host: Any }), detail: detail("Kernel, model and DMI data of the machine") })
    .get("/info/sensors", () => ({ sensors: sensorsInfo(rt.config.current.webserver.api.temp.unit) }), {
      response: t.Object({ sensors: t.Object({ list: t.Array(Any), cpu_temp: N, hot_limit: N, unit: t.String() }) }),
      detail: detail("Temperature sensors"),
    })
    .get("/info/ftl", () => ({ ftl: ftlInfo(rt) }), { response: t.Object({ ftl: Any }), detail: detail("Moat's process, lists and clients") })
    .get(
      "/info/database",
      async () => {
        const s = liveStats(rt);
        const f = fileInfo(rt.paths.queryDb);
        const earliest = (db: typeof s.disk.db) => (db.query("SELECT MIN(timestamp) AS t, COUNT(*) AS n FROM query_storage").get() as { t: number | null; n: number });
        const mem = earliest((await s.freshMemory()).db);
        const disk = earliest(s.disk.db);
        const version = (s.disk.db.query("SELECT sqlite_version() AS v").get() as { v: string }).v;
        return {
          size: f?.size ?? 0, type: f?.type ?? "file", mode: f?.mode ?? null, atime: f?.atime ?? null, mtime: f?.mtime ?? null, ctime: f?.ctime ?? null,
          owner: f?.owner ?? null,
          queries: mem.n, earliest_timestamp: mem.t ?? 0, queries_disk: disk.n, earliest_timestamp_disk: disk.t ?? 0, sqlite_version: version,
        };
      },
      { response: Any, detail: detail("The long-term query database") },
    )
    .get("/info/messages", () => ({ messages: messages(rt) }), {
      response: t.Object({ messages: t.Array(t.Object({ id: t.Integer(), timestamp: t.Number(), type: t.String(), plain: t.String(), html: t.String() })) }),
      detail: detail("Warnings Moat raised (failed list downloads, rate-limited clients, …)"),
    })
    .get("/info/messages/count", () => ({ count: (rt.queryDb.query("SELECT COUNT(*) AS n FROM message").get() as { n: number }).n }), {
      response: t.Object({ count: t.Integer() }),
      detail: detail("Number of messages"),
    })
    .delete(
      "/info/messages/:message_id",
      ({ params }) => {
        const ids = params.message_id.split(",").map((x) => x.trim());
        if (!ids.length || ids.some((x) => !/^\d+$/.test(x))) throw new ApiError(400, "uri_error", "Specify ID of message to delete in path", params.message_id);
        let deleted = 0;
        for (const id of ids) deleted += rt.queryDb.query("DELETE FROM message WHERE id = ?").run(Number(id)).changes;
        if (!deleted) throw Errors.notFound(`/api/info/messages/${params.message_id}`);
        return undefined;
      },
      { params: t.Object({ message_id: t.String() }), detail: detail("Delete messages by id (comma-separated)") },
    )
    .get("/info/metrics", () => ({ metrics: metricsInfo(rt) }), { response: t.Object({ metrics: Any }), detail: detail("Cache and reply counters") });
}

/** Raises a message (type e.g. "LIST", "RATE_LIMIT") for /api/info/messages; used by other services. */
export function addMessage(rt: Runtime, type: string, message: string, ...blobs: unknown[]): void {
  try {
    rt.queryDb
      .query("INSERT INTO message (timestamp, type, message, blob1, blob2, blob3, blob4, blob5) VALUES (?,?,?,?,?,?,?,?)")
      .run(Date.now() / 1000, type, message, ...([0, 1, 2, 3, 4].map((i) => (blobs[i] ?? null) as never)));
  } catch (e) {
    rt.log("warn", `could not store message: ${(e as Error).message}`);
  }
}

