// Where Moat may connect when a URL comes from a person (a list address, an update URL, the fleet's
// Redis and PostgreSQL). The connection runs on the appliance, inside the home network and sometimes
// in a cloud VM: it must not become a way to read the cloud's instance metadata (169.254.169.254,
// fd00:ec2::254) or anything else on a link-local address (RFC 3927, RFC 4291 §2.5.6), nor Moat's own
// web server (its API replies would come back through gravity's progress output). Loopback and LAN
// addresses on other ports stay allowed: a list or a bundle served from the machine or the LAN is
// legitimate. One rule for every way of writing a host: the URL parser already turns decimal, octal
// and hex IPv4 forms into dotted quads (WHATWG URL §4.4); a trailing dot, IPv4-mapped IPv6 and
// `*.localhost` (always loopback, RFC 6761 §6.3) are handled here, and a name is resolved once, checked,
// and then connected to at that checked address, so a second answer cannot differ (DNS rebinding).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { inCidr, ipTo16, parseCidr, type Cidr } from "./ip.ts";

const cidrs = (list: string[]): Cidr[] => list.map((c) => parseCidr(c)!);
/** link-local, IPv4 in IPv6 included (ipTo16 maps IPv4 into ::ffff:0:0/96), and AWS's IPv6 metadata */
const NEVER = cidrs(["169.254.0.0/16", "fe80::/10", "fd00:ec2::254"]);
/** the machine itself, whatever interface addresses it has */
const SELF = cidrs(["127.0.0.0/8", "::1", "0.0.0.0/8", "::"]);

/** Why Moat will not connect where a URL points (the sentence is shown to the person who gave it). */
export class AddressRefused extends Error {}

/** The ports of Moat's own web server (`webserver.port`, e.g. "80,443s" or "127.0.0.1:8080"). */
export function ownWebPorts(webserverPort: string): number[] {
  const ports: number[] = [];
  for (const entry of webserverPort.split(",")) {
    const m = /(\d{1,5})[os]*$/.exec(entry.trim());
    if (m) ports.push(Number(m[1]));
  }
  return ports;
}

/** An address of this machine: loopback, the unspecified address, or one an interface has now. */
export function isOwnAddress(ip: string): boolean {
  const b = ipTo16(ip);
  if (!b) return false;
  if (SELF.some((c) => inCidr(b, c))) return true;
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) {
      const o = ipTo16(a.address.split("%")[0]!);
      if (o?.every((x, i) => x === b[i])) return true;
    }
  return false;
}

/** Why a connection to `ip` on `port` is refused, or null when it may be made. */
function refusedAddress(ip: string, port: number, ownPorts: readonly number[]): string | null {
  const b = ipTo16(ip);
  if (!b) return null;
  if (NEVER.some((c) => inCidr(b, c))) return `${ip} is a link-local address (cloud metadata, the local link)`;
  if (ownPorts.includes(port) && isOwnAddress(ip)) return `${ip} port ${port} is Moat's own web server`;
  return null;
}

/** The host of a URL as one name: no brackets, lower case, no trailing dots ("localhost." is localhost). */
function hostOf(u: URL): string {
  return u.hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.+$/, "");
}

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443, "redis:": 6379, "rediss:": 6379 };
const DEFAULT_PORTS_PG = 5432;
const portOf = (u: URL): number =>
  u.port ? Number(u.port) : (DEFAULT_PORTS[u.protocol] ?? (u.protocol.startsWith("postgres") ? DEFAULT_PORTS_PG : 0));

const isLoopbackName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/**
 * When a URL is written (no name is resolved): why its literal address, or a `localhost` name, may
 * never be connected to; null when it may, or when only resolving its name will tell.
 */
export function refusedLiteral(u: URL, ownPorts: readonly number[]): string | null {
  const host = hostOf(u);
  const port = portOf(u);
  if (isLoopbackName(host))
    return ownPorts.includes(port) ? `${u.hostname} port ${port} is Moat's own web server` : null;
  return isIP(host) ? refusedAddress(host, port, ownPorts) : null;
}

/** Every address `host` stands for: itself when literal, loopback for `*.localhost`, else the resolver's. */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  if (isLoopbackName(host)) return ["127.0.0.1", "::1"];
  try {
    return (await lookup(host, { all: true })).map((a) => a.address);
  } catch (e) {
    throw new AddressRefused(`${host} does not resolve (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/**
 * The one address to connect to for `u`, resolved now and checked: throws AddressRefused when any
 * address the name has is refused (the resolver's order may change, the verdict must not) or when
 * the name does not resolve.
 */
export async function checkedAddress(u: URL, ownPorts: readonly number[]): Promise<string> {
  const host = hostOf(u);
  const port = portOf(u);
  const addresses = await addressesOf(host);
  for (const a of addresses) {
    const why = refusedAddress(a, port, ownPorts);
    if (why) throw new AddressRefused(a === host ? why : `${host} resolves to ${why}`);
  }
  return addresses[0]!;
}

/** `u` with its host replaced by `ip`, for a client that must not resolve the name again. */
export function pinnedUrl(u: URL, ip: string): URL {
  const p = new URL(u.href);
  p.hostname = ip.includes(":") ? `[${ip}]` : ip;
  return p;
}

/**
 * fetch() of an http(s) URL at its checked address: the request still names the host (Host header,
 * TLS SNI and the certificate check), but the socket goes to the address that was checked. Redirects
 * are the caller's (redirect: "manual"), so that each hop comes back through here.
 */
export async function guardedFetch(
  u: URL,
  init: RequestInit & { headers?: Record<string, string>; tls?: Record<string, unknown> },
  ownPorts: readonly number[],
): Promise<Response> {
  const ip = await checkedAddress(u, ownPorts);
  const host = hostOf(u);
  const named = !isIP(host);
  return fetch(pinnedUrl(u, ip), {
    ...init,
    redirect: "manual",
    headers: { ...init.headers, host: u.host },
    ...(named && u.protocol === "https:" ? { tls: { ...init.tls, serverName: host } } : {}),
  });
}
