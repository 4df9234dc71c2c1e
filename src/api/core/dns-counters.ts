// The DNS engine's counters as /api/info/metrics, /api/info/ftl, /api/padd, /api/stats/summary and
// /metrics show them.
import type { DnsHandle } from "../../dns/server.ts";
import type { FilterHandle } from "../../filter/service.ts";

interface DnsCounters {
  cache: {
    /** configured capacity (entries) */
    size: number;
    /** entries currently held */
    entries: number;
    inserted: number;
    evicted: number;
    expired: number;
    immortal: number;
    hits: number;
    misses: number;
  };
  /** answers by origin since start */
  replies: { forwarded: number; unanswered: number; local: number; optimized: number; auth: number };
  /**
   * The unique domains on the block lists, as the filter in force holds them (= COUNT(DISTINCT domain)
   * of the gravity table, Pi-hole's gravity_count): domains_being_blocked, gravity_size, /api/info/ftl
   * database.gravity and /metrics all show this one number. Deny entries are counted apart.
   */
  gravitySize: () => number;
}

/** The counters, or undefined when the engine cannot say (the API then shows null). */
export function dnsCounters(rt: { dns: DnsHandle; filter: FilterHandle }): DnsCounters | undefined {
  try {
    const c = rt.dns.cache();
    const f = rt.filter.counts();
    return {
      cache: {
        size: c.max,
        entries: c.size,
        inserted: c.inserted,
        evicted: c.evicted,
        expired: c.expired,
        immortal: 0,
        hits: c.hits + c.staleHits,
        misses: c.misses,
      },
      replies: rt.dns.replies(),
      gravitySize: () => f.gravity,
    };
  } catch {
    return undefined;
  }
}
