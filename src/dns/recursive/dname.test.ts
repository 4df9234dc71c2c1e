import { expect, test } from "bun:test";
import { nameFromText } from "../dnssec/names.ts";
import { TYPE } from "../wire.ts";
import { DNAME, dnameAbove, synthesize, withoutSynthesized } from "./dname.ts";
import type { Rec } from "./records.ts";

const name = (s: string) => nameFromText(s)!;
const rec = (owner: string, type: number, data: Uint8Array, ttl = 300): Rec => ({
  owner: name(owner),
  key: name(owner),
  type,
  ttl,
  data,
  section: 0,
});
const text = (n: Uint8Array) => {
  const out: string[] = [];
  for (let o = 0; n[o]! !== 0; o += n[o]! + 1) out.push(Buffer.from(n.subarray(o + 1, o + 1 + n[o]!)).toString());
  return out.join(".");
};

const d = rec("dn.example", DNAME, name("target.test"), 120);

test("a DNAME redirects the names strictly below its owner, not the owner itself", () => {
  expect(dnameAbove([d], name("a.b.dn.example"))).toBe(d);
  expect(dnameAbove([d], name("dn.example"))).toBeUndefined();
  expect(dnameAbove([d], name("other.example"))).toBeUndefined();
});

test("the CNAME made for a name: the owner's suffix replaced by the target, with the DNAME's TTL (RFC 6672 §2.2)", () => {
  const c = synthesize(d, name("a.b.dn.example"), name("target.test"))!;
  expect(c.type).toBe(TYPE.CNAME);
  expect(text(c.key)).toBe("a.b.dn.example");
  expect(text(c.data)).toBe("a.b.target.test");
  expect(c.ttl).toBe(120);
});

test("a substitution longer than 255 bytes makes no CNAME (YXDOMAIN)", () => {
  const long = `${"x".repeat(63)}.${"y".repeat(63)}.${"z".repeat(63)}`;
  const target = name(`${"w".repeat(63)}.test`); // 192 + 70 bytes
  expect(synthesize(d, name(`${long}.dn.example`), target)).toBeNull();
});

test("received CNAMEs below a DNAME are dropped; others stay", () => {
  const forged = rec("a.dn.example", TYPE.CNAME, name("evil.test"));
  const other = rec("www.example", TYPE.CNAME, name("a.dn.example"));
  expect(withoutSynthesized([other, d, forged])).toEqual([other, d]);
  expect(withoutSynthesized([other])).toEqual([other]);
});
