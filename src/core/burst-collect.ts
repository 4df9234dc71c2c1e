// A full collection of the main thread's heap once a burst of work is over. Every answered query
// leaves some garbage behind (packets, names, closures), and in a flood the collector lets it pile up
// in proportion to the heap it thinks it has, which counts the 24 h window's typed arrays
// (src/stats/ring.ts): measured in bench/mix, ~30 MiB of RSS the process kept for minutes at a
// home's rate after a flood, for nothing. When the rate of work falls to half its peak or less, one
// collection is started (Bun.gc(false): the marking runs beside this thread, which pays ~1 ms),
// and the freed memory goes back to the system. Bounded: at most one per `minWork` units of work, so
// a steady network triggers nothing and a quiet one one every few minutes at most.

export interface BurstCollectOptions {
  /** units of work (queries) since the last collection below which no collection is worth it */
  minWork?: number;
  /** how often the rate is looked at */
  everyMs?: number;
  /** the collection (tests count calls) */
  collect?: () => void;
}

export class BurstCollector {
  private last: number;
  private sinceCollect = 0;
  /** the highest work per tick since the last collection */
  private peak = 0;

  constructor(
    private readonly work: () => number,
    private readonly minWork: number,
    private readonly collect: () => void,
  ) {
    this.last = work();
  }

  /** One look at the rate; true when it started a collection. */
  tick(): boolean {
    const now = this.work();
    const done = Math.max(0, now - this.last);
    this.last = now;
    this.sinceCollect += done;
    if (this.sinceCollect >= this.minWork && done * 2 <= this.peak) {
      this.collect();
      this.sinceCollect = 0;
      this.peak = done;
      return true;
    }
    this.peak = Math.max(this.peak, done);
    return false;
  }
}

/** Looks at `work()` (a running count) every second; returns the stop function. */
export function collectAfterBursts(work: () => number, o: BurstCollectOptions = {}): () => void {
  const c = new BurstCollector(work, o.minWork ?? 20_000, o.collect ?? (() => Bun.gc(false)));
  const timer = setInterval(() => c.tick(), o.everyMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}
