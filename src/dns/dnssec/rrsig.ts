// RRSIG checks (RFC 4035 §5.3): the signed data in canonical form (RFC 4034 §3.1.8.1, §6), the
// validity window in serial arithmetic (RFC 4034 §3.1.5), and a bounded number of verifications:
// a response full of keys with one tag and signatures that fail (KeyTrap, CVE-2023-50387) costs at
// most the budget's tries, as unbound bounds them.
import type { Dnskey } from "./crypto.ts";
import { verifySignature } from "./crypto.ts";
import { labelCount, suffix, wildcardOf, equalNames } from "./names.ts";
import type { Rr, RRset } from "./records.ts";

interface Rrsig {
  typeCovered: number;
  algorithm: number;
  labels: number;
  originalTtl: number;
  expiration: number;
  inception: number;
  keyTag: number;
  /** lowercase wire form */
  signer: Uint8Array;
  signature: Uint8Array;
  /** the rdata up to the signature: the head of the signed data */
  head: Uint8Array;
}

const u32 = (b: Uint8Array, o: number) => ((b[o]! << 24) >>> 0) + (b[o + 1]! << 16) + (b[o + 2]! << 8) + b[o + 3]!;

export function parseRrsig(r: Rr): Rrsig | null {
  const d = r.rdata;
  if (d.length < 20) return null;
  let o = 18;
  while (o < d.length && d[o] !== 0) o += d[o]! + 1;
  if (o >= d.length) return null;
  o++;
  return {
    typeCovered: (d[0]! << 8) | d[1]!,
    algorithm: d[2]!,
    labels: d[3]!,
    originalTtl: u32(d, 4),
    expiration: u32(d, 8),
    inception: u32(d, 12),
    keyTag: (d[16]! << 8) | d[17]!,
    signer: d.subarray(18, o),
    signature: d.subarray(o),
    head: d.subarray(0, o),
  };
}

/** What a signature check found; the order is the order of preference when several signatures fail. */
export type SigResult = "ok" | "expired" | "not-yet" | "bad" | "no-key" | "budget";

/** Verifications left for one job (a response, or one zone's keys), and for the whole query it is part of. */
export interface Budget {
  tries: number;
  query?: { tries: number };
}

/** The owner a signature was made over: the wildcard when the signature has fewer labels (RFC 4035 §5.3.2). */
function signedOwner(owner: Uint8Array, sig: Rrsig): Uint8Array | null {
  const n = labelCount(owner);
  if (sig.labels > n) return null;
  return sig.labels < n ? wildcardOf(suffix(owner, sig.labels)) : owner;
}

/** The data an RRSIG signs (RFC 4034 §3.1.8.1): its head, then the RRset in canonical order. */
function signedData(set: RRset, sig: Rrsig): Uint8Array | null {
  const owner = signedOwner(set.owner, sig);
  if (!owner) return null;
  const rdatas = set.rrs.map((r) => r.rdata).sort(compareRdata);
  let size = sig.head.length;
  for (const d of rdatas) size += owner.length + 10 + d.length;
  const out = new Uint8Array(size);
  out.set(sig.head, 0);
  let o = sig.head.length;
  const cls = set.rrs[0]!.cls;
  for (const d of rdatas) {
    out.set(owner, o);
    o += owner.length;
    out[o] = set.type >> 8;
    out[o + 1] = set.type & 0xff;
    out[o + 2] = cls >> 8;
    out[o + 3] = cls & 0xff;
    out[o + 4] = sig.originalTtl >>> 24;
    out[o + 5] = (sig.originalTtl >>> 16) & 0xff;
    out[o + 6] = (sig.originalTtl >>> 8) & 0xff;
    out[o + 7] = sig.originalTtl & 0xff;
    out[o + 8] = d.length >> 8;
    out[o + 9] = d.length & 0xff;
    out.set(d, o + 10);
    o += 10 + d.length;
  }
  return out;
}

function compareRdata(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Whether `now` (seconds) lies in [inception, expiration], in serial number arithmetic (RFC 1982). */
function timeCheck(sig: Rrsig, now: number): SigResult | null {
  const t = now >>> 0;
  if (((t - sig.inception) | 0) < 0) return "not-yet";
  if (((sig.expiration - t) | 0) < 0) return "expired";
  return null;
}

/**
 * Checks an RRset against the keys of its signer `zone`: the first signature that verifies makes it
 * "ok"; otherwise the most telling failure. Only signatures by `zone` whose key tag and algorithm
 * match one of `keys` are tried, each try taken from `budget`.
 */
export function verifyRrset(
  set: RRset,
  zone: Uint8Array,
  keys: readonly Dnskey[],
  now: number,
  budget: Budget,
): SigResult {
  let best: SigResult = "no-key";
  const rank = (r: SigResult) => ["ok", "budget", "expired", "not-yet", "bad", "no-key"].indexOf(r);
  for (const r of set.sigs) {
    const sig = parseRrsig(r);
    if (!sig || !equalNames(sig.signer, zone) || sig.typeCovered !== set.type) continue;
    const t = timeCheck(sig, now);
    const candidates = keys.filter(
      // a zone key (RFC 4034 §2.1.1) that is not revoked (RFC 5011 §3)
      (k) => k.key && k.tag === sig.keyTag && k.algorithm === sig.algorithm && (k.flags & 0x0180) === 0x0100,
    );
    if (candidates.length === 0) continue;
    if (t) {
      if (rank(t) < rank(best)) best = t;
      continue;
    }
    const data = signedData(set, sig);
    if (!data) continue;
    for (const k of candidates) {
      if (budget.tries <= 0 || (budget.query && budget.query.tries <= 0)) return "budget";
      budget.tries--;
      if (budget.query) budget.query.tries--;
      if (verifySignature(sig.algorithm, k.key!, data, sig.signature)) return "ok";
      if (rank("bad") < rank(best)) best = "bad";
    }
  }
  return best;
}
