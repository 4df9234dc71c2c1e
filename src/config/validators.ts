// Checks of single config values. Each returns the problem in words, or null when the value is fine.
import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { isHostname } from "./host-port.ts";
import { parsePerDomain, parseUpstreamSpec } from "./upstream-syntax.ts";
import { refusedLiteral } from "../net/address-rule.ts";

/**
 * `IP[#port]` (`[v6]:port` is not Pi-hole's form, so `v6#port`), `tls://…` or `https://…`: what the
 * forwarder can use (src/dns/forwarder.ts parses the same way). A plain host name is refused: dnsmasq's
 * server= (behind Pi-hole's list) takes only addresses, and the forwarder would skip it, leaving the
 * dashboard saying "Saved" for a server never asked; a named server is written tls:// or https://.
 * A per-domain entry `[/domain/]server …` (upstream-syntax.ts) holds servers of these forms.
 */
export function upstream(s: string): string | null {
  const perDomain = parsePerDomain(s);
  if (perDomain !== null) {
    if (typeof perDomain === "string") return perDomain;
    for (const sv of perDomain.servers) {
      const why = upstream(sv);
      if (why) return `not a valid per-domain upstream ("${sv}" is ${why})`;
    }
    return null;
  }
  const spec = parseUpstreamSpec(s);
  if (typeof spec !== "string") return null;
  const host = s.split("#")[0] ?? "";
  if (!s.includes("://") && !isIP(host) && isHostname(host))
    return "not a valid upstream (expected IP[#port]; a server by name is tls://name or https://name/dns-query)";
  return spec;
}

/**
 * A local record's name: a host name, or a wildcard `*.wild.lan` that answers every name below
 * wild.lan (not wild.lan itself), as AdGuard Home's rewrites do (src/dns/local.ts).
 */
function localName(name: string): boolean {
  return isHostname(toAsciiName(name.startsWith("*.") ? name.slice(2) : name));
}

/** A HOSTS line: `IP NAME [NAME …]`, a name may be a wildcard `*.wild.lan`. */
export function hostsLine(s: string): string | null {
  const parts = s.trim().split(/\s+/);
  if (parts.length < 2) return "not a valid HOSTS definition (too few elements)";
  if (!isIP(parts[0]!)) return "not a valid HOSTS definition (invalid IP address)";
  for (const name of parts.slice(1))
    if (!localName(name)) return `not a valid HOSTS definition (invalid host name "${name}")`;
  return null;
}

/**
 * `<cname>[,<cname>…],<target>[,<TTL>]`: one or more aliases of one target, as dnsmasq's cname= takes
 * them; an alias may be a wildcard `*.wild.lan` (every name below it), the target may not.
 */
export function cnameRecord(s: string): string | null {
  if (/[\r\n]/.test(s)) return "contains newline characters";
  const parts = s.split(",").map((p) => p.trim());
  const empty = parts.indexOf("");
  if (empty >= 0) return `contains an empty string at position ${empty}`;
  if (parts.length < 2) return "not a valid CNAME definition (too few elements)";
  const ttl = parts.length > 2 && /^\d+$/.test(parts[parts.length - 1]!) ? parts.pop() : undefined;
  if (ttl !== undefined && parts.length < 2) return "not a valid CNAME definition (too few elements)";
  const target = parts[parts.length - 1]!;
  if (!isHostname(toAsciiName(target)) || !parts.slice(0, -1).every(localName))
    return "not a valid CNAME definition (invalid domain)";
  return null;
}

/**
 * dns.cnameRecords as a whole: no alias leads back to itself, directly (`loop.lan,loop.lan`) or through
 * other records (`a.lan,b.lan` and `b.lan,a.lan`). A client following such a chain would ask for ever
 * (RFC 1034 §3.6.2: CNAME chains must not loop). Each record line is checked by cnameRecord first.
 */
export function cnameLoops(records: readonly string[]): string | null {
  const next = new Map<string, string>();
  for (const line of records) {
    const { aliases, target } = parseCnameRecord(line.toLowerCase());
    for (const alias of aliases) next.set(alias.replace(/\.$/, ""), target.replace(/\.$/, ""));
  }
  // a wildcard whose target lies below it sends that target back to itself
  for (const [alias, target] of next)
    if (alias.startsWith("*.") && target.endsWith(alias.slice(1)))
      return `not a valid CNAME definition ("${alias}" covers its own target ${target})`;
  for (const start of next.keys()) {
    const path = [start];
    for (let name = next.get(start); name !== undefined; name = next.get(name)) {
      path.push(name);
      if (name === start)
        return path.length === 2
          ? `not a valid CNAME definition ("${start}" points to itself)`
          : `not a valid CNAME definition (the records loop: ${path.join(" → ")})`;
      // a chain that loops further on is reported from a name inside the loop
      if (path.length > next.size + 1) break;
    }
  }
  return null;
}

/** The names and target of a CNAME record line (checked by cnameRecord): every alias points at the target. */
export function parseCnameRecord(s: string): { aliases: string[]; target: string; ttl: number | undefined } {
  const parts = s.split(",").map((p) => p.trim());
  const ttl = parts.length > 2 && /^\d+$/.test(parts[parts.length - 1]!) ? Number(parts.pop()) : undefined;
  const target = parts.pop()!;
  return { aliases: parts, target, ttl };
}

export function plainUpstream(s: string): string | null {
  const spec = parseUpstreamSpec(s);
  return typeof spec === "string" ? spec : spec.kind === "udp" ? null : "must be a plain DNS server (IP[#port])";
}

/** `<enabled>,<ip-address>[/<prefix-len>],<server>[#<port>][,<domain>]` */
export function revServer(s: string): string | null {
  const parts = s.split(",").map((p) => p.trim());
  if (parts.length < 3) return "not a valid revServer definition (too few elements)";
  if (parts.length > 4) return "not a valid revServer definition (too many elements)";
  const [enabled, net, server, domain] = parts as [string, string, string, string | undefined];
  if (enabled !== "true" && enabled !== "false")
    return "not a valid revServer definition (enabled must be true or false)";
  const [ip, prefix] = net.split("/");
  const fam = isIP(ip ?? "");
  if (!fam) return "not a valid revServer definition (invalid network address)";
  if (prefix !== undefined && (!/^\d+$/.test(prefix) || Number(prefix) > (fam === 4 ? 32 : 128)))
    return "not a valid revServer definition (invalid prefix length)";
  if (server.includes("://") || upstream(server)) return "not a valid revServer definition (invalid server)";
  if (domain !== undefined && domain !== "" && !isHostname(domain))
    return "not a valid revServer definition (invalid domain)";
  return null;
}

/** An address or a network: "192.168.1.1", "192.168.1.0/24", "fd00::/8". */
export function ipOrCidr(s: string): string | null {
  const [ip, prefix, extra] = s.split("/");
  const fam = isIP(ip ?? "");
  if (!fam || extra !== undefined) return "not a valid IP address or CIDR network";
  if (prefix !== undefined && (!/^\d+$/.test(prefix) || Number(prefix) > (fam === 4 ? 32 : 128)))
    return "not a valid prefix length";
  return null;
}

/** A DoT/DoH client ID: one DNS label, lower case (the TLS server name's first label, /dns-query/<id>) */
export const CLIENT_ID = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** dns.access.*: an address, a CIDR network or a DoT/DoH client ID */
export function accessEntry(s: string): string | null {
  if (isIP(s.split("/")[0] ?? "")) return ipOrCidr(s);
  return CLIENT_ID.test(s) ? null : "not an IP address, a CIDR network or a client ID (one DNS label, lower case)";
}

export function ipv4OrEmpty(s: string): string | null {
  return s === "" || isIP(s) === 4 ? null : "not a valid IPv4 address";
}

export function ipv6OrEmpty(s: string): string | null {
  return s === "" || isIP(s) === 6 ? null : "not a valid IPv6 address";
}

/** `webserver.port`: comma-separated `[addr:]port[o][s]` entries as in Pi-hole (`80`, `127.0.0.1:8080`, `[::]:80o`). */
export function webPorts(s: string): string | null {
  if (s.trim() === "") return "no port given";
  for (const entry of s.split(",")) {
    if (!parseWebPort(entry.trim())) return `invalid port definition "${entry.trim()}"`;
  }
  return null;
}

export interface WebPort {
  host: string | undefined;
  port: number;
  optional: boolean;
  tls: boolean;
}

export function parseWebPort(entry: string): WebPort | null {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[0-9.]+|[a-zA-Z0-9.-]+):)?(\d{1,5})([os]*)$/.exec(entry);
  if (!m) return null;
  const port = Number(m[2]);
  if (port > 65535) return null;
  let host = m[1];
  if (host?.startsWith("[")) host = host.slice(1, -1);
  if (host !== undefined && host !== "localhost" && !isIP(host) && !isHostname(host)) return null;
  return { host, port, optional: m[3]!.includes("o"), tls: m[3]!.includes("s") };
}

/**
 * IDN names are stored in their ASCII (punycode) form, the form queries ask for (RFC 5891 §4.4):
 * `🐱.lan` becomes `xn--5o8h.lan`. A name IDNA cannot encode stays as it is, for the check to name it.
 */
function toAsciiName(name: string): string {
  if (/^[\x00-\x7f]*$/.test(name)) return name;
  return domainToASCII(name) || name;
}

/** A dns.hosts or dns.cnameRecords line with its Unicode names in ASCII; an ASCII line as it is. */
export function asciiNames(line: string): string {
  return /^[\x00-\x7f]*$/.test(line) ? line : line.replace(/[^\s,]+/g, toAsciiName);
}

/**
 * A Linux interface name (dns.interface), or empty: at most 15 characters (IFNAMSIZ 16 with its NUL,
 * linux/if.h), and no white space, `/` or shell metacharacters, which the kernel or `ip` refuse.
 */
export function interfaceNameOrEmpty(s: string): string | null {
  return s === "" || /^[A-Za-z0-9_.:@-]{1,15}$/.test(s)
    ? null
    : `not an interface name (${JSON.stringify(s.slice(0, 40))}): at most 15 letters, digits and . _ - : @, like eth0 or wlan0`;
}

const FILE_PATH = /^[A-Za-z0-9/._ -]*$/;

/** A file path as Pi-hole accepts it: letters, digits, '/', '.', '-', '_' and spaces only. */
export function filePath(s: string): string | null {
  return s !== "" && FILE_PATH.test(s) ? null : `not a valid file path (${JSON.stringify(s)})`;
}

/** A file path, or empty to switch the feature off. */
export function filePathOrEmpty(s: string): string | null {
  return s === "" ? null : filePath(s);
}

/** A URL path below the web root, which must start and end with a slash (`/admin/`). */
export function webPath(s: string): string | null {
  if (!s.startsWith("/") || !s.endsWith("/"))
    return `file path does not start and end with a slash (${JSON.stringify(s)})`;
  return filePath(s);
}

/** An IPv4 netmask whose one-bits are contiguous and leading; empty (or 0.0.0.0) takes the interface's. */
export function netmaskOrEmpty(s: string): string | null {
  if (s === "") return null;
  if (isIP(s) !== 4) return "not a valid IPv4 address";
  const n = s.split(".").reduce((acc, o) => acc * 256 + Number(o), 0);
  const host = ~n >>> 0;
  return (host & (host + 1)) >>> 0 === 0
    ? null
    : `not a valid netmask (${JSON.stringify(s)}), the one-bits are not contiguous`;
}

function urlWithScheme(s: string, schemes: readonly string[], what: string): string | null {
  if (s === "") return null;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return `not a valid ${what} URL (${schemes.map((x) => `${x}//host:port`).join(" or ")})`;
  }
  if (!schemes.includes(u.protocol)) return `not a ${what} URL: the scheme must be ${schemes.join(" or ")}`;
  if (!u.hostname) return `not a valid ${what} URL: no host`;
  // the address rule (src/net/address-rule.ts) for what is written literally; names are checked at connect
  const refused = refusedLiteral(u, []);
  return refused ? `not an address Moat connects to: ${refused}` : null;
}

const LEASE_UNITS: Record<string, number> = { "": 1, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
/** The longest lease but "infinite": a year. dnsmasq takes more, but a lease of years is a typo, not a plan. */
const MAX_LEASE_SECONDS = 365 * 86400;

/** dnsmasq's lease-time spelling (src/dhcp/settings.ts reads it): seconds, or with s/m/h/d/w, or "infinite" */
export function leaseTimeOrEmpty(s: string): string | null {
  const m = /^(?:(\d+)([smhdw]?)|infinite)$/i.exec(s.trim());
  if (s !== "" && !m)
    return `not a lease time (${JSON.stringify(s.slice(0, 40))}): seconds, or 45m, 12h, 2d, 1w, or infinite`;
  if (m?.[1] !== undefined && Number(m[1]) * LEASE_UNITS[m[2]!.toLowerCase()]! > MAX_LEASE_SECONDS)
    return `longer than a year (${JSON.stringify(s.slice(0, 40))}): at most 365d, 52w or ${MAX_LEASE_SECONDS} seconds, or infinite for leases that never end`;
  return null;
}

/** A Valkey/Redis URL (redis://, rediss:// for TLS), or empty to run alone. */

export const redisUrlOrEmpty = (s: string) => urlWithScheme(s, ["redis:", "rediss:"], "Redis");
/** A PostgreSQL URL, or empty for local history only. */
export const postgresUrlOrEmpty = (s: string) => urlWithScheme(s, ["postgres:", "postgresql:"], "PostgreSQL");

/** A trust anchor: a DS record in zone-file syntax, "<zone> [TTL] [IN] DS <tag> <algorithm> <digest type> <hex digest>". */
export function trustAnchor(s: string): string | null {
  const ok = /^\S+\s+(?:\d+\s+)?(?:IN\s+)?DS\s+\d{1,5}\s+\d{1,3}\s+\d{1,3}\s+(?:[0-9a-fA-F]{2}\s*)+$/i.test(s.trim());
  return ok ? null : "not a DS record in zone-file syntax (<zone> IN DS <tag> <algorithm> <digest type> <hex digest>)";
}
