// Special-use names a resolver answers itself, ahead of everything else in the chain (they cannot be
// listed, blocked or forwarded):
// - `localhost.` and every name under it: loopback, at once (RFC 6761 §6.3: resolvers answer these
//   themselves and never send them on). A 127.0.0.1, AAAA ::1, other types NODATA.
// - `invalid.` and every name under it: NXDOMAIN (RFC 6761 §6.4).
// - `resolver.arpa.` (RFC 9462, Discovery of Designated Resolvers), when Moat's DNS over TLS or DNS
//   over HTTPS is on: `_dns.resolver.arpa` SVCB names those endpoints, so devices that ask upgrade to
//   encrypted DNS by themselves; other types NODATA, other names under it NXDOMAIN, and nothing under
//   it is forwarded (§4: an upstream's designation would fail verification, or bypass the filter).
//   This is what dns.specialDomains.designatedResolver guards against in Pi-hole (NODATA for the zone,
//   so devices cannot find the upstream's encrypted resolver); our own endpoints cannot bypass Moat, so
//   they are named whatever it says. With neither on, the zone goes on to policy.ts, as in Pi-hole.
// `local.` and `home.arpa.` are not answered here: dns.hosts and DHCP names may live there, so
// local.ts keeps them from the upstreams after its own records (`isPrivateZone`).
import type { Config } from "../config/index.ts";
import { Reply } from "../query/enums.ts";
import { parseWebPort } from "../config/validators.ts";
import type { TlsMaterial } from "../tls/store.ts";
import type { ConfigView, Handler, Next, Pending, QueryContext } from "./context.ts";
import { ownAnswer, type RR } from "./reply.ts";
import { localAddressFor } from "./iface.ts";
import { RCODE, TYPE } from "./wire.ts";
import { ipv4Bytes, ipv6Bytes } from "../net/ip.ts";
import { svcbRecord } from "./svcb.ts";

/** Loopback and DDR answers change only with the configuration; a short TTL keeps a switch prompt. */
const SPECIAL_TTL = 60;
const SVCB = 64;
const LOOP4: readonly RR[] = [{ type: TYPE.A, ttl: SPECIAL_TTL, data: ipv4Bytes("127.0.0.1") }];
const LOOP6: readonly RR[] = [{ type: TYPE.AAAA, ttl: SPECIAL_TTL, data: ipv6Bytes("::1") }];
const NONE: readonly RR[] = [];

/** RFC 9461 §5: the DoH path as an RFC 6570 URI template; doh-serve.ts answers GET `?dns=`. */
const DOH_PATH = "/dns-query{?dns}";

/** Whether `name` is `zone` or under it (names are lowercase without the trailing dot); makes no string, as it runs for every query. */
export function within(name: string, zone: string): boolean {
  return (
    name === zone || (name.length > zone.length && name.endsWith(zone) && name[name.length - zone.length - 1] === ".")
  );
}

/** Moat's encrypted endpoints, in the order DDR names them: DoT on dns.tls.port, then DoH on each HTTPS port. */
function endpoints(c: Config): Array<{ port: number; doh: boolean }> {
  const out: Array<{ port: number; doh: boolean }> = [];
  if (c.dns.tls.port > 0) out.push({ port: c.dns.tls.port, doh: false });
  const seen = new Set<number>();
  for (const entry of c.webserver.port.split(",")) {
    const p = parseWebPort(entry.trim());
    if (p?.tls && !seen.has(p.port)) {
      seen.add(p.port);
      out.push({ port: p.port, doh: true });
    }
  }
  return out;
}

/**
 * The name DDR's records point at: the first plain (not wildcard) name on Moat's certificate, which a
 * client checks the certificate against (RFC 9462 §4.2). The handler asks for it only while DoT or DoH
 * is on, so the certificate is not loaded for nothing.
 */
export function certificateName(tls: { current(): TlsMaterial }): string | null {
  return tls.current().names.find((n) => !n.startsWith("*.")) ?? null;
}

/**
 * `local.` (mDNS, RFC 6762 §3: its names have no meaning in the global DNS) and `home.arpa.` (RFC 8375
 * §4: the home network's own zone, never sent to the global DNS). Only a conditional forwarder
 * (dns.revServers) may take them; local.ts answers the rest NXDOMAIN, as `local=/home.arpa/` does in dnsmasq.
 */
export function isPrivateZone(name: string): boolean {
  return within(name, "local") || within(name, "home.arpa");
}

export class SpecialNamesHandler implements Handler {
  readonly name = "special";

  /** `certName`: the name on Moat's certificate that DDR points devices at (null: DDR off). */
  constructor(
    private readonly config: ConfigView,
    private readonly certName: () => string | null,
  ) {}

  handle(ctx: QueryContext, next: Next): Pending {
    const name = ctx.q.name;
    // the common path: one look at the last label
    const last = name.charCodeAt(name.length - 1);
    if (last !== 116 /* t: localhost */ && last !== 100 /* d: invalid */ && last !== 97 /* a: arpa */) return next(ctx);
    if (ctx.q.qclass !== 1) return next(ctx);
    const qtype = ctx.q.qtype;
    if (within(name, "localhost")) {
      const rrs = qtype === TYPE.A ? LOOP4 : qtype === TYPE.AAAA ? LOOP6 : NONE;
      return ownAnswer(ctx, RCODE.NOERROR, rrs, rrs.length ? Reply.IP : Reply.NODATA);
    }
    if (within(name, "invalid")) return ownAnswer(ctx, RCODE.NXDOMAIN, NONE, Reply.NXDOMAIN);
    if (within(name, "resolver.arpa")) {
      const rrs = this.designated(ctx.client);
      if (!rrs.length) return next(ctx);
      if (name === "_dns.resolver.arpa" && qtype === SVCB) return ownAnswer(ctx, RCODE.NOERROR, rrs, Reply.RRNAME);
      const exists = name === "resolver.arpa" || name === "_dns.resolver.arpa";
      return exists
        ? ownAnswer(ctx, RCODE.NOERROR, NONE, Reply.NODATA)
        : ownAnswer(ctx, RCODE.NXDOMAIN, NONE, Reply.NXDOMAIN);
    }
    return next(ctx);
  }

  /**
   * The SVCB records of RFC 9462 §4: DoT (alpn "dot", RFC 9461 §4) on dns.tls.port, then DoH (alpn
   * "h2" and dohpath) on each HTTPS port of webserver.port, with the addresses of the interface facing
   * the client as hints, as the pi.hole answer has them.
   */
  private designated(client: string): RR[] {
    const list = endpoints(this.config.current);
    const target = list.length ? this.certName() : null;
    if (!target) return [];
    const v4 = localAddressFor(client, 4);
    const v6 = localAddressFor(client, 6);
    const hints = { ipv4: v4 ? [v4] : [], ipv6: v6 ? [v6] : [] };
    return list.map((e, i) =>
      svcbRecord(SPECIAL_TTL, {
        priority: i + 1,
        target,
        port: e.port,
        ...hints,
        ...(e.doh ? { alpn: ["h2"], dohpath: DOH_PATH } : { alpn: ["dot"] }),
      }),
    );
  }
}
