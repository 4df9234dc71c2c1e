// Which groups a client is in, as Pi-hole decides it: IP or subnet (longest prefix wins, ties to the highest
// id), then MAC from the kernel's neighbour table, then hostname, then the interface, else group 0.
import { networkInterfaces } from "node:os";
import { readFileSync } from "node:fs";
import { inCidr, ipTo16, parseCidr, type Cidr } from "../net/ip.ts";

/** A client entry of the snapshot: its id, what it matches (address, subnet, MAC, name) and its groups' mask. */
export interface ClientEntry {
  id: number;
  ip: string;
  mask: number[];
}

export interface ClientResolverOptions {
  /** client IP → hostname (from the network table), when known */
  hostnameOf?: (ip: string) => string | null;
  /** path of the IPv4 neighbour table */
  arpFile?: string;
}

export class ClientResolver {
  private readonly cidrs: Array<{ c: Cidr; id: number; mask: Uint32Array }> = [];
  private readonly byMac = new Map<string, Uint32Array>();
  private readonly byName = new Map<string, Uint32Array>();
  private readonly byIface = new Map<string, Uint32Array>();
  private readonly memo = new Map<string, Uint32Array>();
  private arp: Map<string, string> | null = null;

  constructor(
    clients: ClientEntry[],
    private readonly fallback: Uint32Array,
    private readonly opts: ClientResolverOptions = {},
  ) {
    for (const e of clients) {
      const mask = Uint32Array.from(e.mask);
      const ip = e.ip.trim();
      const c = parseCidr(ip);
      if (c) this.cidrs.push({ c, id: e.id, mask });
      else if (/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(ip)) this.byMac.set(ip.toLowerCase(), mask);
      else if (ip.startsWith(":")) this.byIface.set(ip.slice(1), mask);
      else this.byName.set(ip.toLowerCase(), mask);
    }
    // longest prefix first; among equals the highest id
    this.cidrs.sort((a, b) => b.c.bits - a.c.bits || b.id - a.id);
  }

  /** Drops what was decided for one client (its host name became known). */
  forget(ip: string): void {
    this.memo.delete(ip);
  }

  /** The groups of a DoT/DoH client ID: a client entry of that name, else the client's address decides. */
  groupsOfId(id: string, ip: string): Uint32Array {
    return this.byName.get(id) ?? this.groupsOf(ip);
  }

  /** The group bitset for a client address (memoised for the life of the snapshot). */
  groupsOf(ip: string): Uint32Array {
    let m = this.memo.get(ip);
    if (!m) {
      m = this.resolve(ip);
      if (this.memo.size > 10000) this.memo.clear();
      this.memo.set(ip, m);
    }
    return m;
  }

  private resolve(ip: string): Uint32Array {
    const bytes = ipTo16(ip);
    if (bytes) for (const e of this.cidrs) if (inCidr(bytes, e.c)) return e.mask;
    if (this.byMac.size) {
      const mac = this.macOf(ip);
      const m = mac && this.byMac.get(mac);
      if (m) return m;
    }
    if (this.byName.size && this.opts.hostnameOf) {
      const name = this.opts.hostnameOf(ip);
      const m = name && this.byName.get(name.toLowerCase());
      if (m) return m;
    }
    if (this.byIface.size && bytes) {
      // the interface the query arrived on: approximated by the interface whose subnet holds the client
      for (const [iface, mask] of this.byIface) {
        for (const a of networkInterfaces()[iface] ?? []) {
          const c = a.cidr && parseCidr(a.cidr);
          if (c && inCidr(bytes, c)) return mask;
        }
      }
    }
    return this.fallback;
  }

  private macOf(ip: string): string | null {
    if (!this.arp) {
      this.arp = new Map();
      try {
        for (const line of readFileSync(this.opts.arpFile ?? "/proc/net/arp", "utf8")
          .split("\n")
          .slice(1)) {
          const f = line.trim().split(/\s+/);
          if (f.length >= 4 && f[3] !== "00:00:00:00:00:00") this.arp.set(f[0]!, f[3]!.toLowerCase());
        }
      } catch {
        // no neighbour table (containers): MAC entries cannot match
      }
    }
    return this.arp.get(ip) ?? null;
  }
}
