// The login rate limit, per client (clientKey: IPv4 address or IPv6 /64): failed password checks in
// the last second plus checks under way may not exceed `webserver.api.loginRateLimit`. Counting per
// client means one address hammering wrong passwords slows only itself, never the administrator
// elsewhere (a global count let ~20 wrong passwords a second lock everyone out).
import { clientKey } from "./client-key.ts";

const WINDOW_MS = 1000;
/** Clients remembered at most; beyond it the quietest are forgotten (memory stays bounded under a flood of addresses). */
const MAX_CLIENTS = 4096;

interface Tally {
  failures: number[];
  pending: number;
}

export class LoginLimiter {
  private readonly clients = new Map<string, Tally>();

  constructor(private readonly limit: () => number) {}

  private tally(key: string): Tally {
    let t = this.clients.get(key);
    if (!t) {
      if (this.clients.size >= MAX_CLIENTS) this.prune(performance.now());
      t = { failures: [], pending: 0 };
      this.clients.set(key, t);
    }
    return t;
  }

  private prune(now: number): void {
    for (const [k, t] of this.clients) {
      t.failures = t.failures.filter((f) => now - f < WINDOW_MS);
      if (!t.failures.length && !t.pending) this.clients.delete(k);
    }
    // still full: every entry is busy this second; forget the oldest entries
    for (const k of this.clients.keys()) {
      if (this.clients.size < MAX_CLIENTS) break;
      this.clients.delete(k);
    }
  }

  /** Seconds this client must wait before another password check, or 0 when it may go ahead. */
  retryAfter(ip: string): number {
    const limit = this.limit();
    if (limit === 0) return 0;
    const t = this.clients.get(clientKey(ip));
    if (!t) return 0;
    const now = performance.now();
    t.failures = t.failures.filter((f) => now - f < WINDOW_MS);
    if (t.failures.length + t.pending < limit) return 0;
    const oldest = t.failures[0];
    return oldest === undefined ? 1 : Math.max(1, Math.ceil((WINDOW_MS - (now - oldest)) / 1000));
  }

  /** Counts a password check under way for this client until `done` is called with its outcome. */
  begin(ip: string): (failed: boolean) => void {
    const key = clientKey(ip);
    const t = this.tally(key);
    t.pending++;
    let ended = false;
    return (failed) => {
      if (ended) return;
      ended = true;
      const cur = this.clients.get(key) ?? this.tally(key);
      cur.pending = Math.max(0, cur.pending - 1);
      if (failed) cur.failures.push(performance.now());
    };
  }
}
