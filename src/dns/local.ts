// Answers the appliance knows itself: dns.hosts, dns.cnameRecords (either may name a wildcard
// `*.wild.lan`: every name below wild.lan that has no record of its own, the longest wildcard first, as
// AdGuard Home's rewrites), pi.hole and the
// host name (with the address of the interface facing the client), PTR for our own addresses, and the
// local domain, `local.` and `home.arpa.` (special.ts), bogus private PTRs and plain names that must never
// reach an upstream.
import { hostname } from "node:os";
import { isIP } from "node:net";
import { parseCnameRecord, type Config } from "../config/index.ts";
import { Reply } from "../query/enums.ts";
import type { ConfigView, Handler, Next, Pending, QueryContext } from "./context.ts";
import { ownAnswer, type RR } from "./reply.ts";
import { localAddressFor, isOwnAddress } from "./iface.ts";
import { RCODE, TYPE } from "./wire.ts";
import { ipv4Bytes, ipv6Bytes, ptrToIp } from "../net/ip.ts";
import { nameToWire } from "../net/dns-name.ts";
import { revServerFor, revServers } from "./rev-servers.ts";
import { isPrivateZone, within } from "./special.ts";

const LOCAL_TTL = 2;

interface HostEntry {
  v4: Uint8Array[];
  v6: Uint8Array[];
}

type Cname = { target: string; ttl: number };

interface Tables {
  hosts: Map<string, HostEntry>;
  ptr: Map<string, string>;
  cnames: Map<string, Cname>;
  /** `*.wild.lan` records by the domain below which they answer (wild.lan) */
  wild: Map<string, { host?: HostEntry; cname?: Cname }>;
  self: Set<string>;
  domain: string;
}

/** Names of DHCP clients (src/dhcp), answered after dns.hosts: `<name>` and `<name>.<domain>`. */
interface LeaseTables {
  hosts: Map<string, HostEntry>;
  ptr: Map<string, string>;
}

export class LocalHandler implements Handler {
  readonly name = "local";
  private t: Tables;
  private leases: LeaseTables = { hosts: new Map(), ptr: new Map() };
  private leaseNames: ReadonlyArray<{ ip: string; name: string }> = [];

  constructor(private readonly config: ConfigView) {
    this.t = compile(config.current);
    config.subscribe((next, _prev, paths) => {
      if (
        paths.some(
          (p) =>
            p.startsWith("dns.hosts") ||
            p.startsWith("dns.cnameRecords") ||
            p.startsWith("dns.domain") ||
            p === "dns.expandHosts",
        )
      ) {
        this.t = compile(next);
        this.setLeaseNames(this.leaseNames); // under the new domain
      }
    });
  }

  /** Replaces the DHCP names (built off the hot path, swapped in one step). */
  setLeaseNames(names: ReadonlyArray<{ ip: string; name: string }>): void {
    this.leaseNames = names;
    const hosts = new Map<string, HostEntry>();
    const ptr = new Map<string, string>();
    const domain = this.t.domain;
    for (const { ip, name } of names) {
      if (isIP(ip) !== 4) continue;
      const n = name.toLowerCase();
      const fqdn = domain ? `${n}.${domain}` : n;
      for (const key of new Set([n, fqdn])) {
        let e = hosts.get(key);
        if (!e) hosts.set(key, (e = { v4: [], v6: [] }));
        e.v4.push(ipv4Bytes(ip));
      }
      ptr.set(ip, fqdn);
    }
    this.leases = { hosts, ptr };
  }

  handle(ctx: QueryContext, next: Next): Pending {
    const { q } = ctx;
    const name = q.name;
    const t = this.t;
    const dns = this.config.current.dns;
    if (q.qclass !== 1) return next(ctx);

    const exact = t.cnames.get(name);
    const host = exact ? undefined : (t.hosts.get(name) ?? this.leases.hosts.get(name));
    const wild = exact || host || !t.wild.size ? undefined : below(t.wild, name);
    const cname = exact ?? wild?.cname;
    if (cname) {
      const target = nameToWire(cname.target);
      if (target) {
        const answers: RR[] = [{ type: TYPE.CNAME, ttl: cname.ttl, data: target }];
        const h = t.hosts.get(cname.target) ?? (t.wild.size ? below(t.wild, cname.target)?.host : undefined);
        if (h)
          for (const a of q.qtype === TYPE.AAAA ? h.v6 : q.qtype === TYPE.A ? h.v4 : [])
            answers.push({ type: q.qtype, ttl: cname.ttl, data: a, owner: target });
        return ownAnswer(ctx, RCODE.NOERROR, answers, Reply.CNAME);
      }
    }
    const addresses = host ?? wild?.host;
    if (addresses) return this.addresses(ctx, addresses.v4, addresses.v6);
    if (t.self.has(name)) {
      const hr = dns.reply.host;
      const v4 = hr.force4 && hr.IPv4 ? hr.IPv4 : localAddressFor(ctx.client, 4);
      const v6 = hr.force6 && hr.IPv6 ? hr.IPv6 : localAddressFor(ctx.client, 6);
      return this.addresses(ctx, v4 ? [ipv4Bytes(v4)] : [], v6 ? [ipv6Bytes(v6)] : []);
    }
    if (q.qtype === TYPE.PTR) {
      const ip = ptrToIp(name);
      if (ip) {
        const own = t.ptr.get(ip) ?? this.leases.ptr.get(ip);
        // loopback is localhost, as /etc/hosts names it (and Pi-hole's clients list shows it)
        const ptrName =
          own ?? (ip === "127.0.0.1" || ip === "::1" ? "localhost" : isOwnAddress(ip) ? selfPtr(dns) : null);
        const wire = ptrName && nameToWire(ptrName);
        if (wire) return ownAnswer(ctx, RCODE.NOERROR, [{ type: TYPE.PTR, ttl: LOCAL_TTL, data: wire }], Reply.DOMAIN);
        // a network with a conditional forwarder is the router's to answer
        if (dns.bogusPriv && isPrivate(ip) && !revServerFor(revServers(dns.revServers), name))
          return ownAnswer(ctx, RCODE.NXDOMAIN, [], Reply.NXDOMAIN);
      }
    }
    if (dns.domain.local && t.domain && within(name, t.domain) && !revServerFor(revServers(dns.revServers), name))
      return ownAnswer(ctx, RCODE.NXDOMAIN, [], Reply.NXDOMAIN);
    // mDNS and the home network's zone stay in the house unless a conditional forwarder takes them
    if (isPrivateZone(name) && !revServerFor(revServers(dns.revServers), name))
      return ownAnswer(ctx, RCODE.NXDOMAIN, [], Reply.NXDOMAIN);
    if (dns.domainNeeded && name !== "" && !name.includes("."))
      return ownAnswer(ctx, RCODE.NXDOMAIN, [], Reply.NXDOMAIN);
    return next(ctx);
  }

  private addresses(ctx: QueryContext, v4: Uint8Array[], v6: Uint8Array[]): Uint8Array {
    const list = ctx.q.qtype === TYPE.A ? v4 : ctx.q.qtype === TYPE.AAAA ? v6 : [];
    const rrs = list.map((data) => ({ type: ctx.q.qtype, ttl: LOCAL_TTL, data }));
    return ownAnswer(ctx, RCODE.NOERROR, rrs, rrs.length ? Reply.IP : Reply.NODATA);
  }
}

function selfPtr(dns: Config["dns"]): string | null {
  switch (dns.piholePTR) {
    case "NONE":
      return null;
    case "HOSTNAME":
      return hostname();
    case "HOSTNAMEFQDN":
      return dns.domain.name ? `${hostname()}.${dns.domain.name}` : hostname();
    default:
      return "pi.hole";
  }
}

function compile(c: Config): Tables {
  const dns = c.dns;
  const domain = dns.domain.name.toLowerCase().replace(/\.$/, "");
  const hosts = new Map<string, HostEntry>();
  const ptr = new Map<string, string>();
  const add = (name: string, ip: string) => {
    let e = hosts.get(name);
    if (!e) hosts.set(name, (e = { v4: [], v6: [] }));
    if (isIP(ip) === 4) e.v4.push(ipv4Bytes(ip));
    else e.v6.push(ipv6Bytes(ip));
  };
  const wild = new Map<string, { host?: HostEntry; cname?: Cname }>();
  const wildAt = (n: string) => {
    let w = wild.get(n.slice(2));
    if (!w) wild.set(n.slice(2), (w = {}));
    return w;
  };
  for (const line of dns.hosts) {
    const [ip, ...names] = line.trim().split(/\s+/);
    if (!ip || !isIP(ip)) continue;
    for (const raw of names) {
      const n = raw.toLowerCase().replace(/\.$/, "");
      if (n.startsWith("*.")) {
        const w = wildAt(n);
        w.host ??= { v4: [], v6: [] };
        if (isIP(ip) === 4) w.host.v4.push(ipv4Bytes(ip));
        else w.host.v6.push(ipv6Bytes(ip));
        continue;
      }
      add(n, ip);
      if (!ptr.has(ip)) ptr.set(ip, n);
      // plain names also answer under the local domain (dns.domain.name expansion)
      if (domain && !n.includes(".")) add(`${n}.${domain}`, ip);
    }
  }
  const cnames = new Map<string, Cname>();
  for (const line of dns.cnameRecords) {
    const { aliases, target, ttl } = parseCnameRecord(line.toLowerCase());
    for (const alias of aliases)
      if (alias.startsWith("*.")) wildAt(alias).cname = { target, ttl: ttl ?? LOCAL_TTL };
      else cnames.set(alias, { target, ttl: ttl ?? LOCAL_TTL });
  }
  const host = hostname().toLowerCase();
  const self = new Set(["pi.hole", host, domain ? `${host}.${domain}` : host]);
  return { hosts, ptr, cnames, wild, self, domain };
}

/** The wildcard record of the longest domain strictly above `name`, if one covers it. */
function below<T>(wild: Map<string, T>, name: string): T | undefined {
  for (let dot = name.indexOf("."); dot >= 0; dot = name.indexOf(".", dot + 1)) {
    const w = wild.get(name.slice(dot + 1));
    if (w) return w;
  }
  return undefined;
}

function isPrivate(ip: string): boolean {
  if (isIP(ip) === 4) {
    const [a, b] = ip.split(".").map(Number) as [number, number];
    return (
      a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)
    );
  }
  return /^f[cd]/i.test(ip) || /^fe[89ab]/i.test(ip) || ip === "::1";
}
