// Signature checks against zones signed by ldns-signzone, one per algorithm (testdata/vectors.txt, made by:
//   ldns-keygen -a ALG [-b 1024] [-k] example.test.; ldns-signzone -i 20260101 -e 20370101 zone KSK ZSK;
//   ldns-key2ds -n -2 / -4 KSK.key; ldns-read-zone -U TXT, which writes every rdata as RFC 3597 hex;
//   the NSEC3 zone: ldns-signzone -n -t 3 -s abcd with one ECDSA key).
import { describe, expect, test } from "bun:test";
import { walkMessage } from "../wire.ts";
import { dsMatches, parseDnskey, parseDs } from "./crypto.ts";
import { nameFromText } from "./names.ts";
import { T, recordsOf, rrsetsOf, type RRset } from "./records.ts";
import { verifyRrset } from "./rrsig.ts";
import { loadVectors } from "./testdata/vectors.ts";

const ZONE = nameFromText("example.test")!;
const NOW = Date.UTC(2026, 5, 1) / 1000;

function zoneOf(msg: Uint8Array) {
  const records = recordsOf(msg, walkMessage(msg)!)!;
  const sets = rrsetsOf(records, 0);
  const keys = sets.find((s) => s.type === T.DNSKEY)!.rrs.map((r) => parseDnskey(r.rdata)!);
  return { sets, keys };
}

const tampered = (s: RRset): RRset => ({
  ...s,
  rrs: s.rrs.map((r, i) => (i ? r : { ...r, rdata: r.rdata.map((b, j) => (j === r.rdata.length - 1 ? b ^ 1 : b)) })),
});

describe("DNSSEC signatures (ldns-signzone vectors)", () => {
  const vectors = loadVectors();
  for (const alg of [8, 10, 13, 14, 15]) {
    test(`algorithm ${alg}: every RRset verifies, a changed one does not, and time bounds hold`, () => {
      const { sets, keys } = zoneOf(vectors.get(`algorithm ${alg}`)!);
      expect(keys.every((k) => k.key !== null && k.algorithm === alg)).toBe(true);
      const signed = sets.filter((s) => s.sigs.length);
      // SOA, NS, A ×3 owners, MX, the wildcard, DNSKEY and the NSEC chain
      expect(signed.length).toBeGreaterThan(8);
      for (const s of signed) expect(verifyRrset(s, ZONE, keys, NOW, { tries: 8 })).toBe("ok");
      const mx = signed.find((s) => s.type === T.MX)!; // its rdata is mixed case: canonical form lowercases it
      expect(verifyRrset(tampered(mx), ZONE, keys, NOW, { tries: 8 })).toBe("bad");
      expect(verifyRrset(mx, ZONE, keys, Date.UTC(2037, 1, 1) / 1000, { tries: 8 })).toBe("expired");
      expect(verifyRrset(mx, ZONE, keys, Date.UTC(2025, 1, 1) / 1000, { tries: 8 })).toBe("not-yet");
      expect(verifyRrset(mx, nameFromText("other.test")!, keys, NOW, { tries: 8 })).toBe("no-key");
      expect(verifyRrset(tampered(mx), ZONE, keys, NOW, { tries: 0 })).toBe("budget");
    });
    test(`algorithm ${alg}: the KSK's DS (SHA-256 and SHA-384) matches it and no other key`, () => {
      const { sets, keys } = zoneOf(vectors.get(`algorithm ${alg}`)!);
      const ds = sets.find((s) => s.type === T.DS)!.rrs.map((r) => parseDs(r.rdata)!);
      expect(ds.map((d) => d.digestType).sort()).toEqual([2, 4]);
      const ksk = keys.find((k) => k.flags === 257)!;
      const zsk = keys.find((k) => k.flags === 256)!;
      for (const d of ds) {
        expect(d.tag).toBe(ksk.tag);
        expect(dsMatches(d, ZONE, ksk)).toBe(true);
        expect(dsMatches(d, ZONE, zsk)).toBe(false);
      }
    });
  }

  test("algorithm 16 (Ed448, which Bun's BoringSSL lacks): the keys are read but unusable, so such a zone is insecure", () => {
    const { keys } = zoneOf(vectors.get("algorithm 16")!);
    expect(keys.length).toBe(2);
    expect(keys.every((k) => k.algorithm === 16 && k.key === null)).toBe(true);
  });
});
