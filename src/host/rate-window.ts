// A rate over a real span of time. Sampling CPU counters "since the previous call" divides by
// microseconds when two requests come in a row (PADD asks /api/padd, then /api/info/ftl); here each
// reading is compared with a sample at least `span` seconds old (fewer while the process is young).

export interface Reading {
  /** the counter that grows (busy jiffies, CPU seconds) */
  part: number;
  /** what it is a share of (all jiffies, wall seconds) */
  whole: number;
  /** when, in seconds on a monotonic clock */
  at: number;
}

/** Samples closer together than this are not kept: a burst of requests adds one sample. */
const MIN_SPACING = 1;

export class RateWindow {
  private samples: Reading[] = [];

  /** `origin`: the reading before any sample (process start, machine boot). */
  constructor(
    private readonly span: number,
    private readonly origin: () => Reading,
  ) {}

  /** 100·Δpart/Δwhole against the newest sample `span` old, else the oldest one at least a second old, else the origin. */
  percent(now: Reading): number {
    let ref: Reading | undefined;
    let keepFrom = 0;
    for (let i = 0; i < this.samples.length; i++) {
      if (now.at - this.samples[i]!.at >= this.span) [ref, keepFrom] = [this.samples[i], i];
    }
    if (!ref) ref = this.samples.find((s) => now.at - s.at >= MIN_SPACING) ?? this.origin();
    this.samples = this.samples.slice(keepFrom);
    const last = this.samples[this.samples.length - 1];
    if (!last || now.at - last.at >= MIN_SPACING) this.samples.push(now);
    const whole = now.whole - ref.whole;
    return whole > 0 ? (100 * (now.part - ref.part)) / whole : 0;
  }
}
