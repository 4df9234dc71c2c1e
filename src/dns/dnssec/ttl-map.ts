// What the validator keeps (fetched key sets, zone verdicts, the walk's steps): one promise per key, shared
// by every caller until it settles, then kept for as long as its value allows.

/** entries kept; past it the map starts over (a flood of names must not grow it) */
const MAX_ENTRIES = 10_000;

export class TtlMap<V> {
  private readonly m = new Map<string, { v: Promise<V>; until: number }>();
  constructor(private readonly now: () => number) {}
  has(k: string): boolean {
    const e = this.m.get(k);
    return e !== undefined && e.until > this.now();
  }
  get(k: string, make: () => Promise<V>, keep: (v: V) => number): Promise<V> {
    const e = this.m.get(k);
    if (e && e.until > this.now()) return e.v;
    if (this.m.size >= MAX_ENTRIES) this.m.clear();
    const v = make();
    const entry = { v, until: Number.POSITIVE_INFINITY };
    this.m.set(k, entry);
    // until it settles every caller shares the one promise; then it lives as long as its verdict allows
    void v.then(
      (x) => {
        entry.until = this.now() + keep(x) * 1000;
      },
      () => this.m.delete(k),
    );
    return v;
  }
}
