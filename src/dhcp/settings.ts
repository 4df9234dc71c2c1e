// What the DHCP server serves, derived from the `dhcp.*` settings and the machine's interfaces: the
// pool, the interface whose network holds it, lease times and the static reservations.
import { networkInterfaces } from "node:os";
import { isIP } from "node:net";
import type { Config } from "../config/index.ts";
import { ipToNumber } from "./packet.ts";

export interface Reservation {
  mac: string;
  ip: number | null;
  name: string | null;
  /** seconds; null: the server's lease time */
  leaseTime: number | null;
}

export interface DhcpSettings {
  start: number;
  end: number;
  /** null: the interface's own netmask */
  netmask: number | null;
  /** null: Moat's own address on the interface (dnsmasq's default) */
  router: number | null;
  /** seconds; 0 = infinite */
  leaseTime: number;
  rapidCommit: boolean;
  ignoreUnknownClients: boolean;
  multiDNS: boolean;
  logging: boolean;
  domain: string;
  reservations: Reservation[];
}

export interface ServedInterface {
  name: string;
  address: number;
  netmask: number;
  /** hardware address, "aa:bb:cc:dd:ee:ff" */
  mac: string;
}

const UNITS: Record<string, number> = { "": 1, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** dnsmasq's lease-time spelling ('45m', '1h', '2d', 'infinite', plain seconds); null when invalid */
function parseLeaseTime(s: string): number | null {
  const t = s.trim().toLowerCase();
  if (t === "infinite") return 0;
  const m = /^(\d+)([smhdw]?)$/.exec(t);
  if (!m) return null;
  const secs = Number(m[1]) * UNITS[m[2]!]!;
  return Math.max(secs, 120); // dnsmasq's minimum
}

const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;

/** `dhcp.hosts` lines as Pi-hole writes them: '<MAC>[,<IP>][,<hostname>][,<lease time>]' */
function parseReservation(line: string): Reservation | null {
  const parts = line
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const r: Reservation = { mac: "", ip: null, name: null, leaseTime: null };
  for (const p of parts) {
    if (!r.mac && MAC.test(p)) r.mac = p.toLowerCase().replaceAll("-", ":");
    else if (r.ip === null && isIP(p) === 4) r.ip = ipToNumber(p);
    else if (r.leaseTime === null && parseLeaseTime(p) !== null && /^\d|^infinite$/i.test(p))
      r.leaseTime = parseLeaseTime(p);
    else if (r.name === null && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i.test(p)) r.name = p;
    else return null;
  }
  return r.mac ? r : null;
}

/** The settings, or the reason DHCP cannot run with them. */
export function dhcpSettings(c: Config, log: (msg: string) => void): DhcpSettings | string {
  const d = c.dhcp;
  if (!d.start || !d.end) return "dhcp.start and dhcp.end must be set";
  const start = ipToNumber(d.start);
  const end = ipToNumber(d.end);
  if (end < start) return "dhcp.end is before dhcp.start";
  const leaseTime = d.leaseTime === "" ? 86400 : parseLeaseTime(d.leaseTime);
  if (leaseTime === null) return `dhcp.leaseTime ${JSON.stringify(d.leaseTime)} is not a lease time`;
  const reservations: Reservation[] = [];
  for (const line of d.hosts) {
    const r = parseReservation(line);
    if (r) reservations.push(r);
    else
      log(
        `DHCP: ignoring dhcp.hosts entry ${JSON.stringify(line)} (expected '<MAC>[,<IP>][,<hostname>][,<lease time>]')`,
      );
  }
  return {
    start,
    end,
    netmask: d.netmask ? ipToNumber(d.netmask) : null,
    router: d.router ? ipToNumber(d.router) : null,
    leaseTime,
    rapidCommit: d.rapidCommit,
    ignoreUnknownClients: d.ignoreUnknownClients,
    multiDNS: d.multiDNS,
    logging: d.logging,
    domain: c.dns.domain.name,
    reservations,
  };
}

/** The interfaces with an IPv4 network that holds the whole pool: the only ones DHCP answers on. */
export function interfacesForPool(s: DhcpSettings): ServedInterface[] {
  const out: ServedInterface[] = [];
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    for (const a of addrs ?? []) {
      if (a.family !== "IPv4" || a.internal) continue;
      const address = ipToNumber(a.address);
      const mask = ipToNumber(a.netmask);
      const net = (address & mask) >>> 0;
      if ((s.start & mask) >>> 0 === net && (s.end & mask) >>> 0 === net) {
        out.push({ name, address, netmask: mask, mac: a.mac });
        break;
      }
    }
  }
  return out;
}
