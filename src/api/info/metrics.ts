// GET /api/info/metrics: the DNS cache's and the DHCP server's counters, as Pi-hole reports them.
import { t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { dnsCounters } from "../core/dns-counters.ts";
import { queryReads } from "../core/query-reads.ts";

const Int = t.Integer();

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
    ack: Int,
    nak: Int,
    decline: Int,
    offer: Int,
    discover: Int,
    inform: Int,
    request: Int,
    release: Int,
    noanswer: Int,
    bootp: Int,
    pxe: Int,
    leases: t.Object({ allocated_4: Int, pruned_4: Int, allocated_6: Int, pruned_6: Int }),
  }),
});

function metricsInfo(rt: ApiDeps) {
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

export function metricsInfoRoutes(rt: ApiDeps) {
  // the DNS threads' counters as of this request, as the statistics are (queryReads waits for them)
  return queryReads(rt, "info-metrics").get("/info/metrics", () => ({ metrics: metricsInfo(rt) }), {
    response: t.Object({ metrics: MetricsReply }),
    detail: { tags: ["Info"], summary: "Cache and reply counters" },
  });
}
