// The cryptography of DNSSEC through node:crypto: DNSKEY public keys (RFC 3110 / 5702 RSA, RFC 6605
// ECDSA, RFC 8080 Ed25519), signature checks, key tags (RFC 4034 Appendix B) and DS digests
// (RFC 4509 SHA-256, RFC 6605 SHA-384). Algorithms outside SUPPORTED make a zone insecure (RFC 4035 §5.2).
import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";

export interface Dnskey {
  flags: number;
  algorithm: number;
  tag: number;
  rdata: Uint8Array;
  /** null: an algorithm we cannot use, or a malformed key */
  key: KeyObject | null;
}

/** RFC 4034 Appendix B: the ones' complement-like sum over the rdata. */
function keyTag(rdata: Uint8Array): number {
  let ac = 0;
  for (let i = 0; i < rdata.length; i++) ac += i & 1 ? rdata[i]! : rdata[i]! << 8;
  ac += (ac >> 16) & 0xffff;
  return ac & 0xffff;
}

const b64url = (b: Uint8Array) => Buffer.from(b).toString("base64url");

function publicKey(algorithm: number, k: Uint8Array): KeyObject | null {
  try {
    switch (algorithm) {
      case 8:
      case 10: {
        // RFC 3110 §2: exponent length in one byte, or a zero byte and two
        let o = 1;
        let elen = k[0]!;
        if (elen === 0) {
          elen = (k[1]! << 8) | k[2]!;
          o = 3;
        }
        if (o + elen >= k.length) return null;
        const e = k.subarray(o, o + elen);
        const n = k.subarray(o + elen);
        return createPublicKey({ key: { kty: "RSA", n: b64url(n), e: b64url(e) }, format: "jwk" });
      }
      case 13:
      case 14: {
        const half = algorithm === 13 ? 32 : 48;
        if (k.length !== 2 * half) return null;
        const crv = algorithm === 13 ? "P-256" : "P-384";
        const jwk = { kty: "EC", crv, x: b64url(k.subarray(0, half)), y: b64url(k.subarray(half)) };
        return createPublicKey({ key: jwk, format: "jwk" });
      }
      case 15:
        if (k.length !== 32) return null;
        return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: b64url(k) }, format: "jwk" });
      default:
        return null;
    }
  } catch {
    return null;
  }
}

/** A DNSKEY's rdata read, its key made once (the zone's key cache keeps it). */
export function parseDnskey(rdata: Uint8Array): Dnskey | null {
  if (rdata.length < 5) return null;
  const algorithm = rdata[3]!;
  return {
    flags: (rdata[0]! << 8) | rdata[1]!,
    algorithm,
    tag: keyTag(rdata),
    rdata,
    key: rdata[2] === 3 ? publicKey(algorithm, rdata.subarray(4)) : null,
  };
}

const HASH: Record<number, string | null> = { 8: "sha256", 10: "sha512", 13: "sha256", 14: "sha384", 15: null };

/** Whether `sig` over `data` was made by `key` with `algorithm`. ECDSA signatures are r‖s (RFC 6605 §4). */
export function verifySignature(algorithm: number, key: KeyObject, data: Uint8Array, sig: Uint8Array): boolean {
  const hash = HASH[algorithm];
  if (hash === undefined) return false;
  try {
    if (algorithm === 13 || algorithm === 14) return verify(hash, data, { key, dsaEncoding: "ieee-p1363" }, sig);
    return verify(hash, data, key, sig);
  } catch {
    return false;
  }
}

/** The DS digest of a DNSKEY (RFC 4034 §5.1.4): hash(owner ‖ rdata); null for digest types we lack. */
function dsDigest(owner: Uint8Array, dnskeyRdata: Uint8Array, digestType: number): Uint8Array | null {
  const alg = digestType === 2 ? "sha256" : digestType === 4 ? "sha384" : null;
  if (!alg) return null;
  return createHash(alg).update(owner).update(dnskeyRdata).digest();
}

export interface Ds {
  tag: number;
  algorithm: number;
  digestType: number;
  digest: Uint8Array;
}

export function parseDs(rdata: Uint8Array): Ds | null {
  if (rdata.length < 5) return null;
  return { tag: (rdata[0]! << 8) | rdata[1]!, algorithm: rdata[2]!, digestType: rdata[3]!, digest: rdata.subarray(4) };
}

/** Whether a DS names this key: tag, algorithm and digest (only digests we can compute). */
export function dsMatches(ds: Ds, owner: Uint8Array, key: Dnskey): boolean {
  if (ds.tag !== key.tag || ds.algorithm !== key.algorithm) return false;
  const d = dsDigest(owner, key.rdata, ds.digestType);
  return d !== null && Buffer.compare(d, ds.digest) === 0;
}
