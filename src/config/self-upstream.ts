// An upstream that is Moat itself: one of this machine's addresses (loopback, the unspecified address,
// any interface's) on the port where Moat answers that kind of query: dns.port for plain DNS,
// dns.tls.port for DNS over TLS, an HTTPS port of webserver.port for DNS over HTTPS. Every query sent
// there comes back to be forwarded again (one client query made about 32,000). Refused when it is set;
// a loop through a name or another forwarder is caught at run time (src/dns/own-queries.ts).
import { isOwnAddress } from "../net/address-rule.ts";
import { parsePerDomain, parseUpstreamSpec } from "./upstream-syntax.ts";

export interface OwnPorts {
  /** dns.port */
  dns: number;
  /** dns.tls.port (0: off) */
  dot: number;
  /** webserver.port */
  web: string;
}

const httpsPorts = (web: string) =>
  web
    .split(",")
    .map((e) => /(\d{1,5})o?s$/.exec(e.trim())?.[1])
    .filter((p) => p !== undefined)
    .map(Number);

/** Why `entry` is Moat itself, or null when it is not (or is not an upstream at all). */
function selfUpstream(entry: string, own: OwnPorts): string | null {
  const spec = parseUpstreamSpec(entry);
  if (typeof spec === "string" || spec.ip === null || !isOwnAddress(spec.ip)) return null;
  const [port, what] =
    spec.kind === "udp"
      ? [own.dns, "dns.port"]
      : spec.kind === "tls"
        ? [own.dot, "dns.tls.port"]
        : [httpsPorts(own.web).includes(spec.port) ? spec.port : -1, "an HTTPS port of webserver.port"];
  if (spec.port !== port) return null;
  return `${entry} is Moat itself (this machine's address and ${what}): every query would come back to be forwarded again; set a DNS server that is not Moat`;
}

/** The first entry of `entries` that is Moat itself, as a problem, or null. */
export function selfUpstreams(entries: readonly string[], own: OwnPorts): string | null {
  for (const e of entries) {
    const perDomain = parsePerDomain(e);
    const servers = perDomain === null ? [e] : typeof perDomain === "string" ? [] : perDomain.servers;
    for (const s of servers) {
      const why = selfUpstream(s, own);
      if (why) return why;
    }
  }
  return null;
}
