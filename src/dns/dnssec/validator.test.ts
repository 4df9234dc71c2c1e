// The validator on its own, over the ldns-signzone vectors (testdata/vectors.txt): example.test's DS as
// the trust anchor, a fetch that serves its DNSKEY RRset, and answers built from the zone's records.
import { describe, expect, test } from "bun:test";
import { walkMessage } from "../wire.ts";
import type { Anchor } from "./anchors.ts";
import { parseDs } from "./crypto.ts";
import { equalNames, nameFromText } from "./names.ts";
import { T, recordsOf, type Rr } from "./records.ts";
import { loadVectors } from "./testdata/vectors.ts";
import { ABANDONED, BOGUS, SECURE, Validator } from "./validator.ts";

const msg = loadVectors().get("algorithm 13")!;
const all = recordsOf(msg, walkMessage(msg)!)!;
const ZONE = nameFromText("example.test")!;
const n = (s: string) => nameFromText(s)!;
const NOW = Date.UTC(2026, 5, 1);
const INSECURE = 2;

/** The records at `owner` of `type`, with the RRSIGs that cover them. */
function rrset(owner: string, type: number): Rr[] {
  const o = n(owner);
  return all.filter(
    (r) =>
      equalNames(r.owner, o) &&
      (r.type === type || (r.type === T.RRSIG && ((r.rdata[0]! << 8) | r.rdata[1]!) === type)),
  );
}

/** A response: header with `rcode`, the question, then the answer and authority records uncompressed. */
function message(qname: string, qtype: number, rcode: number, answer: Rr[], authority: Rr[] = []): Uint8Array {
  const q = n(qname);
  const out: number[] = [0, 0, 0x84, rcode, 0, 1, 0, answer.length, 0, authority.length, 0, 0];
  out.push(...q, qtype >> 8, qtype & 255, 0, 1);
  for (const r of [...answer, ...authority]) {
    out.push(...r.owner, r.type >> 8, r.type & 255, 0, 1, 0, 0, 1, 44, r.rdata.length >> 8, r.rdata.length & 255);
    out.push(...r.rdata);
  }
  return Uint8Array.from(out);
}

const anchors: Anchor[] = all.filter((r) => r.type === T.DS).map((r) => ({ owner: r.owner, ...parseDs(r.rdata)! }));

function validator(o: { anchors?: Anchor[]; keys?: boolean; now?: number } = {}): Validator {
  return new Validator({
    anchors: () => o.anchors ?? anchors,
    now: () => o.now ?? NOW,
    fetch: async (name, type) =>
      o.keys !== false && type === T.DNSKEY && equalNames(name, ZONE)
        ? message("example.test", T.DNSKEY, 0, rrset("example.test", T.DNSKEY))
        : null,
  });
}

describe("validator", () => {
  test("a signed answer below the anchor is secure; changed, expired or without keys it is not", async () => {
    const www = rrset("www.example.test", 1);
    expect((await validator().validate(message("www.example.test", 1, 0, www), n("www.example.test"), 1)).state).toBe(
      SECURE,
    );
    const changed = www.map((r) => (r.type === 1 ? { ...r, rdata: Uint8Array.of(10, 0, 0, 1) } : r));
    const bad = await validator().validate(message("www.example.test", 1, 0, changed), n("www.example.test"), 1);
    expect([bad.state, bad.ede]).toEqual([BOGUS, 6]);
    const late = await validator({ now: Date.UTC(2038, 0, 1) }).validate(
      message("www.example.test", 1, 0, www),
      n("www.example.test"),
      1,
    );
    expect([late.state, late.ede]).toEqual([BOGUS, 7]);
    const noKeys = await validator({ keys: false }).validate(
      message("www.example.test", 1, 0, www),
      n("www.example.test"),
      1,
    );
    expect(noKeys.state).toBe(ABANDONED);
    const noAnchor = await validator({ anchors: [] }).validate(
      message("www.example.test", 1, 0, www),
      n("www.example.test"),
      1,
    );
    expect(noAnchor.state).toBe(INSECURE);
  });

  test("NXDOMAIN with its NSEC proof is secure; without the proof it is bogus (EDE 12)", async () => {
    const soa = rrset("example.test", T.SOA);
    const nsecs = all.filter(
      (r) => r.type === T.NSEC || (r.type === T.RRSIG && ((r.rdata[0]! << 8) | r.rdata[1]!) === T.NSEC),
    );
    const v = validator();
    const ok = await v.validate(message("nope.example.test", 1, 3, [], [...soa, ...nsecs]), n("nope.example.test"), 1);
    expect(ok.state).toBe(SECURE);
    const bare = await v.validate(message("nope.example.test", 1, 3, [], soa), n("nope.example.test"), 1);
    expect([bare.state, bare.ede]).toEqual([BOGUS, 12]);
  });

  test("the wildcard asked for by its own name is not an expansion", async () => {
    const star = rrset("*.w.example.test", 1);
    expect(star.length).toBe(2);
    const r = await validator().validate(message("*.w.example.test", 1, 0, star), n("*.w.example.test"), 1);
    expect(r.state).toBe(SECURE);
  });

  test("a secure answer's TTL is capped by its signatures' expiration (RFC 4035 §5.3.3)", async () => {
    const www = message("www.example.test", 1, 0, rrset("www.example.test", 1));
    expect((await validator().validate(www, n("www.example.test"), 1)).ttl).toBe(3600);
    // 2037-01-01 00:00:00 UTC is when the vectors' signatures expire
    const end = Date.UTC(2037, 0, 1);
    const late = await validator({ now: end - 100_000 }).validate(www, n("www.example.test"), 1);
    expect([late.state, late.ttl]).toEqual([SECURE, 100]);
  });
});
