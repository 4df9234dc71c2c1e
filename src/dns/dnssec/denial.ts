// Authenticated denial of existence: NSEC (RFC 4035 §3.1.3, §5.4; RFC 6840 §4.1) and NSEC3 (RFC 5155 §8)
// proofs over RRsets whose signatures were already checked. Each proof says "secure" (proven),
// "insecure" (NSEC3 opt-out, or more iterations than RFC 9276 lets a validator spend) or "bogus" (no proof).
import { createHash } from "node:crypto";
import { compareNames, equalNames, isBelow, labelCount, labelsOf, parentOf, suffix, wildcardOf } from "./names.ts";
import { T, type RRset } from "./records.ts";

export type Proof = "secure" | "insecure" | "bogus";

/** RFC 9276 §3.2: validators may treat NSEC3 with more iterations as insecure; unbound's limit is 150. */
const MAX_NSEC3_ITERATIONS = 150;

/** Whether an NSEC/NSEC3 type bitmap (RFC 4034 §4.1.2) has `type`. */
function bitmapHas(bitmap: Uint8Array, type: number): boolean {
  const win = type >> 8;
  const bit = type & 0xff;
  for (let o = 0; o + 2 <= bitmap.length; o += 2 + bitmap[o + 1]!) {
    if (bitmap[o] !== win) continue;
    const len = bitmap[o + 1]!;
    return bit >> 3 < len && (bitmap[o + 2 + (bit >> 3)]! & (0x80 >> (bit & 7))) !== 0;
  }
  return false;
}

interface Nsec {
  owner: Uint8Array;
  next: Uint8Array;
  bitmap: Uint8Array;
}

function nsecsOf(sets: readonly RRset[]): Nsec[] {
  const out: Nsec[] = [];
  for (const s of sets) {
    if (s.type !== T.NSEC) continue;
    for (const r of s.rrs) {
      let o = 0;
      while (o < r.rdata.length && r.rdata[o] !== 0) o += r.rdata[o]! + 1;
      // the next name keeps its case on the wire (RFC 6840 §5.1); it is compared in lowercase
      const next = r.rdata.slice(0, o + 1).map((c) => (c >= 65 && c <= 90 ? c + 32 : c));
      out.push({ owner: s.owner, next, bitmap: r.rdata.subarray(o + 1) });
    }
  }
  return out;
}

/** An NSEC at a delegation (NS without SOA) says nothing about names below it (RFC 6840 §4.1). */
const delegation = (bitmap: Uint8Array) => bitmapHas(bitmap, T.NS) && !bitmapHas(bitmap, T.SOA);

function nsecCovers(n: Nsec, name: Uint8Array): boolean {
  if (delegation(n.bitmap) && isBelow(name, n.owner)) return false;
  const afterOwner = compareNames(name, n.owner) > 0;
  const beforeNext = compareNames(name, n.next) < 0;
  // the last NSEC of a zone points back at the apex
  return compareNames(n.owner, n.next) < 0 ? afterOwner && beforeNext : afterOwner || beforeNext;
}

/** The closest encloser an NSEC covering `name` implies: the deepest ancestor shared with its owner or next. */
function nsecEncloser(n: Nsec, name: Uint8Array): Uint8Array {
  const common = (a: Uint8Array) => {
    let c = name;
    while (!isBelow(a, c)) c = parentOf(c);
    return c;
  };
  const x = common(n.owner);
  const y = common(n.next);
  return labelCount(x) >= labelCount(y) ? x : y;
}

function nsecDenial(nsecs: Nsec[], name: Uint8Array, qtype: number, nxdomain: boolean): Proof {
  const match = nsecs.find((n) => equalNames(n.owner, name));
  if (!nxdomain && match) {
    if (bitmapHas(match.bitmap, qtype) || bitmapHas(match.bitmap, T.CNAME)) return "bogus";
    // the parent's NSEC at a delegation proves only the absence of DS
    return qtype !== T.DS && delegation(match.bitmap) ? "bogus" : "secure";
  }
  if (match) return "bogus";
  const cover = nsecs.find((n) => nsecCovers(n, name));
  if (!cover) return "bogus";
  // an empty non-terminal: the next name is below it (RFC 4035 §3.1.3.2)
  if (!nxdomain && isBelow(cover.next, name)) return "secure";
  const wild = wildcardOf(nsecEncloser(cover, name));
  if (nxdomain) return nsecs.some((n) => nsecCovers(n, wild)) ? "secure" : "bogus";
  // wildcard NODATA (RFC 4035 §3.1.3.4): the wildcard exists without the type
  const w = nsecs.find((n) => equalNames(n.owner, wild));
  return w && !bitmapHas(w.bitmap, qtype) && !bitmapHas(w.bitmap, T.CNAME) ? "secure" : "bogus";
}

interface Nsec3 {
  hash: Uint8Array;
  next: Uint8Array;
  flags: number;
  iterations: number;
  salt: Uint8Array;
  bitmap: Uint8Array;
}

const B32 = "0123456789abcdefghijklmnopqrstuv";

/** RFC 4648 §7 base32hex, no padding (an NSEC3 owner's first label). */
function base32hex(label: Uint8Array): Uint8Array | null {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const c of label) {
    const v = B32.indexOf(String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c));
    if (v < 0) return null;
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((acc >> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

/** RFC 5155 §5: IH(salt, x, k), SHA-1. */
export function nsec3Hash(name: Uint8Array, salt: Uint8Array, iterations: number): Uint8Array {
  let h = createHash("sha1").update(name).update(salt).digest();
  for (let i = 0; i < iterations; i++) h = createHash("sha1").update(h).update(salt).digest();
  return h;
}

function nsec3sOf(sets: readonly RRset[], zone: Uint8Array): Nsec3[] {
  const out: Nsec3[] = [];
  for (const s of sets) {
    if (s.type !== T.NSEC3 || !equalNames(parentOf(s.owner), zone)) continue;
    const hash = base32hex(labelsOf(s.owner)[0]!);
    for (const r of s.rrs) {
      const d = r.rdata;
      if (!hash || d.length < 6 || d[0] !== 1) continue; // hash algorithm 1 (SHA-1) only
      const saltEnd = 5 + d[4]!;
      const hashEnd = saltEnd + 1 + (d[saltEnd] ?? 0);
      if (hashEnd > d.length) continue;
      out.push({
        hash,
        next: d.subarray(saltEnd + 1, hashEnd),
        flags: d[1]!,
        iterations: (d[2]! << 8) | d[3]!,
        salt: d.subarray(5, saltEnd),
        bitmap: d.subarray(hashEnd),
      });
    }
  }
  return out;
}

function cmp(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

class Nsec3Set {
  private readonly cache = new Map<string, Uint8Array>();
  constructor(
    readonly list: Nsec3[],
    private readonly zone: Uint8Array,
  ) {}
  hash(name: Uint8Array): Uint8Array {
    const k = Buffer.from(name).toString("latin1");
    let h = this.cache.get(k);
    if (!h) this.cache.set(k, (h = nsec3Hash(name, this.list[0]!.salt, this.list[0]!.iterations)));
    return h;
  }
  match(name: Uint8Array): Nsec3 | undefined {
    const h = this.hash(name);
    return this.list.find((n) => cmp(n.hash, h) === 0);
  }
  cover(name: Uint8Array): Nsec3 | undefined {
    const h = this.hash(name);
    return this.list.find((n) =>
      cmp(n.hash, n.next) < 0 ? cmp(h, n.hash) > 0 && cmp(h, n.next) < 0 : cmp(h, n.hash) > 0 || cmp(h, n.next) < 0,
    );
  }
  /** RFC 5155 §8.3: the closest encloser, and the NSEC3 that covers the next closer name. */
  encloser(name: Uint8Array): { ce: Uint8Array; cover: Nsec3 | undefined } | null {
    for (
      let nc = name, ce = parentOf(name);
      isBelow(ce, this.zone) && nc.length > ce.length;
      nc = ce, ce = parentOf(ce)
    )
      if (this.match(ce)) return { ce, cover: this.cover(nc) };
    return null;
  }
}

function nsec3Denial(n3: Nsec3Set, name: Uint8Array, qtype: number, nxdomain: boolean): Proof {
  const match = n3.match(name);
  if (!nxdomain && match) {
    if (bitmapHas(match.bitmap, qtype) || bitmapHas(match.bitmap, T.CNAME)) return "bogus";
    return qtype !== T.DS && delegation(match.bitmap) ? "bogus" : "secure";
  }
  if (match) return "bogus";
  const enc = n3.encloser(name);
  if (!enc?.cover) return "bogus";
  // opt-out: unsigned delegations may hide in the span, so nothing below it is proven (RFC 5155 §8.6, §9.2)
  if (enc.cover.flags & 1) return "insecure";
  const wild = wildcardOf(enc.ce);
  if (nxdomain) return n3.cover(wild) ? "secure" : "bogus";
  const w = n3.match(wild);
  return w && !bitmapHas(w.bitmap, qtype) && !bitmapHas(w.bitmap, T.CNAME) ? "secure" : "bogus";
}

function nsec3Of(sets: readonly RRset[], zone: Uint8Array): Nsec3Set | "insecure" | null {
  const list = nsec3sOf(sets, zone);
  if (list.length === 0) return null;
  if (list.some((n) => n.iterations > MAX_NSEC3_ITERATIONS)) return "insecure";
  return new Nsec3Set(list, zone);
}

/** Proves that `name` does not exist (nxdomain) or has no `qtype` (NODATA), with the verified NSEC/NSEC3 RRsets of `zone`. */
export function proveDenial(
  sets: readonly RRset[],
  zone: Uint8Array,
  name: Uint8Array,
  qtype: number,
  nxdomain: boolean,
): Proof {
  const nsecs = nsecsOf(sets).filter((n) => isBelow(n.owner, zone));
  if (nsecs.length) return nsecDenial(nsecs, name, qtype, nxdomain);
  const n3 = nsec3Of(sets, zone);
  if (n3 === null) return "bogus";
  if (n3 === "insecure") return "insecure";
  return nsec3Denial(n3, name, qtype, nxdomain);
}

/**
 * A wildcard answer (RRSIG labels below the owner's count) also proves that the name asked for does not
 * exist: the next closer name under the wildcard's parent is covered (RFC 4035 §5.3.4, RFC 5155 §8.8).
 */
export function proveWildcard(sets: readonly RRset[], zone: Uint8Array, owner: Uint8Array, labels: number): Proof {
  const nsecs = nsecsOf(sets).filter((n) => isBelow(n.owner, zone));
  if (nsecs.length) return nsecs.some((n) => nsecCovers(n, owner)) ? "secure" : "bogus";
  const n3 = nsec3Of(sets, zone);
  if (n3 === null) return "bogus";
  if (n3 === "insecure") return "insecure";
  const cover = n3.cover(suffix(owner, labels + 1));
  if (!cover) return "bogus";
  return cover.flags & 1 ? "insecure" : "secure";
}

/** What a DS query's NODATA proof says of `name` (RFC 4035 §5.2, RFC 5155 §8.6): a delegation without DS, no zone cut, or nothing. */
export function dsAbsence(
  sets: readonly RRset[],
  zone: Uint8Array,
  name: Uint8Array,
): "insecure-cut" | "no-cut" | "bogus" {
  const nsecs = nsecsOf(sets).filter((n) => isBelow(n.owner, zone));
  const judge = (bitmap: Uint8Array) =>
    bitmapHas(bitmap, T.DS)
      ? "bogus"
      : bitmapHas(bitmap, T.NS) && !bitmapHas(bitmap, T.SOA)
        ? "insecure-cut"
        : "no-cut";
  if (nsecs.length) {
    const m = nsecs.find((n) => equalNames(n.owner, name));
    if (m) return judge(m.bitmap);
    return nsecs.some((n) => nsecCovers(n, name)) ? "no-cut" : "bogus";
  }
  const n3 = nsec3Of(sets, zone);
  if (n3 === null) return "bogus";
  if (n3 === "insecure") return "insecure-cut";
  const m = n3.match(name);
  if (m) return judge(m.bitmap);
  const enc = n3.encloser(name);
  if (!enc?.cover) return "bogus";
  return enc.cover.flags & 1 ? "insecure-cut" : "no-cut";
}
