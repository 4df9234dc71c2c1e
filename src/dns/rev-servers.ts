// Conditional forwarding (dns.revServers): names under a local domain, and reverse lookups of
// addresses in a local network, go to the router that knows the local names instead of the
// upstreams. Entries: "<enabled>,<ip>[/<prefix>],<server>[#<port>][,<domain>]".
import { isIP } from "node:net";
import { inCidr, ipTo16, parseCidr, ptrToIp, type Cidr } from "../net/ip.ts";

export interface RevServer {
  cidr: Cidr;
  domain: string | null;
  ip: string;
  port: number;
}

let memo: { list: readonly string[]; rules: RevServer[] } | null = null;

/** The enabled entries of dns.revServers (parsed once per config change). */
export function revServers(list: readonly string[]): RevServer[] {
  if (memo?.list === list) return memo.rules;
  const rules: RevServer[] = [];
  for (const entry of list) {
    const [enabled, net, server, domain] = entry.split(",").map((p) => p.trim());
    if (enabled !== "true" || !net || !server) continue;
    const cidr = parseCidr(net);
    const up = parseServer(server);
    if (!cidr || !up) continue;
    rules.push({ cidr, domain: domain ? domain.toLowerCase().replace(/\.$/, "") : null, ip: up.ip, port: up.port });
  }
  memo = { list, rules };
  return rules;
}

/** The `<server>[#<port>]` part of an entry (port 53 when none is given). */
function parseServer(s: string): { ip: string; port: number } | null {
  const [ip, port] = s.split("#") as [string, string | undefined];
  if (!isIP(ip)) return null;
  return { ip, port: port ? Number(port) : 53 };
}

/** The conditional forwarder for a query name, if one covers it (the domain, or a PTR of its network). */
export function revServerFor(rules: readonly RevServer[], name: string): RevServer | null {
  if (!rules.length) return null;
  for (const r of rules) if (r.domain && (name === r.domain || name.endsWith(`.${r.domain}`))) return r;
  if (!name.endsWith(".arpa")) return null;
  const ip = ptrToIp(name);
  const bytes = ip && ipTo16(ip);
  if (!bytes) return null;
  // the most specific network wins
  let best: RevServer | null = null;
  for (const r of rules) if (inCidr(bytes, r.cidr) && (!best || r.cidr.bits > best.cidr.bits)) best = r;
  return best;
}
