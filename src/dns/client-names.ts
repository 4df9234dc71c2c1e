// Host names of the clients (resolver.*): each client address seen in the last 24 h is looked up
// by PTR through Moat's own resolver chain (local records, conditional forwarding to the router,
// the upstreams), as Pi-hole does. Names feed client entries given as host names, the network
// table and the statistics. Lookups run in the background; the hot path only reads a Map.
import type { Database } from "bun:sqlite";
import { isIP } from "node:net";
import type { Config } from "../config/index.ts";
import { writeWithoutWaiting } from "../db/no-wait.ts";
import { setAddressName } from "../network/names.ts";

/** How often the seen clients are checked for names, and how long a name (or its absence) holds. */
const SCAN_MS = 2_000;
const REFRESH_S = 3600;
/** Lookups per scan at most: a network full of new devices is named over a few scans. */
const PER_SCAN = 64;

export interface ClientNamesOptions {
  config: () => Config;
  /** the addresses seen lately */
  clients: () => Iterable<string>;
  /** PTR lookup through the resolver chain, recording nothing */
  lookupPtr: (ip: string) => Promise<string | null>;
  /** the long-term database, whose network table keeps the names */
  db: Database;
  /** called when a client's name changed */
  changed: (ip: string) => void;
}

export class ClientNames {
  private readonly names = new Map<string, { name: string | null; at: number }>();
  /** names not yet in the network table: written without waiting for the database, else at a later scan */
  private readonly unsaved = new Map<string, { name: string | null; at: number }>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private running = false;

  constructor(private readonly o: ClientNamesOptions) {}

  start(): void {
    this.timer ??= setInterval(() => void this.scan(), SCAN_MS);
    (this.timer as { unref?: () => void }).unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The host name of a client, when known (hot path: a Map read). */
  nameOf(ip: string): string | null {
    return this.names.get(ip)?.name ?? null;
  }

  /** Looks the address up again at the next scan when it has no name yet. */
  forgetIfUnnamed(ip: string): void {
    if (this.names.get(ip)?.name === null) this.names.delete(ip);
  }

  /** Every client with a known name. */
  *known(): Iterable<[string, string]> {
    for (const [ip, n] of this.names) if (n.name) yield [ip, n.name];
  }

  /** Looks up the clients that are due; resolves when done (tests wait on it). */
  async scan(now = Date.now() / 1000): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const r = this.o.config().resolver;
      const due: string[] = [];
      for (const ip of this.o.clients()) {
        const fam = isIP(ip);
        if (!fam || (fam === 4 && !r.resolveIPv4) || (fam === 6 && !r.resolveIPv6) || ip === "0.0.0.0") continue;
        const known = this.names.get(ip);
        if (known && !this.refreshes(known.name, fam, r.refreshNames, now - known.at)) continue;
        due.push(ip);
        if (due.length >= PER_SCAN) break;
      }
      await Promise.all(due.map((ip) => this.resolve(ip, now)));
      this.save();
    } finally {
      this.running = false;
    }
  }

  private refreshes(name: string | null, fam: number, mode: Config["resolver"]["refreshNames"], age: number): boolean {
    if (age < REFRESH_S) return false;
    switch (mode) {
      case "NONE":
        return false;
      case "UNKNOWN":
        return name === null;
      case "IPV4_ONLY":
        return fam === 4;
      default:
        return true;
    }
  }

  private async resolve(ip: string, now: number): Promise<void> {
    let name: string | null = null;
    try {
      name = await this.o.lookupPtr(ip);
    } catch {
      name = null;
    }
    const before = this.names.get(ip)?.name ?? null;
    this.names.set(ip, { name, at: now });
    if (name === before) return;
    this.unsaved.set(ip, { name, at: now });
    this.o.changed(ip);
  }

  /** Writes the names the network table lacks, as far as the database lets this thread at once. */
  private save(): void {
    for (const [ip, n] of this.unsaved) {
      try {
        if (!writeWithoutWaiting(this.o.db, () => setAddressName(this.o.db, ip, n.name, n.at))) return;
      } catch {
        // a failing database: the name is still known in memory
      }
      this.unsaved.delete(ip);
    }
  }
}
