// What the forwarder needs of an encrypted upstream (upstream-dot.ts, upstream-doh.ts): one query in,
// its answer (a private copy the forwarder may patch) or null out, never a rejection.
import type { Bootstrap } from "./bootstrap.ts";

export interface EncryptedTransport {
  exchange(query: Uint8Array, timeoutMs: number): Promise<Uint8Array | null>;
  /** why the last exchange failed, in words for the log and the API; null once answers come back */
  readonly lastError: string | null;
  close(): void;
}

export interface TransportOptions {
  /** the upstream as the user wrote it (log lines and statistics) */
  name: string;
  /** the name the certificate must carry, sent as SNI */
  host: string;
  /** the address to connect to; null: look `host` up through the bootstrap servers */
  ip: string | null;
  port: number;
  /** DoH only: path and query of the URL */
  path: string;
  bootstrap: Bootstrap;
  log: (level: "warn" | "info", message: string) => void;
}

/**
 * Failure bookkeeping shared by the transports: the first failure of a kind is logged (not one line per
 * query), and after repeated failures the upstream is skipped for a growing pause (0.25 s doubling to
 * 30 s), so the forwarder fails over at once instead of waiting out a timeout per query.
 */
export class Health {
  lastError: string | null = null;
  private logged: string | null = null;
  private failures = 0;
  private pauseUntil = 0;

  constructor(private readonly opts: TransportOptions) {}

  /** Skipped for now after failures: the caller answers null without trying. */
  paused(): boolean {
    return this.pauseUntil > performance.now();
  }

  failed(why: string): void {
    this.lastError = why;
    this.failures++;
    if (this.failures >= 2)
      this.pauseUntil = performance.now() + Math.min(30_000, 250 * 2 ** Math.min(this.failures - 2, 7));
    if (this.logged !== why) {
      this.logged = why;
      this.opts.log("warn", `upstream ${this.opts.name}: ${why}`);
    }
  }

  answered(): void {
    if (this.logged !== null) this.opts.log("info", `upstream ${this.opts.name} answers again`);
    this.lastError = this.logged = null;
    this.failures = 0;
    this.pauseUntil = 0;
  }
}
