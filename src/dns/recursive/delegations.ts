// The zone cuts learnt from referrals, with their name servers' addresses, for their NS TTL: a warm
// resolution starts at the closest known cut instead of the root (unbound's delegation cache).
import { equalNames, nameKey, parentOf } from "../dnssec/names.ts";
import type { RootServer } from "./hints.ts";

export interface NameServer {
  name: Uint8Array;
  /** from in-bailiwick glue, or looked up (glueless) */
  addrs: string[];
}

export interface Cut {
  zone: Uint8Array;
  servers: NameServer[];
  /** performance.now() after which the cut is learnt again */
  expires: number;
}

const MAX_CUTS = 10_000;
/** an NS TTL above this is cut short (unbound's cache-max-ttl is a day) */
const MAX_TTL_S = 86_400;
/** how long an expired cut may still serve when its parent cannot be reached (RFC 8767 §5 suggests 1 to 3 days) */
const STALE_S = 86_400;
/** a failed priming query is sent again after this long (the hints serve meanwhile) */
const PRIME_RETRY_S = 60;

export class Delegations {
  private readonly cuts = new Map<string, Cut>();
  /** names a minimised query found to exist inside their zone, no cut (RFC 9156 §2.3: not asked again), until when */
  private readonly inside = new Map<string, number>();
  private root: Cut = { zone: Uint8Array.of(0), servers: [], expires: 0 };
  private hints: readonly RootServer[] = [];
  /** resolutions that started below the root thanks to a cached cut */
  hits = 0;

  setRoot(hints: readonly RootServer[]): void {
    this.hints = hints;
    this.root = this.fromHints(0);
    this.cuts.clear();
    this.inside.clear();
  }

  private fromHints(expires: number): Cut {
    const servers = this.hints.map((h) => ({ name: h.name, addrs: [...h.addrs] }));
    return { zone: Uint8Array.of(0), servers, expires };
  }

  /** Whether the root's NS set is to be asked of its servers (RFC 8109 §3: at start, and when its TTL ran out). */
  needsPriming(): boolean {
    return this.root.expires <= performance.now();
  }

  /**
   * The root's NS set as its servers gave it (RFC 8109 §3), for its TTL; null: the priming query failed,
   * the hints serve and it is tried again after PRIME_RETRY_S.
   */
  primed(servers: NameServer[] | null, ttl: number): void {
    const expires = performance.now() + Math.min(servers ? ttl : PRIME_RETRY_S, MAX_TTL_S) * 1000;
    this.root = servers ? { zone: Uint8Array.of(0), servers, expires } : this.fromHints(expires);
  }

  /** The deepest cut known at or above `name` (the root at last). */
  closest(name: Uint8Array): Cut {
    const now = performance.now();
    for (let n = name; n[0] !== 0; n = parentOf(n)) {
      const k = nameKey(n);
      const c = this.cuts.get(k);
      if (!c) continue;
      if (c.expires > now) {
        this.hits++;
        return c;
      }
      if (c.expires + STALE_S * 1000 <= now) this.cuts.delete(k);
    }
    return this.root;
  }

  /**
   * An expired cut at or above `name` and below `zone`, kept for STALE_S: when `zone`'s servers cannot be
   * reached to learn it again, its old servers are asked (RFC 8767 §4, serve-stale, for delegations).
   */
  stale(name: Uint8Array, zone: Uint8Array): Cut | null {
    const now = performance.now();
    for (let n = name; n[0] !== 0 && !equalNames(n, zone); n = parentOf(n)) {
      const c = this.cuts.get(nameKey(n));
      if (c && c.expires <= now && c.expires + STALE_S * 1000 > now) return c;
    }
    return null;
  }

  /** Remembers that `name` exists and is no zone cut, for `ttl` seconds. */
  noCut(name: Uint8Array, ttl: number): void {
    const k = nameKey(name);
    this.inside.delete(k);
    if (this.inside.size >= MAX_CUTS) this.inside.delete(this.inside.keys().next().value!);
    this.inside.set(k, performance.now() + Math.min(ttl, MAX_TTL_S) * 1000);
  }

  /** Whether `name` was found to be no zone cut (and that is still fresh). */
  isNoCut(name: Uint8Array): boolean {
    const until = this.inside.get(nameKey(name));
    return until !== undefined && until > performance.now();
  }

  learn(zone: Uint8Array, servers: NameServer[], ttl: number): Cut {
    const k = nameKey(zone);
    this.cuts.delete(k); // re-inserted last: the oldest go first
    if (this.cuts.size >= MAX_CUTS) this.cuts.delete(this.cuts.keys().next().value!);
    const c = { zone, servers, expires: performance.now() + Math.min(ttl, MAX_TTL_S) * 1000 };
    this.cuts.set(k, c);
    return c;
  }
}
