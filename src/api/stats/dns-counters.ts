// The DNS engine's counters as the statistics show them: from the running resolver (rt.dns)
// where it exposes them, else from rt.dnsCounters, else absent (the API then shows null).
import type { DnsCounters, Runtime } from "../../core/runtime.ts";

export function dnsCounters(rt: Runtime): DnsCounters | undefined {
  const extra = rt.dnsCounters;
  const dns = rt.dns;
  if (!dns) return extra;
  try {
    const c = dns.cache();
    const f = dns.filter();
    return {
      cache: {
        size: c.max, entries: c.size, inserted: c.inserted, evicted: c.evicted, expired: c.expired,
        immortal: extra?.cache.immortal ?? 0, hits: c.hits + c.staleHits, misses: c.misses,
      },
      replies: extra?.replies ?? dns.replies(),
      gravitySize: extra?.gravitySize ?? (() => f.gravity),
    };
  } catch {
    return extra;
  }
}
