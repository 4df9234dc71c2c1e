// GET /api/info/system, host, sensors, ftl, database, metrics and the message list: real values
// from /proc, /sys, the process and the databases (null where the machine has none).
import { Elysia, t } from "elysia";

import type { Runtime } from "../../core/runtime.ts";
import type { ApiDeps } from "../deps.ts";
import { fileInfo, hostInfo, processUsage, sensorsInfo, systemInfo } from "../../stats/system.ts";
import { ApiError, Errors } from "../core/errors.ts";
import { frequency, gravityCount } from "../stats/routes.ts";
import { liveStats } from "../stats/params.ts";
import { dnsCounters } from "../core/dns-counters.ts";
import { storedQueries } from "../../stats/querylog.ts";

const N = t.Union([t.Number(), t.Null()]);
const S = t.Union([t.String(), t.Null()]);
const Int = t.Integer();

export const SystemReply = t.Object({
  uptime: t.Integer({ description: "seconds since the machine booted" }),
  memory: t.Object({
    ram: t.Object({ total: Int, free: Int, used: Int, available: Int, "%used": t.Number() }, { description: "KiB" }),
    swap: t.Object({ total: Int, free: Int, used: Int, "%used": t.Number() }, { description: "KiB" }),
  }),
  procs: Int,
  cpu: t.Object({ nprocs: Int, "%cpu": t.Number(), load: t.Object({ raw: t.Array(t.Number()), percent: t.Array(t.Number()) }) }),
  ftl: t.Object({ "%mem": t.Number(), "%cpu": t.Number() }, { description: "this process" }),
});

export const SensorsReply = t.Object({
  list: t.Array(
    t.Object({
      name: S,
      path: t.String(),
      source: t.String(),
      temps: t.Array(t.Object({ name: S, value: t.Number(), max: N, crit: N, sensor: t.String() })),
    }),
  ),
  cpu_temp: t.Union([t.Number(), t.Null()], { description: "null when no sensor can be told to be the CPU's" }),
  hot_limit: t.Number({ description: "webserver.api.temp.limit in the configured unit" }),
  unit: t.String(),
});

const HostReply = t.Object({
  uname: t.Object({ domainname: t.String(), machine: t.String(), nodename: t.String(), release: t.String(), sysname: t.String(), version: t.String() }),
  model: S,
  dmi: t.Object({
    bios: t.Object({ vendor: S }),
    board: t.Object({ name: S, vendor: S, version: S }),
    product: t.Object({ name: S, family: S, version: S }),
    sys: t.Object({ vendor: S }),
  }),
});

const Counted = t.Object({ total: Int, enabled: Int });
/** dnsmasq's counters as Pi-hole reports them (the DHCP ones from src/dhcp). */
const DNSMASQ_COUNTERS = [
  "dns_cache_inserted", "dns_cache_live_freed", "dns_queries_forwarded", "dns_auth_answered", "dns_local_answered", "dns_stale_answered",
  "dns_unanswered", "bootp", "pxe", "dhcp_ack", "dhcp_decline", "dhcp_discover", "dhcp_inform", "dhcp_nak", "dhcp_offer", "dhcp_release",
  "dhcp_request", "noanswer", "leases_allocated_4", "leases_pruned_4", "leases_allocated_6", "leases_pruned_6", "tcp_connections",
  "dnssec_max_crypto_use", "dnssec_max_sig_fail", "dnssec_max_work",
] as const;

const FtlReply = t.Object({
  database: t.Object({
    gravity: Int,
    groups: Int,
    lists: Int,
    clients: Int,
    domains: t.Object({ allowed: Counted, denied: Counted }),
    regex: t.Object({ allowed: Counted, denied: Counted }),
  }),
  privacy_level: Int,
  query_frequency: t.Number({ description: "queries per second over the last minutes" }),
  clients: t.Object({ total: Int, active: Int }),
  pid: Int,
  uptime: t.Number({ description: "milliseconds since Moat started" }),
  "%mem": t.Number(),
  "%cpu": t.Number(),
  allow_destructive: t.Boolean(),
  dnsmasq: t.Object(Object.fromEntries(DNSMASQ_COUNTERS.map((k) => [k, Int])) as Record<(typeof DNSMASQ_COUNTERS)[number], typeof Int>),
});

const DatabaseReply = t.Object({
  size: Int,
  type: t.String(),
  mode: t.String(),
  atime: Int,
  mtime: Int,
  ctime: Int,
  owner: t.Object({ user: t.Object({ uid: Int, name: t.String(), info: t.String() }), group: t.Object({ gid: Int, name: t.String() }) }),
  queries: Int,
  earliest_timestamp: t.Number(),
  queries_disk: Int,
  earliest_timestamp_disk: t.Number(),
  sqlite_version: t.String(),
});

const MetricsReply = t.Object({
  dns: t.Object({
    cache: t.Object({
      size: Int,
      inserted: Int,
      evicted: Int,
      expired: Int,
      immortal: Int,
      content: t.Array(t.Object({ type: Int, name: t.String(), count: t.Object({ valid: Int, stale: Int }) })),
    }),
    replies: t.Object({ forwarded: Int, unanswered: Int, local: Int, optimized: Int, auth: Int, sum: Int }),
  }),
  dhcp: t.Object({
    ack: Int, nak: Int, decline: Int, offer: Int, discover: Int, inform: Int, request: Int, release: Int, noanswer: Int, bootp: Int, pxe: Int,
    leases: t.Object({ allocated_4: Int, pruned_4: Int, allocated_6: Int, pruned_6: Int }),
  }),
});

function count(rt: Runtime, sql: string): number {
  try {
    return (rt.gravityDb.query(sql).get() as { n: number }).n;
  } catch {
    return 0;
  }
}

export function ftlInfo(rt: ApiDeps) {
  const w = rt.stats.window;
  const dl = (type: number) => ({
    total: count(rt, `SELECT COUNT(*) AS n FROM domainlist WHERE type = ${type}`),
    enabled: count(rt, `SELECT COUNT(*) AS n FROM domainlist WHERE type = ${type} AND enabled = 1`),
  });
  const cfg = rt.config.current;
  const c = dnsCounters(rt);
  // dnsmasq's own counters in Pi-hole; Moat's resolver reports its equivalents (0 for what it does not do)
  const dnsmasq = Object.fromEntries(DNSMASQ_COUNTERS.map((k) => [k, 0])) as Record<(typeof DNSMASQ_COUNTERS)[number], number>;
  Object.assign(dnsmasq, {
    dns_cache_inserted: c?.cache.inserted ?? 0,
    dns_cache_live_freed: c?.cache.evicted ?? 0,
    dns_queries_forwarded: c?.replies?.forwarded ?? 0,
    dns_auth_answered: c?.replies?.auth ?? 0,
    dns_local_answered: c?.replies?.local ?? 0,
    dns_stale_answered: w.status[17] ?? 0,
    dns_unanswered: c?.replies?.unanswered ?? 0,
  });
  const d = rt.dhcp.counters;
  Object.assign(dnsmasq, {
    bootp: d.bootp, pxe: d.pxe, dhcp_ack: d.ack, dhcp_decline: d.decline, dhcp_discover: d.discover, dhcp_inform: d.inform,
    dhcp_nak: d.nak, dhcp_offer: d.offer, dhcp_release: d.release, dhcp_request: d.request, noanswer: d.noanswer,
    leases_allocated_4: d.leases.allocated_4, leases_pruned_4: d.leases.pruned_4, leases_allocated_6: d.leases.allocated_6, leases_pruned_6: d.leases.pruned_6,
  });
  return {
    database: {
      gravity: gravityCount(rt),
      groups: count(rt, 'SELECT COUNT(*) AS n FROM "group"'),
      lists: count(rt, "SELECT COUNT(*) AS n FROM adlist"),
      clients: count(rt, "SELECT COUNT(*) AS n FROM client"),
      domains: { allowed: dl(0), denied: dl(1) },
      regex: { allowed: dl(2), denied: dl(3) },
    },
    privacy_level: cfg.misc.privacylevel,
    query_frequency: frequency(rt),
    clients: { total: w?.clientsEver.size ?? 0, active: w?.clients.size ?? 0 },
    pid: process.pid,
    uptime: Date.now() - rt.startedAt,
    ...processUsage(cfg.misc.normalizeCPU),
    allow_destructive: cfg.webserver.api.allow_destructive,
    dnsmasq,
  };
}

export function metricsInfo(rt: ApiDeps) {
  const c = dnsCounters(rt);
  const r = c?.replies;
  return {
    dns: {
      cache: {
        size: c?.cache.size ?? rt.config.current.dns.cache.size,
        inserted: c?.cache.inserted ?? 0,
        evicted: c?.cache.evicted ?? 0,
        expired: c?.cache.expired ?? 0,
        immortal: c?.cache.immortal ?? 0,
        content: [] as Array<{ type: number; name: string; count: { valid: number; stale: number } }>,
      },
      replies: {
        forwarded: r?.forwarded ?? 0,
        unanswered: r?.unanswered ?? 0,
        local: r?.local ?? 0,
        optimized: r?.optimized ?? 0,
        auth: r?.auth ?? 0,
        sum: r ? r.forwarded + r.unanswered + r.local + r.optimized + r.auth : 0,
      },
    },
    dhcp: { ...rt.dhcp.counters, leases: { ...rt.dhcp.counters.leases } },
  };
}

function messages(rt: Runtime) {
  const rows = rt.queryDb.query("SELECT id, timestamp, type, message, blob1, blob2, blob3, blob4, blob5 FROM message ORDER BY id").all() as Array<Record<string, any>>;
  const esc = (s: string) => s.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return rows.map((m) => ({ id: m.id, timestamp: m.timestamp, type: m.type, plain: String(m.message), html: esc(String(m.message)) }));
}

export function systemInfoRoutes(rt: ApiDeps) {
  const detail = (summary: string) => ({ tags: ["Info"], summary });
  return new Elysia({ name: "info-system" })
    .get("/info/system", () => ({ system: systemInfo(rt.config.current.misc.normalizeCPU) }), {
      response: t.Object({ system: SystemReply }),
      detail: detail("Uptime, memory, CPU and load of the machine"),
    })
    .get("/info/host", () => ({ host: hostInfo() }), { response: t.Object({ host: HostReply }), detail: detail("Kernel, model and DMI data of the machine") })
    .get("/info/sensors", () => ({ sensors: sensorsInfo(rt.config.current.webserver.api.temp.unit, rt.config.current.webserver.api.temp.limit) }), {
      response: t.Object({ sensors: SensorsReply }),
      detail: detail("Temperature sensors"),
    })
    .get("/info/ftl", () => ({ ftl: ftlInfo(rt) }), { response: t.Object({ ftl: FtlReply }), detail: detail("Moat's process, lists and clients") })
    .get(
      "/info/database",
      async () => {
        const s = liveStats(rt);
        const f = fileInfo(rt.paths.queryDb);
        const mem = storedQueries((await s.freshMemory()).db);
        const disk = storedQueries(s.disk.db);
        const version = (s.disk.db.query("SELECT sqlite_version() AS v").get() as { v: string }).v;
        // a file that cannot be stat'ed (not yet written) reads as empty, owned by this process
        const uid = process.getuid?.() ?? 0;
        const gid = process.getgid?.() ?? 0;
        const user = f?.owner.user ?? { uid, name: null, info: null };
        const group = f?.owner.group ?? { gid, name: null };
        return {
          size: f?.size ?? 0, type: f?.type ?? "file", mode: f?.mode ?? "0000", atime: f?.atime ?? 0, mtime: f?.mtime ?? 0, ctime: f?.ctime ?? 0,
          owner: { user: { uid: user.uid, name: user.name ?? String(user.uid), info: user.info ?? "" }, group: { gid: group.gid, name: group.name ?? String(group.gid) } },
          queries: mem.count, earliest_timestamp: mem.earliest, queries_disk: disk.count, earliest_timestamp_disk: disk.earliest, sqlite_version: version,
        };
      },
      { response: DatabaseReply, detail: detail("The long-term query database") },
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
    .get("/info/metrics", () => ({ metrics: metricsInfo(rt) }), { response: t.Object({ metrics: MetricsReply }), detail: detail("Cache and reply counters") });
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

