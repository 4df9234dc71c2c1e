// SVCB records in wire form (RFC 9460 §2.2): SvcPriority, TargetName (uncompressed), then SvcParams
// in strictly increasing key order, each as key, length, value. Only the keys DDR needs (RFC 9462):
// alpn=1, port=3, ipv4hint=4, ipv6hint=6 (RFC 9460 §7) and dohpath=7 (RFC 9461 §5).
import { ipv4Bytes, ipv6Bytes } from "../net/ip.ts";
import { nameToWire } from "../net/dns-name.ts";
import { concatBytes as concat } from "../net/bytes.ts";
import type { RR } from "./reply.ts";

const TYPE_SVCB = 64;
const KEY_ALPN = 1,
  KEY_PORT = 3,
  KEY_IPV4HINT = 4,
  KEY_IPV6HINT = 6,
  KEY_DOHPATH = 7;

export interface Svcb {
  priority: number;
  /** a host name; "." (or "") for the owner name itself */
  target: string;
  alpn: string[];
  port: number;
  ipv4: string[];
  ipv6: string[];
  dohpath?: string;
}

const enc = new TextEncoder();

/** One SVCB answer record for the question name (the owner is the question's, by pointer). */
export function svcbRecord(ttl: number, s: Svcb): RR {
  const params: Array<[number, Uint8Array]> = [];
  // alpn-ids: each a length-prefixed string (RFC 9460 §7.1.1)
  const ids = s.alpn.map((a) => enc.encode(a));
  const alpn = new Uint8Array(ids.reduce((n, a) => n + 1 + a.length, 0));
  let o = 0;
  for (const a of ids) {
    alpn[o++] = a.length;
    alpn.set(a, o);
    o += a.length;
  }
  params.push([KEY_ALPN, alpn]);
  params.push([KEY_PORT, Uint8Array.of(s.port >> 8, s.port & 0xff)]);
  if (s.ipv4.length) params.push([KEY_IPV4HINT, concat(s.ipv4.map(ipv4Bytes))]);
  if (s.ipv6.length) params.push([KEY_IPV6HINT, concat(s.ipv6.map(ipv6Bytes))]);
  if (s.dohpath) params.push([KEY_DOHPATH, enc.encode(s.dohpath)]);
  const target = nameToWire(s.target) ?? Uint8Array.of(0);
  const size = 2 + target.length + params.reduce((n, [, v]) => n + 4 + v.length, 0);
  const data = new Uint8Array(size);
  data[0] = s.priority >> 8;
  data[1] = s.priority & 0xff;
  data.set(target, 2);
  o = 2 + target.length;
  for (const [key, value] of params) {
    data[o] = key >> 8;
    data[o + 1] = key & 0xff;
    data[o + 2] = value.length >> 8;
    data[o + 3] = value.length & 0xff;
    data.set(value, o + 4);
    o += 4 + value.length;
  }
  return { type: TYPE_SVCB, ttl, data };
}
