// Stateless DHCPv6 (RFC 8415 §6.1, §18.4.6): an Information-Request gets a Reply with the DNS servers
// (option 23, RFC 3646) and the domain search list (24). No addresses are handed out (SLAAC does that,
// from the router advertisement). Anything malformed, for another server or of another type is ignored.
import { ipv6Bytes } from "../net/ip.ts";

const INFORMATION_REQUEST = 11;
const REPLY = 7;
const OPT_CLIENTID = 1;
const OPT_SERVERID = 2;
const OPT_DNS = 23;
const OPT_DOMAINS = 24;

/** DUID-LL (RFC 8415 §11.4) from the interface's MAC address */
export function duidLL(mac: string): Uint8Array {
  return Uint8Array.of(0, 3, 0, 1, ...mac.split(":").map((h) => parseInt(h, 16)));
}

function options(data: Uint8Array): Map<number, Uint8Array> | null {
  const out = new Map<number, Uint8Array>();
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let i = 4; i < data.length; ) {
    if (i + 4 > data.length) return null;
    const code = v.getUint16(i, false);
    const len = v.getUint16(i + 2, false);
    if (i + 4 + len > data.length) return null;
    out.set(code, data.subarray(i + 4, i + 4 + len));
    i += 4 + len;
  }
  return out;
}

function domainList(domain: string): Uint8Array {
  const bytes: number[] = [];
  for (const label of domain.split(".").filter(Boolean)) bytes.push(label.length, ...new TextEncoder().encode(label));
  bytes.push(0);
  return Uint8Array.from(bytes);
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The Reply to a client's message, or null when it gets none. */
export function dhcp6Reply(req: Uint8Array, serverDuid: Uint8Array, dns: string[], domain: string): Uint8Array | null {
  if (req.length < 4 || req.length > 1500 || req[0] !== INFORMATION_REQUEST) return null;
  const opts = options(req);
  if (!opts) return null;
  const server = opts.get(OPT_SERVERID);
  if (server && !equal(server, serverDuid)) return null;
  const out: Array<[number, Uint8Array]> = [];
  const client = opts.get(OPT_CLIENTID);
  if (client) out.push([OPT_CLIENTID, client]);
  out.push([OPT_SERVERID, serverDuid]);
  const servers = new Uint8Array(16 * dns.length);
  dns.forEach((a, i) => servers.set(ipv6Bytes(a), 16 * i));
  if (dns.length) out.push([OPT_DNS, servers]);
  if (domain) out.push([OPT_DOMAINS, domainList(domain)]);
  const reply = new Uint8Array(4 + out.reduce((n, [, o]) => n + 4 + o.length, 0));
  const v = new DataView(reply.buffer);
  reply[0] = REPLY;
  reply.set(req.subarray(1, 4), 1); // transaction id
  let at = 4;
  for (const [code, o] of out) {
    v.setUint16(at, code, false);
    v.setUint16(at + 2, o.length, false);
    reply.set(o, at + 4);
    at += 4 + o.length;
  }
  return reply;
}
