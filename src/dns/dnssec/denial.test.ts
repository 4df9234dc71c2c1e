// NSEC and NSEC3 proofs over the ldns-signzone vectors (testdata/vectors.txt): example.test has
// SOA/NS/MX at the apex, ns1, www and the wildcard *.w (so w is an empty non-terminal).
import { describe, expect, test } from "bun:test";
import { walkMessage } from "../wire.ts";
import { dsAbsence, nsec3Hash, proveDenial, proveWildcard } from "./denial.ts";
import { nameFromText } from "./names.ts";
import { recordsOf, rrsetsOf, T } from "./records.ts";
import { loadVectors } from "./testdata/vectors.ts";

const ZONE = nameFromText("example.test")!;
const n = (s: string) => nameFromText(s)!;
const vectors = loadVectors();
const setsOf = (title: string) => {
  const msg = vectors.get(title)!;
  return rrsetsOf(recordsOf(msg, walkMessage(msg)!)!, 0).filter((s) => s.type === T.NSEC || s.type === T.NSEC3);
};

const B32 = "0123456789abcdefghijklmnopqrstuv";
function toBase32hex(b: Uint8Array): string {
  let out = "";
  let acc = 0;
  let bits = 0;
  for (const x of b) {
    acc = (acc << 8) | x;
    bits += 8;
    while (bits >= 5) {
      out += B32[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

describe("denial of existence", () => {
  test("NSEC3 hash: RFC 5155 Appendix A (example, salt aabbccdd, 12 iterations)", () => {
    expect(toBase32hex(nsec3Hash(n("example"), Buffer.from("aabbccdd", "hex"), 12))).toBe(
      "0p9mhaveqvm6t7vbl5lop2u3t2rp3tom",
    );
  });

  for (const [title, kind] of [
    ["algorithm 13", "NSEC"],
    ["nsec3", "NSEC3"],
  ] as const) {
    const sets = setsOf(title);
    test(`${kind}: NXDOMAIN, NODATA, empty non-terminal and wildcard proofs`, () => {
      expect(sets.length).toBeGreaterThan(3);
      expect(proveDenial(sets, ZONE, n("nope.example.test"), 1, true)).toBe("secure");
      expect(proveDenial(sets, ZONE, n("a.b.nope.example.test"), 1, true)).toBe("secure");
      expect(proveDenial(sets, ZONE, n("www.example.test"), 16, false)).toBe("secure");
      // the name has the type, or exists: no proof
      expect(proveDenial(sets, ZONE, n("www.example.test"), 1, false)).toBe("bogus");
      expect(proveDenial(sets, ZONE, n("www.example.test"), 1, true)).toBe("bogus");
      // w exists only as the wildcard's parent
      expect(proveDenial(sets, ZONE, n("w.example.test"), 1, false)).toBe("secure");
      // below w the wildcard answers: no NXDOMAIN, but NODATA for a type it lacks
      expect(proveDenial(sets, ZONE, n("x.w.example.test"), 1, true)).toBe("bogus");
      expect(proveDenial(sets, ZONE, n("x.w.example.test"), 16, false)).toBe("secure");
      // an answer made from *.w for x.w: x.w itself does not exist
      expect(proveWildcard(sets, ZONE, n("x.w.example.test"), 3)).toBe("secure");
      expect(proveWildcard(sets, ZONE, n("www.example.test"), 2)).toBe("bogus");
      // none of these names is a delegation
      expect(dsAbsence(sets, ZONE, n("www.example.test"))).toBe("no-cut");
      expect(dsAbsence(sets, ZONE, n("nope.example.test"))).toBe("no-cut");
      // a proof from another zone proves nothing
      expect(proveDenial(sets, n("other.test"), n("nope.example.test"), 1, true)).toBe("bogus");
    });
  }

  test("NSEC3 past RFC 9276's iteration limit makes the answer insecure", () => {
    const sets = setsOf("nsec3").map((s) => ({
      ...s,
      rrs: s.rrs.map((r) => ({ ...r, rdata: r.rdata.map((b, i) => (i === 2 ? 0 : i === 3 ? 151 : b)) })),
    }));
    expect(proveDenial(sets, ZONE, n("nope.example.test"), 1, true)).toBe("insecure");
  });
});
