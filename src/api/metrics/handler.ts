// GET /metrics (outside /api): Prometheus text exposition, guarded by the bearer token
// `webserver.api.metricsToken` instead of a session, so scrapers never take session seats.
import { timingSafeEqual } from "node:crypto";
import type { ApiDeps } from "../deps.ts";
import { QUERY_STATUS, QUERY_TYPES } from "../../query/enums.ts";
import { Exposition } from "./prometheus.ts";
import { LATENCY_BUCKETS } from "../../stats/window.ts";
import { gravityCount } from "../stats/routes.ts";
import { dnsCounters } from "../core/dns-counters.ts";

function errorReply(status: number, key: string, message: string, hint: string | null): Response {
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="moat-metrics"';
  return new Response(JSON.stringify({ error: { key, message, hint }, took: 0 }), { status, headers });
}

function tokenMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The metrics text (exported for tests and the benchmark). */
function renderMetrics(rt: ApiDeps, sessions: () => number): string {
  const e = new Exposition();
  const s = rt.stats;
  s.syncMemory();
  const w = s.window;
  const lt = w.lifetime;
  e.metric(
    "moat_queries_total",
    "counter",
    "DNS queries answered since start, by status",
    QUERY_STATUS.map((st, i) => [{ status: st }, lt.status[i] ?? 0]),
  );
  e.metric(
    "moat_queries_by_type_total",
    "counter",
    "DNS queries answered since start, by query type",
    QUERY_TYPES.map((ty, i) => [{ type: ty }, lt.types[i] ?? 0]),
  );
  e.metric("moat_queries_blocked_total", "counter", "DNS queries blocked since start", lt.blocked);
  e.metric("moat_queries_24h", "gauge", "DNS queries in the last 24 hours", w.total);
  e.metric("moat_queries_blocked_24h", "gauge", "DNS queries blocked in the last 24 hours", w.blocked);
  e.metric("moat_clients_active", "gauge", "Clients with queries in the last 24 hours", w.clients.size);
  const lat = w.latency;
  e.histogram(
    "moat_upstream_response_seconds",
    "Reply time of forwarded queries",
    LATENCY_BUCKETS,
    lat.buckets,
    lat.sum,
    lat.count,
  );
  const c = dnsCounters(rt)?.cache;
  if (c) {
    e.metric("moat_cache_entries", "gauge", "Entries in the DNS cache", c.entries);
    e.metric("moat_cache_size", "gauge", "Capacity of the DNS cache", c.size);
    e.metric("moat_cache_hits_total", "counter", "DNS cache hits", c.hits);
    e.metric("moat_cache_misses_total", "counter", "DNS cache misses", c.misses);
    e.metric("moat_cache_inserted_total", "counter", "DNS cache insertions", c.inserted);
    e.metric("moat_cache_evicted_total", "counter", "DNS cache entries evicted before expiry", c.evicted);
    e.metric("moat_cache_expired_total", "counter", "DNS cache entries expired", c.expired);
  }
  const r = rt.dns.recursive();
  e.metric(
    "moat_recursive_resolutions_total",
    "counter",
    "Client queries resolved from the root servers (dns.recursive); their DNSSEC key fetches count with them",
    r.resolutions,
  );
  e.metric(
    "moat_recursive_queries_sent_total",
    "counter",
    "Queries sent to authoritative servers for them (divided by the resolutions: queries per client query)",
    r.sent,
  );
  e.metric(
    "moat_recursive_delegation_hits_total",
    "counter",
    "Resolutions that started at a cached zone cut instead of the root",
    r.delegationHits,
  );
  const perThread = rt.dns.threadAnswers();
  e.metric(
    "moat_dns_thread_answers_total",
    "counter",
    "DNS queries answered by each DNS thread since it started (dns.threads; thread 0 is the main thread: TCP, DoT and DoH, and UDP too with one thread or with dns.interface set; threads 1… answer UDP)",
    perThread.map((n, i) => [{ thread: String(i) }, n]),
  );
  e.metric("moat_gravity_domains", "gauge", "Domains on the blocklists (gravity)", gravityCount(rt));
  e.metric("moat_blocking_enabled", "gauge", "1 when blocking is on", rt.blocking.active ? 1 : 0);
  e.metric("moat_api_sessions", "gauge", "Active API sessions", sessions());
  e.metric("moat_querydb_pending", "gauge", "Queries waiting to be written to the long-term database", s.pendingDisk);
  e.metric(
    "moat_querydb_write_errors_total",
    "counter",
    "Failed writes to the long-term database",
    s.counters.diskWriteErrors,
  );
  e.metric(
    "moat_querylog_dropped_total",
    "counter",
    "Query records dropped: the long-term database kept failing, or the writer thread fell too far behind",
    s.counters.dropped,
  );
  e.metric(
    "moat_querylog_shed_total",
    "counter",
    "Queries whose details left the 24 h query log early to keep it within database.queryLogMemory (statistics still count them)",
    s.counters.shed,
  );
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  e.metric("process_resident_memory_bytes", "gauge", "Resident memory size in bytes", mem.rss);
  e.metric("process_heap_bytes", "gauge", "JavaScript heap in use, bytes", mem.heapUsed);
  e.metric(
    "process_cpu_seconds_total",
    "counter",
    "User and system CPU time spent in seconds",
    (cpu.user + cpu.system) / 1e6,
  );
  e.metric(
    "process_start_time_seconds",
    "gauge",
    "Start time of the process since unix epoch in seconds",
    Math.floor(rt.startedAt / 1000),
  );
  return e.text();
}

export function metricsHandler(rt: ApiDeps, sessions: () => number) {
  return async (req: Request): Promise<Response> => {
    if (req.method !== "GET" && req.method !== "HEAD") return errorReply(404, "not_found", "Not found", "/metrics");
    const token = rt.config.current.webserver.api.metricsToken;
    if (!token)
      return errorReply(
        404,
        "not_found",
        "Not found",
        "/metrics is disabled: set webserver.api.metricsToken to enable it",
      );
    const auth = req.headers.get("authorization") ?? "";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m)
      return errorReply(
        401,
        "unauthorized",
        "Unauthorized",
        'Send the metrics token as "Authorization: Bearer <webserver.api.metricsToken>"',
      );
    if (!tokenMatches(m[1]!, token)) return errorReply(401, "unauthorized", "Unauthorized", "Wrong metrics token");
    // every query the DNS threads answered before the request, and their counters, as the API's reads see them
    await rt.dns.syncRecords();
    return new Response(req.method === "HEAD" ? null : renderMetrics(rt, sessions), {
      headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" },
    });
  };
}
