// Replies to blocked queries, as Pi-hole gives them: the blocking mode decides the answer, `;reply=` of a
// regex overrides it, dns.blockTTL is the TTL, and dns.blocking.edns adds EDE 15 with the reason.
import type { Config } from "../config/index.ts";
import { Reply } from "../query/enums.ts";
import type { RegexReply } from "../filter/regex.ts";
import type { QueryContext } from "./context.ts";
import { buildReply, type Ede, type RR } from "./reply.ts";
import { ipv4Bytes, ipv6Bytes } from "../net/ip.ts";
import { nameToWire } from "../net/dns-name.ts";
import { localAddressFor } from "./iface.ts";
import { RCODE, TYPE } from "./wire.ts";

const ZERO4 = new Uint8Array(4);
const ZERO6 = new Uint8Array(16);

/** EDE 15 per reason text, made once (a blocked query must not cost an object for it). */
const edeOf = new Map<string, Ede>();
function blockedEde(text: string): Ede {
  let e = edeOf.get(text);
  if (!e) edeOf.set(text, (e = { code: 15, text }));
  return e;
}

export function blockedReply(
  ctx: QueryContext,
  dns: Config["dns"],
  reason: string,
  override: RegexReply | null = null,
): Uint8Array {
  const { q } = ctx;
  const ede = dns.blocking.edns === "NONE" ? null : blockedEde(dns.blocking.edns === "TEXT" ? reason : "");
  if (override) return overrideReply(ctx, dns, ede, override);
  switch (dns.blocking.mode) {
    case "NX":
      return reply(ctx, ede, RCODE.NXDOMAIN, Reply.NXDOMAIN);
    case "NODATA":
      return reply(ctx, ede, RCODE.NOERROR, Reply.NODATA);
    case "IP":
      return addressReply(ctx, ede, dns.blockTTL, ownAddress(ctx, dns, 4), ownAddress(ctx, dns, 6));
    case "IP_NODATA_AAAA":
      return addressReply(ctx, ede, dns.blockTTL, q.qtype === TYPE.A ? ownAddress(ctx, dns, 4) : null, null);
    default:
      return addressReply(ctx, ede, dns.blockTTL, ZERO4, ZERO6);
  }
}

/** An answer a rule gives instead of blocking (AdGuard's $dnsrewrite to an address): no EDE, dns.blockTTL. */
export function rewrittenReply(ctx: QueryContext, dns: Config["dns"], r: RegexReply): Uint8Array {
  return overrideReply(ctx, dns, null, r);
}

function overrideReply(ctx: QueryContext, dns: Config["dns"], ede: Ede | null, override: RegexReply): Uint8Array {
  switch (override.kind) {
    case "NXDOMAIN":
      return reply(ctx, ede, RCODE.NXDOMAIN, Reply.NXDOMAIN);
    case "NODATA":
      return reply(ctx, ede, RCODE.NOERROR, Reply.NODATA);
    case "REFUSED":
      return reply(ctx, ede, RCODE.REFUSED, Reply.REFUSED);
    case "NONE":
      return addressReply(ctx, ede, dns.blockTTL, ZERO4, ZERO6);
    case "IP":
      return addressReply(ctx, ede, dns.blockTTL, ownAddress(ctx, dns, 4), ownAddress(ctx, dns, 6));
    case "ADDR": {
      // every address of the asked family (several AdGuard rewrites of one name answer together), else NODATA
      const qtype = ctx.q.qtype;
      const list = qtype === TYPE.A ? override.v4 : qtype === TYPE.AAAA ? override.v6 : undefined;
      if (!list?.length) return reply(ctx, ede, RCODE.NOERROR, Reply.NODATA);
      const bytes = qtype === TYPE.A ? ipv4Bytes : ipv6Bytes;
      return reply(
        ctx,
        ede,
        RCODE.NOERROR,
        Reply.IP,
        list.map((a) => ({ type: qtype, ttl: dns.blockTTL, data: bytes(a) })),
      );
    }
    case "CNAME": {
      const target = nameToWire(override.target);
      if (!target) return reply(ctx, ede, RCODE.NOERROR, Reply.NODATA);
      return reply(ctx, ede, RCODE.NOERROR, Reply.CNAME, [{ type: TYPE.CNAME, ttl: dns.blockTTL, data: target }]);
    }
  }
}

function reply(ctx: QueryContext, ede: Ede | null, rcode: number, type: number, answers?: RR[]): Uint8Array {
  ctx.reply = type;
  return buildReply(ctx.query, ctx.q, rcode, answers, undefined, ede);
}

/** An A or AAAA answer with the address of the query's family, else NODATA. */
function addressReply(
  ctx: QueryContext,
  ede: Ede | null,
  ttl: number,
  v4: Uint8Array | null,
  v6: Uint8Array | null,
): Uint8Array {
  const qtype = ctx.q.qtype;
  if (qtype === TYPE.A && v4) return reply(ctx, ede, RCODE.NOERROR, Reply.IP, [{ type: TYPE.A, ttl, data: v4 }]);
  if (qtype === TYPE.AAAA && v6) return reply(ctx, ede, RCODE.NOERROR, Reply.IP, [{ type: TYPE.AAAA, ttl, data: v6 }]);
  return reply(ctx, ede, RCODE.NOERROR, Reply.NODATA);
}

/** The appliance's own address of a family: the configured one, else the interface the client reaches. */
function ownAddress(ctx: QueryContext, dns: Config["dns"], fam: 4 | 6): Uint8Array | null {
  const b = dns.reply.blocking;
  if (fam === 4 && b.force4 && b.IPv4) return ipv4Bytes(b.IPv4);
  if (fam === 6 && b.force6 && b.IPv6) return ipv6Bytes(b.IPv6);
  const a = localAddressFor(ctx.client, fam);
  return a ? (fam === 4 ? ipv4Bytes(a) : ipv6Bytes(a)) : null;
}
