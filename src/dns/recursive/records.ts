// An authority's response as records of our own: owner names and the names inside rdata expanded
// (compression pointers point into the response, not into the answer Moat builds), so records from
// several responses (a CNAME chain across zones) make one answer through reply.ts.
import type { RR } from "../reply.ts";
import { concatBytes } from "../../net/bytes.ts";
import { TYPE, expandName, getU16, nameEnd, type Message } from "../wire.ts";

export interface Rec extends RR {
  owner: Uint8Array;
  /** the lowercase owner, for comparisons */
  key: Uint8Array;
  section: 0 | 1 | 2;
}

const DNAME = 39,
  SOA = 6,
  MX = 15,
  SRV = 33;

/** The rdata of a record with its names expanded (the types RFC 3597 §4 allows compression in, and SRV's). */
function rdataOf(buf: Uint8Array, type: number, at: number, len: number): Uint8Array | null {
  const raw = buf.subarray(at, at + len);
  switch (type) {
    case TYPE.NS:
    case TYPE.CNAME:
    case TYPE.PTR:
    case DNAME:
      return expandName(buf, at, false);
    case MX: {
      const n = expandName(buf, at + 2, false);
      return n && concatBytes([raw.subarray(0, 2), n]);
    }
    case SRV: {
      const n = expandName(buf, at + 6, false);
      return n && concatBytes([raw.subarray(0, 6), n]);
    }
    case SOA: {
      const m = expandName(buf, at, false);
      const skip = nameEnd(buf, at);
      const r = skip < 0 ? null : expandName(buf, skip, false);
      const end = skip < 0 ? -1 : nameEnd(buf, skip);
      return m && r && end >= 0 && end + 20 <= at + len ? concatBytes([m, r, buf.subarray(end, end + 20)]) : null;
    }
    default:
      return raw.slice();
  }
}

/** Every record of a response but OPT; null when one cannot be read. */
export function recordsOf(buf: Uint8Array, m: Message): Rec[] | null {
  const out: Rec[] = [];
  for (const r of m.records) {
    if (r.type === TYPE.OPT) continue;
    if (getU16(buf, r.ttlAt - 2) !== 1) continue; // class IN only
    const owner = expandName(buf, r.nameAt, false);
    const key = expandName(buf, r.nameAt, true);
    const data = rdataOf(buf, r.type, r.rdata, r.rdlen);
    if (!owner || !key || !data) return null;
    out.push({ owner, key, type: r.type, ttl: Math.min(r.ttl, 0x7fffffff), data, section: r.section });
  }
  return out;
}

/** The lowercase name in a record's rdata at `at` (NS, CNAME, DNAME targets). */
export function targetOf(r: Rec, at = 0): Uint8Array {
  const n = r.data.subarray(at);
  const out = new Uint8Array(n.length);
  for (let i = 0; i < n.length; i++) {
    const c = n[i]!;
    out[i] = c >= 65 && c <= 90 ? c + 32 : c;
  }
  return out;
}
