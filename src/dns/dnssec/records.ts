// The records of an upstream answer in the form DNSSEC works on: owner and rdata names uncompressed
// and, where RFC 4034 §6.2 (as RFC 6840 §5.1 amends it) says so, lowercase; grouped into RRsets with
// the RRSIGs that cover them.
import { concatBytes } from "../../net/bytes.ts";
import { expandName, getU16, nameEnd, type Message } from "../wire.ts";
import { equalNames, nameKey } from "./names.ts";

export const T = {
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  SRV: 33,
  DNAME: 39,
  OPT: 41,
  DS: 43,
  RRSIG: 46,
  NSEC: 47,
  DNSKEY: 48,
  NSEC3: 50,
} as const;

export interface Rr {
  /** lowercase wire form */
  owner: Uint8Array;
  type: number;
  cls: number;
  ttl: number;
  /** canonical rdata (names expanded; lowercased for the types of RFC 4034 §6.2) */
  rdata: Uint8Array;
  section: 0 | 1 | 2;
}

/**
 * The rdata names each type carries: [offset of the name, whether it is lowercased], for the types whose
 * names may be compressed (RFC 3597 §4) or are lowercased in canonical form. NSEC's next name keeps its
 * case (RFC 6840 §5.1); RRSIG's signer is lowercased.
 */
function rdataNames(type: number): readonly number[] | null {
  switch (type) {
    case T.NS:
    case T.CNAME:
    case T.PTR:
    case T.DNAME:
      return [0];
    case T.MX:
      return [2];
    case T.SRV:
      return [6];
    case T.SOA:
      return [0, -1]; // -1: the name right after the previous one
    case T.RRSIG:
      return [18];
    default:
      return null;
  }
}

/** The rdata at `at` with its names uncompressed, lowercased when `lower` (canonical form). */
export function expandRdata(buf: Uint8Array, at: number, len: number, type: number, lower: boolean): Uint8Array | null {
  const names = rdataNames(type);
  if (!names) return buf.slice(at, at + len);
  const parts: Uint8Array[] = [];
  let o = at;
  for (const n of names) {
    const start = n < 0 ? o : at + n;
    if (start > o) parts.push(buf.slice(o, start));
    const name = expandName(buf, start, lower);
    if (!name) return null;
    parts.push(name);
    o = nameEnd(buf, start);
    if (o < 0 || o > at + len) return null;
  }
  if (o < at + len) parts.push(buf.slice(o, at + len));
  return concatBytes(parts);
}

/** Every record but the OPT in canonical form; null when one cannot be read. */
export function recordsOf(buf: Uint8Array, m: Message): Rr[] | null {
  const out: Rr[] = [];
  for (const r of m.records) {
    if (r.type === T.OPT) continue;
    const owner = expandName(buf, r.nameAt, true);
    const rdata = expandRdata(buf, r.rdata, r.rdlen, r.type, true);
    if (!owner || !rdata) return null;
    out.push({ owner, type: r.type, cls: getU16(buf, r.rdata - 8), ttl: r.ttl, rdata, section: r.section });
  }
  return out;
}

export interface RRset {
  owner: Uint8Array;
  type: number;
  rrs: Rr[];
  sigs: Rr[];
}

/** The RRsets of one section, each with the RRSIGs of that section that cover it. */
export function rrsetsOf(records: readonly Rr[], section: 0 | 1 | 2): RRset[] {
  const sets = new Map<string, RRset>();
  const sigs: Rr[] = [];
  for (const r of records) {
    if (r.section !== section) continue;
    if (r.type === T.RRSIG) {
      sigs.push(r);
      continue;
    }
    const k = `${nameKey(r.owner)}|${r.type}`;
    let s = sets.get(k);
    if (!s) sets.set(k, (s = { owner: r.owner, type: r.type, rrs: [], sigs: [] }));
    // duplicates count once (RFC 2181 §5)
    if (!s.rrs.some((x) => equalNames(x.rdata, r.rdata))) s.rrs.push(r);
  }
  for (const g of sigs) {
    if (g.rdata.length < 18) continue;
    const s = sets.get(`${nameKey(g.owner)}|${getU16(g.rdata, 0)}`);
    s?.sigs.push(g);
  }
  return [...sets.values()];
}
