// The domains of bench/mix's query file (bench/mix/data.ts, its default sizes), drawn one at a time with
// the caller's random numbers, for the writer's benches: 65% from 100k popular names on a Zipf curve, 22%
// from 150k list names, 8% subdomains of 60k more, 5% names never seen before. A popular head and a long
// tail: ~300k distinct names in 1M queries, more than the writer caches (src/querylog/name-ids.ts).

/** bench/mix/data.ts's draw of a query's domain: [domain, whether a list blocks it] */
export function mixDomains(rnd: () => number): () => [string, boolean] {
  const POPULAR = 100_000;
  const cdf = new Float64Array(POPULAR);
  let sum = 0;
  for (let i = 0; i < POPULAR; i++) cdf[i] = sum += 1 / (i + 1);
  const rank = () => {
    const x = rnd() * sum;
    let lo = 0;
    let hi = POPULAR - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const subs = ["www", "ads", "cdn", "track", "pixel", "img", "api", "m"];
  let fresh = 0;
  return () => {
    const x = rnd();
    if (x < 0.65) return [`p${rank()}.pop.test`, false];
    if (x < 0.87) return [`h${Math.floor(rnd() * 150_000)}.hosts.example`, true];
    if (x < 0.95) return [`${subs[Math.floor(rnd() * 8)]}.a${Math.floor(rnd() * 60_000)}.abp.example`, true];
    return [`new${fresh++}.fresh.test`, false];
  };
}
