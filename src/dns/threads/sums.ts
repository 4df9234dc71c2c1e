// The counters of every DNS thread as one: what /api/info/metrics, /api/padd and /metrics show.
import type { CacheCounters } from "../cache.ts";
import type { Origins } from "../engine.ts";
import type { UpstreamStats } from "../forwarder.ts";
import type { ThreadCounters } from "./protocol.ts";

/** The shared entries and dns.cache.size count in the main thread's alone; each thread adds its own too-large answers and its events. */
export function sumCache(own: CacheCounters, others: CacheCounters[]): CacheCounters {
  const out = { ...own };
  for (const c of others) for (const k of Object.keys(out) as Array<keyof CacheCounters>) out[k] += c[k];
  return out;
}

/** Counters that add up field by field (every field a number). */
export function sumFields<T extends object>(own: T, others: T[]): T {
  const out = { ...own } as Record<string, number>;
  for (const c of others) for (const [k, v] of Object.entries(c)) out[k] = (out[k] ?? 0) + (v as number);
  return out as T;
}

export function sumOrigins(own: Origins, others: Origins[]): Origins {
  const out = { ...own };
  for (const c of others) for (const k of Object.keys(out) as Array<keyof Origins>) out[k] += c[k];
  return out;
}

/** Per upstream: counts add up, the mean response time is weighted by answers; the order is the main thread's. */
export function sumUpstreams(own: UpstreamStats[], others: UpstreamStats[][]): UpstreamStats[] {
  if (!others.length) return own;
  const out = new Map(own.map((u) => [u.name, { ...u }]));
  for (const list of others) {
    for (const u of list) {
      const t = out.get(u.name);
      if (!t) continue; // an upstream this thread has not taken over yet, or no longer has
      const answered = t.answered + u.answered;
      t.responseTime = answered ? (t.responseTime * t.answered + u.responseTime * u.answered) / answered : 0;
      t.count += u.count;
      t.answered = answered;
      t.failed += u.failed;
    }
  }
  return [...out.values()];
}

/** A thread's counters after those of the thread that died in its place: the events add up, the cache's size is the new one's. */
export function sumThreadCounters(before: ThreadCounters, now: ThreadCounters): ThreadCounters {
  return {
    answered: before.answered + now.answered,
    origins: sumOrigins(now.origins, [before.origins]),
    cache: { ...sumFields(now.cache, [before.cache]), size: now.cache.size, max: now.cache.max },
    upstreams: sumUpstreams(now.upstreams, [before.upstreams]),
    recursive: sumFields(now.recursive, [before.recursive]),
  };
}
