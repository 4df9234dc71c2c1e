// Where a list download may not go. A list address is whatever an API caller typed, and the
// download runs on the appliance, inside the home network and sometimes in a cloud VM: it must not
// become a way to read the cloud's instance metadata (169.254.169.254, fd00:ec2::254) or anything
// else on a link-local address (RFC 3927, RFC 4291 §2.5.6), nor Moat's own web server (its API
// replies would come back through gravity's progress output). Checked when a list is added with a
// literal address, and before every connection of a download, redirects included, once the name
// is resolved.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { inCidr, ipTo16, parseCidr, type Cidr } from "../../net/ip.ts";

const cidrs = (list: string[]): Cidr[] => list.map((c) => parseCidr(c)!);
/** link-local, IPv4 in IPv6 included (ipTo16 maps IPv4 into ::ffff:0:0/96), and AWS's IPv6 metadata */
const NEVER = cidrs(["169.254.0.0/16", "fe80::/10", "fd00:ec2::254"]);
/** the machine itself, whatever interface addresses it has */
const SELF = cidrs(["127.0.0.0/8", "::1", "0.0.0.0/8", "::"]);

/** The ports of Moat's own web server (`webserver.port`, e.g. "80,443s" or "127.0.0.1:8080"). */
export function ownWebPorts(webserverPort: string): number[] {
  const ports: number[] = [];
  for (const entry of webserverPort.split(",")) {
    const m = /(\d{1,5})[os]*$/.exec(entry.trim());
    if (m) ports.push(Number(m[1]));
  }
  return ports;
}

function isOwnAddress(ip16: Uint8Array): boolean {
  if (SELF.some((c) => inCidr(ip16, c))) return true;
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) {
      const b = ipTo16(a.address.split("%")[0]!);
      if (b?.every((x, i) => x === ip16[i])) return true;
    }
  return false;
}

/** Why a download may not connect to `ip` on `port`, or null when it may. */
function refusedAddress(ip: string, port: number, ownPorts: readonly number[]): string | null {
  const b = ipTo16(ip.replace(/^\[|\]$/g, ""));
  if (!b) return null;
  if (NEVER.some((c) => inCidr(b, c))) return `${ip} is a link-local address (cloud metadata, the local link)`;
  if (ownPorts.includes(port) && isOwnAddress(b)) return `${ip} port ${port} is Moat's own web server`;
  return null;
}

const portOf = (u: URL) => (u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80);
const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, "");

/**
 * At add time: why an http(s) list address with a literal IP (or `localhost`) may never be fetched,
 * or null. Names are checked when they are resolved, at each download.
 */
export function refusedListAddress(address: string, ownPorts: readonly number[]): string | null {
  let u: URL;
  try {
    u = new URL(address);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  const host = hostOf(u);
  if (host === "localhost" || host.endsWith(".localhost"))
    return ownPorts.includes(portOf(u)) ? `${host} port ${portOf(u)} is Moat's own web server` : null;
  return isIP(host) ? refusedAddress(host, portOf(u), ownPorts) : null;
}

/** At download time: why `url` may not be connected to, after resolving its name; null when it may. */
export async function refusedTarget(url: URL, ownPorts: readonly number[]): Promise<string | null> {
  const host = hostOf(url);
  const port = portOf(url);
  if (isIP(host)) return refusedAddress(host, port, ownPorts);
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    // the download itself reports the name that does not resolve
    return null;
  }
  for (const a of addresses) {
    const why = refusedAddress(a.address, port, ownPorts);
    if (why) return `${host} resolves to ${why}`;
  }
  return null;
}
