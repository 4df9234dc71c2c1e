// Checks of single config values. Each returns the problem in words, or null when the value is fine.
import { isIP } from "node:net";

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/i;

export function isHostname(name: string): boolean {
  const n = name.endsWith(".") ? name.slice(0, -1) : name;
  if (n.length === 0 || n.length > 253) return false;
  return n.split(".").every((l) => LABEL.test(l));
}

function isPort(p: string): boolean {
  if (!/^\d{1,5}$/.test(p)) return false;
  const n = Number(p);
  return n >= 1 && n <= 65535;
}

/** `ip`, `ip#port`, `[v6]:port` is not Pi-hole's form, so only `v6#port`; a hostname is allowed as in Pi-hole. */
export function upstream(s: string): string | null {
  const [host, port, ...rest] = s.split("#");
  if (rest.length || !host) return "not a valid upstream (expected IP[#port])";
  if (port !== undefined && !isPort(port)) return "not a valid upstream port";
  if (isIP(host) || isHostname(host)) return null;
  return "not a valid upstream (expected IP[#port])";
}

/** A HOSTS line: `IP NAME [NAME …]`. */
export function hostsLine(s: string): string | null {
  const parts = s.trim().split(/\s+/);
  if (parts.length < 2) return "not a valid HOSTS definition (too few elements)";
  if (!isIP(parts[0]!)) return "not a valid HOSTS definition (invalid IP address)";
  for (const name of parts.slice(1)) if (!isHostname(toAsciiName(name))) return `not a valid HOSTS definition (invalid host name "${name}")`;
  return null;
}

/** `<cname>,<target>[,<TTL>]` */
export function cnameRecord(s: string): string | null {
  const parts = s.split(",").map((p) => p.trim());
  if (parts.length < 2) return "not a valid CNAME definition (too few elements)";
  if (parts.length > 3) return "not a valid CNAME definition (too many elements)";
  const [a, b, ttl] = parts as [string, string, string | undefined];
  if (!isHostname(toAsciiName(a)) || !isHostname(toAsciiName(b))) return "not a valid CNAME definition (invalid domain)";
  if (ttl !== undefined && !/^\d+$/.test(ttl)) return "not a valid CNAME definition (invalid TTL)";
  return null;
}

/** `<enabled>,<ip-address>[/<prefix-len>],<server>[#<port>][,<domain>]` */
export function revServer(s: string): string | null {
  const parts = s.split(",").map((p) => p.trim());
  if (parts.length < 3) return "not a valid revServer definition (too few elements)";
  if (parts.length > 4) return "not a valid revServer definition (too many elements)";
  const [enabled, net, server, domain] = parts as [string, string, string, string | undefined];
  if (enabled !== "true" && enabled !== "false") return "not a valid revServer definition (enabled must be true or false)";
  const [ip, prefix] = net.split("/");
  const fam = isIP(ip ?? "");
  if (!fam) return "not a valid revServer definition (invalid network address)";
  if (prefix !== undefined && (!/^\d+$/.test(prefix) || Number(prefix) > (fam === 4 ? 32 : 128))) return "not a valid revServer definition (invalid prefix length)";
  if (upstream(server)) return "not a valid revServer definition (invalid server)";
  if (domain !== undefined && domain !== "" && !isHostname(domain)) return "not a valid revServer definition (invalid domain)";
  return null;
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

/** IDN names are stored in their ASCII (punycode) form. */
export function toAsciiName(name: string): string {
  if (/^[\x00-\x7f]*$/.test(name)) return name;
  try {
    return new URL(`http://${name}`).hostname;
  } catch {
    return name;
  }
}
