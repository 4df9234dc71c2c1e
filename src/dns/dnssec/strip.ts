// An answer fetched with DO for a client that did not set DO loses its DNSSEC records (RRSIG, NSEC,
// NSEC3 unless asked for by type, RFC 4035 §3.2.1) and the DO bit of its OPT. The records are
// rewritten with their names uncompressed (a removed record may have held a name others pointed at);
// owners equal to the question name point at it, which keeps common answers as small as before.
import { expandName, getU16, type Message, type Question } from "../wire.ts";
import { equalNames } from "./names.ts";
import { T, expandRdata } from "./records.ts";

const DNSSEC_TYPES = new Set<number>([T.RRSIG, T.NSEC, T.NSEC3]);
const QNAME_POINTER = Uint8Array.of(0xc0, 12);

export function stripDnssec(a: Uint8Array, m: Message, query: Uint8Array, q: Question): Uint8Array | null {
  const parts: Uint8Array[] = [];
  const counts = [0, 0, 0];
  for (const r of m.records) {
    if (r.type === T.OPT || (DNSSEC_TYPES.has(r.type) && r.type !== q.qtype)) continue;
    const owner = expandName(a, r.nameAt, false);
    const rdata = expandRdata(a, r.rdata, r.rdlen, r.type, false);
    if (!owner || !rdata) return null;
    const lower = owner.map((c) => (c >= 65 && c <= 90 ? c + 32 : c));
    parts.push(equalNames(lower, q.wire) ? QNAME_POINTER : owner);
    const fixed = a.slice(r.rdata - 10, r.rdata); // type, class, TTL, length
    fixed[8] = rdata.length >> 8;
    fixed[9] = rdata.length & 0xff;
    parts.push(fixed, rdata);
    counts[r.section]!++;
  }
  // the client's OPT without DO (RFC 6891 §6.1.4 and RFC 3225: DO echoes the query's)
  if (q.edns) parts.push(Uint8Array.of(0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0));
  let size = q.end;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  out.set(query.subarray(0, q.end));
  out[2] = a[2]!;
  out[3] = a[3]!;
  out[4] = 0;
  out[5] = 1;
  out[6] = counts[0]! >> 8;
  out[7] = counts[0]! & 0xff;
  out[8] = counts[1]! >> 8;
  out[9] = counts[1]! & 0xff;
  const ar = counts[2]! + (q.edns ? 1 : 0);
  out[10] = ar >> 8;
  out[11] = ar & 0xff;
  let o = q.end;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return getU16(out, 4) === 1 ? out : null;
}
