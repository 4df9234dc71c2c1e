// GET /api/info/ftl: Moat's process, the sizes of its lists and clients, and the resolver's
// counters under the names dnsmasq gives them in Pi-hole.
import { t, type Static } from "elysia";
import { documented } from "../docs/meta.ts";
import type { ApiDeps } from "../deps.ts";
import { dnsCounters } from "../core/dns-counters.ts";
import { queryReads } from "../core/query-reads.ts";
import { processUsage } from "../../host/system.ts";
import { frequency, gravityCount } from "../stats/routes.ts";

const Int = t.Integer();
const Counted = t.Object({ total: Int, enabled: Int });
/** dnsmasq's counters as Pi-hole reports them (the DHCP ones from src/dhcp). */
const DNSMASQ_COUNTERS = [
  "dns_cache_inserted",
  "dns_cache_live_freed",
  "dns_queries_forwarded",
  "dns_auth_answered",
  "dns_local_answered",
  "dns_stale_answered",
  "dns_unanswered",
  "bootp",
  "pxe",
  "dhcp_ack",
  "dhcp_decline",
  "dhcp_discover",
  "dhcp_inform",
  "dhcp_nak",
  "dhcp_offer",
  "dhcp_release",
  "dhcp_request",
  "noanswer",
  "leases_allocated_4",
  "leases_pruned_4",
  "leases_allocated_6",
  "leases_pruned_6",
  "tcp_connections",
  // DHCPLEASEQUERY (RFC 4388) and its three answers; "actve" is dnsmasq's own spelling
  // (metric_names[] in its src/metrics.c), which FTL passes through and clients read as is
  "dhcp_leasequery",
  "dhcp_lease_unassigned",
  "dhcp_lease_actve",
  "dhcp_lease_unknown",
  "dnssec_max_crypto_use",
  "dnssec_max_sig_fail",
  "dnssec_max_work",
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
  dnsmasq: t.Object(
    Object.fromEntries(DNSMASQ_COUNTERS.map((k) => [k, Int])) as Record<(typeof DNSMASQ_COUNTERS)[number], typeof Int>,
  ),
});

const Reply = t.Object({ ftl: FtlReply });

function ftlInfo(rt: ApiDeps): Static<typeof FtlReply> {
  const w = rt.stats.window;
  const cfg = rt.config.current;
  const c = dnsCounters(rt);
  // dnsmasq's own counters in Pi-hole; Moat's resolver reports its equivalents (0 for what it does
  // not do: Moat's DHCP server answers no DHCPLEASEQUERY, so those four stay 0)
  const dnsmasq = Object.fromEntries(DNSMASQ_COUNTERS.map((k) => [k, 0])) as Record<
    (typeof DNSMASQ_COUNTERS)[number],
    number
  >;
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
    bootp: d.bootp,
    pxe: d.pxe,
    dhcp_ack: d.ack,
    dhcp_decline: d.decline,
    dhcp_discover: d.discover,
    dhcp_inform: d.inform,
    dhcp_nak: d.nak,
    dhcp_offer: d.offer,
    dhcp_release: d.release,
    dhcp_request: d.request,
    noanswer: d.noanswer,
    leases_allocated_4: d.leases.allocated_4,
    leases_pruned_4: d.leases.pruned_4,
    leases_allocated_6: d.leases.allocated_6,
    leases_pruned_6: d.leases.pruned_6,
  });
  return {
    database: { gravity: gravityCount(rt), ...rt.lists.listsCounts() },
    privacy_level: cfg.misc.privacylevel,
    query_frequency: frequency(rt),
    clients: { total: w.clientsEver.size, active: w.clients.size },
    pid: process.pid,
    uptime: Date.now() - rt.startedAt,
    ...processUsage(cfg.misc.normalizeCPU),
    allow_destructive: cfg.webserver.api.allow_destructive,
    dnsmasq,
  };
}

export function ftlInfoRoutes(rt: ApiDeps) {
  // the window and the DNS threads' counters as of the request (queryReads waits for their records)
  return queryReads(rt, "info-ftl").get("/info/ftl", (): Static<typeof Reply> => ({ ftl: ftlInfo(rt) }), {
    // "%mem": for the reference only (docs/meta.ts, RouteDocs.reply)
    detail: documented({ tags: ["Info"], summary: "Moat's process, lists and clients" }, { reply: Reply }),
  });
}
