// The order in which a query tries its upstreams, by dns.upstreamMode. FASTEST: the best smoothed
// response time first (an untried server counts as fastest, so a quick new one is found), the rest
// behind it for failover. LOAD_BALANCE: the first server drawn at random, weighted by the inverse of
// its smoothed time plus LB_DAMPING_MS, so servers a few milliseconds apart share the load about
// evenly and one ten times slower still gets some of it (AdGuard Home's load_balance is a weighted
// draw by response time too); the rest follow fastest first. PARALLEL asks them all at once
// (forwarder.ts), in this same FASTEST order.

/** what the ordering reads of an upstream */
interface Timed {
  count: number;
  smoothed: number;
}

/** added to every smoothed time before it weighs a draw: below this, differences hardly count */
const LB_DAMPING_MS = 10;

function score(u: Timed): number {
  return u.count === 0 ? 0 : u.smoothed;
}

/** `ups` in the order a query tries them (a new array when it has two or more). */
export function orderUpstreams<U extends Timed>(ups: U[], mode: string): U[] {
  if (ups.length < 2) return ups;
  const sorted = [...ups].sort((a, b) => score(a) - score(b));
  if (mode !== "LOAD_BALANCE") return sorted;
  let total = 0;
  for (const u of sorted) total += 1 / (score(u) + LB_DAMPING_MS);
  let x = Math.random() * total;
  for (let i = 0; i < sorted.length; i++) {
    x -= 1 / (score(sorted[i]!) + LB_DAMPING_MS);
    if (x <= 0 || i === sorted.length - 1) {
      if (i > 0) sorted.unshift(sorted.splice(i, 1)[0]!);
      break;
    }
  }
  return sorted;
}
