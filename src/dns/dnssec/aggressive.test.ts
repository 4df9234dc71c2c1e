import { expect, test } from "bun:test";
import { DenialCache } from "./aggressive.ts";
import { nameFromText } from "./names.ts";
import { T, type RRset, type Rr } from "./records.ts";

const name = (s: string) => nameFromText(s)!;
const rr = (owner: string, type: number, rdata: Uint8Array, ttl: number): Rr => ({
  owner: name(owner),
  type,
  cls: 1,
  ttl,
  rdata,
  section: 1,
});
const set = (r: Rr): RRset => ({ owner: r.owner, type: r.type, rrs: [r], sigs: [] });
const cat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

// example: the apex (SOA NS NSEC RRSIG) and b.example (A NSEC RRSIG), nothing else
const apexBits = Uint8Array.of(0, 6, 0x22, 0, 0, 0, 0, 0x03);
const bBits = Uint8Array.of(0, 6, 0x40, 0, 0, 0, 0, 0x03);
const soaData = (minimum: number) =>
  cat(name("ns.example"), name("admin.example"), new Uint8Array(16), Uint8Array.of(0, 0, minimum >> 8, minimum & 255));
const soa = set(rr("example", T.SOA, soaData(60), 300));
const apexNsec = set(rr("example", T.NSEC, cat(name("b.example"), apexBits), 300));
const bNsec = set(rr("b.example", T.NSEC, cat(name("example"), bBits), 300));

function cache(at: { now: number }): DenialCache {
  const c = new DenialCache(() => at.now);
  c.learn({ zone: name("example"), sets: [apexNsec, bNsec], soa });
  return c;
}

test("a name in a proven range: NXDOMAIN from the range's NSEC and the wildcard's", () => {
  const s = cache({ now: 0 }).answer(name("c.example"), 1)!;
  expect(s.nxdomain).toBe(true);
  expect(s.sets.map((x) => x.owner)).toEqual([name("example"), name("b.example")]);
  expect(s.soa).toBe(soa);
  expect(s.ttl).toBe(60); // the SOA's MINIMUM (RFC 9077)
});

test("a name that exists without the type: NODATA from its own NSEC alone", () => {
  const s = cache({ now: 0 }).answer(name("b.example"), 16)!;
  expect(s.nxdomain).toBe(false);
  expect(s.sets).toEqual([bNsec]);
  expect(cache({ now: 0 }).answer(name("b.example"), 1)).toBeNull(); // A is in its bitmap
});

test("nothing after the negative TTL, nothing for another zone, a DS looked up on the parent's side", () => {
  const at = { now: 0 };
  const c = cache(at);
  expect(c.answer(name("c.other"), 1)).toBeNull();
  expect(c.answer(name("example"), T.DS)).toBeNull();
  at.now = 61_000;
  expect(c.answer(name("c.example"), 1)).toBeNull();
});
