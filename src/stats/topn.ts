// The top lists (/api/stats/top_domains, top_clients, /api/padd, /api/history/clients): a bounded
// selection, not a sort of the whole map. The window may hold a million domains, and this runs on
// the thread that answers DNS.
import type { CompactTallies, Tally } from "./tallies.ts";

type Counted = Pick<Tally, "count" | "blocked">;

/**
 * The n keys with the largest value of `pick`, largest first (ties by key for stable output), fed
 * one entry at a time (`offer`, in the shape of a Map's or CompactTallies' forEach); keys for which
 * `skip` says so are left out. n <= 0: every key with a value above 0.
 */
export class TopList<T extends Counted> {
  private readonly out: Array<[string, number]> = [];
  /** the value an entry must reach once `out` is full */
  private floor = 0;

  constructor(
    private readonly n: number,
    private readonly pick: (t: T) => number,
    private readonly skip?: (key: string) => boolean,
  ) {}

  /** One entry. `lazy`: its key, or a function that decodes it; the third argument: CompactTallies'
   * keyBefore, or a Map's own map (ignored). */
  readonly offer = (t: T, lazy: string | (() => string), third?: unknown): void => {
    const { n, out } = this;
    const v = this.pick(t);
    const full = n > 0 && out.length === n;
    if (v <= 0 || (full && v < this.floor)) return;
    // a tie with the last kept entry: its key decides, compared without decoding where the map can
    // (a day of names asked once each ties them all at the floor: 235 ms of decoding for a top 100 of 1M)
    const keyBefore = typeof third === "function" ? (third as (s: string) => boolean) : undefined;
    if (full && v === this.floor && keyBefore && !keyBefore(out[n - 1]![0])) return;
    const k = typeof lazy === "string" ? lazy : lazy();
    if (full && !before(k, v, out[n - 1]!)) return;
    if (this.skip?.(k)) return;
    if (n <= 0) {
      out.push([k, v]);
      return;
    }
    // insertion into the short sorted list
    let i = out.length < n ? out.length : n - 1;
    while (i > 0 && before(k, v, out[i - 1]!)) {
      out[i] = out[i - 1]!;
      i--;
    }
    out[i] = [k, v];
    if (out.length === n) this.floor = out[n - 1]![1];
  };

  /** The list, largest first. */
  result(): Array<[string, number]> {
    if (this.n <= 0) this.out.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return this.out;
  }
}

function before(k: string, v: number, b: [string, number]): boolean {
  return v > b[1] || (v === b[1] && k < b[0]);
}

/**
 * topN over a Map or CompactTallies in one call. forEach, not for…of: no [key, value] array per
 * entry; a key kept outside the heap (CompactTallies) is decoded only for the entries that reach the
 * comparison.
 */
export function topN<T extends Counted>(
  m: { forEach(fn: (t: T, key: string | (() => string), third?: unknown) => void): void },
  n: number,
  pick: (t: T) => number,
  skip?: (key: string) => boolean,
): Array<[string, number]> {
  const top = new TopList(n, pick, skip);
  m.forEach(top.offer);
  return top.result();
}

/**
 * Top lists over the day's domains, all in one pass, in slices of ~`sliceMs` with the event loop
 * free between them: a pass over a million names takes 20-70 ms. Counts that change meanwhile are
 * read as they are when their name's turn comes.
 */
export async function topDomains(
  domains: CompactTallies,
  lists: Array<TopList<Counted>>,
  sliceMs = 2,
): Promise<Array<Array<[string, number]>>> {
  await domains.forEachInSlices((t, key, keyBefore) => {
    for (const list of lists) list.offer(t, key, keyBefore);
  }, sliceMs);
  return lists.map((l) => l.result());
}
