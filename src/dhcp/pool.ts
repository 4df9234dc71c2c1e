// Which address a client gets: its reservation, else the address it already holds, else the one
// it asks for, else a free one starting from a place derived from its MAC (so a client tends to
// get the same address again even after its lease is gone, as with dnsmasq).
import type { LeaseStore } from "./leases.ts";
import { expired, nowSecs } from "./leases.ts";
import type { DhcpSettings, Reservation } from "./settings.ts";

/** Addresses held back for a while: offered to someone (until they answer) or found in use. */
export class HeldAddresses {
  private offered = new Map<number, { mac: string; until: number }>();
  private conflicts = new Map<number, number>();

  offer(ip: number, mac: string, seconds = 60): void {
    this.offered.set(ip, { mac, until: nowSecs() + seconds });
  }
  dropOffer(ip: number): void {
    this.offered.delete(ip);
  }
  /** after a DECLINE or a probe that got an answer: not handed out for `seconds` (dnsmasq: 10 min) */
  conflict(ip: number, seconds = 600): void {
    this.conflicts.set(ip, nowSecs() + seconds);
  }
  isHeldFor(ip: number, mac: string, now = nowSecs()): boolean {
    const c = this.conflicts.get(ip);
    if (c !== undefined && c > now) return true;
    const o = this.offered.get(ip);
    return o !== undefined && o.until > now && o.mac !== mac;
  }
}

export class Pool {
  constructor(
    private readonly s: DhcpSettings,
    private readonly leases: LeaseStore,
    private readonly held: HeldAddresses,
    /** Moat's own address on the interface: never handed out */
    private readonly own: number,
  ) {}

  reservationFor(mac: string): Reservation | undefined {
    return this.s.reservations.find((r) => r.mac === mac);
  }

  inPool(ip: number): boolean {
    return ip >= this.s.start && ip <= this.s.end;
  }

  /** Whether `ip` may be given to this client now. */
  acceptable(ip: number, mac: string, clientId: string): boolean {
    if (ip === this.own) return false;
    const reserved = this.reservationFor(mac);
    if (reserved?.ip != null) return reserved.ip === ip;
    if (this.s.ignoreUnknownClients && !reserved) return false;
    if (!this.inPool(ip)) return false;
    if (this.s.reservations.some((r) => r.ip === ip && r.mac !== mac)) return false;
    const l = this.leases.get(ip);
    if (l && !expired(l) && !(clientId !== "*" && l.clientId !== "*" ? l.clientId === clientId : l.mac === mac))
      return false;
    return !this.held.isHeldFor(ip, mac);
  }

  /** The address to offer, or null (unknown client when only known ones are served, or the pool is full). */
  choose(
    mac: string,
    clientId: string,
    requested: number | null,
    skip: ReadonlySet<number> = new Set(),
  ): number | null {
    const reserved = this.reservationFor(mac);
    if (reserved?.ip != null) return skip.has(reserved.ip) ? null : reserved.ip;
    if (this.s.ignoreUnknownClients && !reserved) return null;
    const ok = (ip: number) => !skip.has(ip) && this.acceptable(ip, mac, clientId);
    const current = this.leases.findClient(mac, clientId);
    if (current && ok(current.ip)) return current.ip;
    if (requested !== null && ok(requested)) return requested;
    const size = this.s.end - this.s.start + 1;
    const first = hashMac(mac) % size;
    // first choice: an address nobody ever leased; then an expired lease's
    let fallback: number | null = null;
    for (let i = 0; i < size; i++) {
      const ip = this.s.start + ((first + i) % size);
      if (!ok(ip)) continue;
      if (!this.leases.get(ip)) return ip;
      fallback ??= ip;
    }
    return fallback;
  }
}

function hashMac(mac: string): number {
  let h = 0;
  for (const ch of mac) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return h;
}
