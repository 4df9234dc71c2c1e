// Replies to blocked queries (reference §8.2): the blocking mode decides the answer, `;reply=` of a
// regex overrides it, dns.blockTTL is the TTL, and dns.blocking.edns adds EDE 15 with the reason.
import type { Config } from "../config/index.ts";
import { Reply } from "../stats/enums.ts";
import type { RegexReply } from "../filter/regex.ts";
import type { QueryContext } from "./context.ts";
import { buildReply, ipv4Bytes, ipv6Bytes, type Ede, type RR } from "./reply.ts";
import { localAddressFor } from "./iface.ts";
import { RCODE, TYPE, nameToWire } from "./wire.ts";

const ZERO4 = new Uint8Array(4);
const ZERO6 = new Uint8Array(16);

export function blockedReply(ctx: QueryContext, dns: Config["dns"], reason: string, override: RegexReply | null = null): Uint8Array {
  const { q, query } = ctx;
  const ttl = dns.blockTTL;
  const ede: Ede | null = dns.blocking.edns === "NONE" ? null : { code: 15, text: dns.blocking.edns === "TEXT" ? reason : "" };
  const reply = (rcode: number, answers: RR[], type: number) => {
    ctx.reply = type;
    return buildReply(query, q, rcode, answers, [], ede);
  };
  const nodata = () => reply(RCODE.NOERROR, [], Reply.NODATA);
  const nx = () => reply(RCODE.NXDOMAIN, [], Reply.NXDOMAIN);
  const ip = (v4: Uint8Array | null, v6: Uint8Array | null) => {
    if (q.qtype === TYPE.A && v4) return reply(RCODE.NOERROR, [{ type: TYPE.A, ttl, data: v4 }], Reply.IP);
    if (q.qtype === TYPE.AAAA && v6) return reply(RCODE.NOERROR, [{ type: TYPE.AAAA, ttl, data: v6 }], Reply.IP);
    return nodata();
  };
  const own = (fam: 4 | 6): Uint8Array | null => {
    const b = dns.reply.blocking;
    if (fam === 4 && b.force4 && b.IPv4) return ipv4Bytes(b.IPv4);
    if (fam === 6 && b.force6 && b.IPv6) return ipv6Bytes(b.IPv6);
    const a = localAddressFor(ctx.client, fam);
    return a ? (fam === 4 ? ipv4Bytes(a) : ipv6Bytes(a)) : null;
  };
  if (override) {
    switch (override.kind) {
      case "NXDOMAIN": return nx();
      case "NODATA": return nodata();
      case "REFUSED": return reply(RCODE.REFUSED, [], Reply.REFUSED);
      case "NONE": return ip(ZERO4, ZERO6);
      case "IP": return ip(own(4), own(6));
      case "ADDR": return ip(override.v4 ? ipv4Bytes(override.v4) : null, override.v6 ? ipv6Bytes(override.v6) : null);
      case "CNAME": {
        const target = nameToWire(override.target);
        if (!target) return nodata();
        return reply(RCODE.NOERROR, [{ type: TYPE.CNAME, ttl, data: target }], Reply.CNAME);
      }
    }
  }
  switch (dns.blocking.mode) {
    case "NX": return nx();
    case "NODATA": return nodata();
    case "IP": return ip(own(4), own(6));
    case "IP_NODATA_AAAA": return ip(own(4), null);
    default: return ip(ZERO4, ZERO6);
  }
}
