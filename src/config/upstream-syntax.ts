// The spellings of an entry in dns.upstreams: plain DNS `IP[#port]`, DNS over TLS `tls://host[:port]`
// or `tls://name@ip[:port]` (RFC 7858, port 853), DNS over HTTPS `https://host[:port]/path` or
// `https://name@ip[:port]/path` (RFC 8484, port 443). `name@ip` connects to the address and checks
// the certificate against the name, so no lookup is needed to reach the upstream.
import { isIP } from "node:net";
import { isHostname, isPort } from "./host-port.ts";

export type UpstreamSpec =
  | { kind: "udp"; ip: string; port: number }
  | {
      kind: "tls" | "https";
      /** the name the certificate must carry (an IP when only an address was given) */
      host: string;
      /** where to connect: given, or found by the bootstrap lookup of `host` when null */
      ip: string | null;
      port: number;
      /** path and query of a DoH URL ("" for DoT) */
      path: string;
    };

/** The parsed entry, or the reason it is not one. */
export function parseUpstreamSpec(s: string): UpstreamSpec | string {
  const m = /^(tls|https):\/\/(?:([^@/]+)@)?(\[[0-9a-fA-F:.]+\]|[^:/[\]]+)(?::(\d{1,5}))?(\/[^\s]*)?$/.exec(s);
  if (!m) {
    if (/^[a-z]+:\/\//i.test(s))
      return "not a valid upstream (expected IP[#port], tls://host[:port] or https://host[:port]/path)";
    const [ip, port, ...rest] = s.split("#");
    if (rest.length || !ip || !isIP(ip)) return "not a valid upstream (expected IP[#port])";
    if (port !== undefined && !isPort(port)) return "not a valid upstream port";
    return { kind: "udp", ip, port: port === undefined ? 53 : Number(port) };
  }
  const kind = m[1] as "tls" | "https";
  const name = m[2];
  const addr = m[3]!.replace(/^\[|\]$/g, "");
  if (m[4] !== undefined && !isPort(m[4])) return "not a valid upstream port";
  const port = m[4] !== undefined ? Number(m[4]) : kind === "tls" ? 853 : 443;
  if (kind === "tls" && m[5] && m[5] !== "/") return "a tls:// upstream has no path";
  const path = kind === "https" ? (m[5] ?? "/dns-query") : "";
  if (name !== undefined) {
    if (!isHostname(name)) return `not a valid upstream (invalid name "${name}" before @)`;
    if (!isIP(addr)) return "not a valid upstream (expected an IP address after @)";
    return { kind, host: name.toLowerCase(), ip: addr, port, path };
  }
  if (isIP(addr)) return { kind, host: addr, ip: addr, port, path };
  if (!isHostname(addr)) return `not a valid upstream (invalid host "${addr}")`;
  return { kind, host: addr.toLowerCase().replace(/\.$/, ""), ip: null, port, path };
}

/**
 * A per-domain entry of dns.upstreams, AdGuard Home's `[/corp.example/other.example/]10.0.0.1 [server …]`
 * (dnsmasq's `server=/corp.example/10.0.0.1`): names at or under those domains go to these servers
 * alone. `*.corp.example` covers the names under it but not corp.example itself; `#` as the server sends
 * the names back to the general upstreams (an exception inside a wider entry). The longest domain wins.
 */
export interface PerDomainSpec {
  /** lowercase, without the final dot; a leading `*.` kept */
  domains: string[];
  /** the servers' entries, each as parseUpstreamSpec takes it; empty: the general upstreams (`#`) */
  servers: string[];
}

/** The entry's domains and servers; null when it is not a per-domain entry; else why it is not a valid one. */
export function parsePerDomain(s: string): PerDomainSpec | string | null {
  if (!s.startsWith("[/")) return null;
  const m = /^\[\/(.+)\/\](.*)$/.exec(s.trim());
  if (!m) return "not a valid per-domain upstream (expected [/domain/]server)";
  const domains = m[1]!.split("/").map((d) => d.toLowerCase().replace(/\.$/, ""));
  for (const d of domains)
    if (!isHostname(d.replace(/^\*\./, ""))) return `not a valid per-domain upstream (invalid domain "${d}")`;
  const servers = m[2]!.trim().split(/\s+/).filter(Boolean);
  if (!servers.length) return "not a valid per-domain upstream (no server after the domains)";
  if (servers.length === 1 && servers[0] === "#") return { domains, servers: [] };
  for (const sv of servers) {
    const p = parseUpstreamSpec(sv);
    if (typeof p === "string") return `not a valid per-domain upstream ("${sv}" is ${p})`;
  }
  return { domains, servers };
}
