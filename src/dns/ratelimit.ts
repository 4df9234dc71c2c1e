// Per-client rate limit, as in Pi-hole: dns.rateLimit.count queries per dns.rateLimit.interval
// seconds; above it the client gets REFUSED and its queries are not recorded. One log line per episode.
export class RateLimiter {
  private counts = new Map<string, number>();
  private limited = new Set<string>();
  private windowStart = Date.now();

  constructor(
    private readonly settings: () => { count: number; interval: number },
    private readonly log: (m: string) => void,
    /** the start of an episode, as its log line: the caller only hands it off */
    private readonly limited_: (client: string, seconds: number) => void = () => {},
  ) {}

  /** true when the client is over its limit */
  over(client: string): boolean {
    const { count, interval } = this.settings();
    if (count === 0 || interval === 0) return false;
    const now = Date.now();
    if (now - this.windowStart >= interval * 1000) {
      for (const c of this.limited) if ((this.counts.get(c) ?? 0) <= count) this.log(`Ending rate-limitation of ${c}`);
      this.limited = new Set([...this.limited].filter((c) => (this.counts.get(c) ?? 0) > count));
      for (const c of this.limited) this.log(`Still rate-limiting ${c}`);
      this.counts.clear();
      this.windowStart = now;
    }
    const n = (this.counts.get(client) ?? 0) + 1;
    this.counts.set(client, n);
    if (n <= count) return false;
    if (!this.limited.has(client)) {
      this.limited.add(client);
      const seconds = Math.ceil((this.windowStart + interval * 1000 - now) / 1000);
      this.log(`Rate-limiting ${client} for at least ${seconds} seconds`);
      this.limited_(client, seconds);
    }
    return true;
  }
}
