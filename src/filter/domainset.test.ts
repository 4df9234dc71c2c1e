// The domain set on its own: built with DomainSetBuilder, looked up by wire name. It holds exact names
// only (the filter asks for each suffix of a query's name itself), has no false positives despite
// the Bloom prefilter, and says from which list an entry came for a client's groups.
import { expect, test } from "bun:test";
import { DomainSet, hashName, recordEquals, resolveCombos, type DomainSetShape } from "./domainset.ts";
import { ComboTable, DomainSetBuilder, WireScratch, encodeWire } from "./domainset-build.ts";

const scratch = new WireScratch();
const wire = (name: string) => scratch.encode(name)!.slice();

function build(names: Iterable<string>, list = 1, expected = 16): DomainSetShape {
  const b = new DomainSetBuilder(new ComboTable(), expected);
  for (const n of names) b.add(wire(n), list);
  return b.finish();
}

/** Every list enabled, all in group 0. */
const allInGroup0 = (shape: DomainSetShape) => new DomainSet(resolveCombos(shape, 1, () => Uint32Array.of(1)));

function has(set: DomainSet, name: string): boolean {
  const w = wire(name);
  return set.find(w, hashName(w)) >= 0;
}

test("an empty set holds nothing", () => {
  const set = allInGroup0(build([]));
  expect(set.size).toBe(0);
  for (const n of ["example.com", "a", "com"]) expect(has(set, n)).toBe(false);
});

test("exact names only: parents, children and siblings of an entry are not in the set", () => {
  const set = allInGroup0(build(["ads.example.com", "tracker.net"]));
  expect(set.size).toBe(2);
  expect(has(set, "ads.example.com")).toBe(true);
  expect(has(set, "tracker.net")).toBe(true);
  for (const n of [
    "example.com",
    "com",
    "x.ads.example.com",
    "ads.example.org",
    "ads.example.co",
    "ad.example.com",
    "net",
  ])
    expect(has(set, n)).toBe(false);
});

test("a record equals its own name only, not a longer name it is the start of", () => {
  const shape = build(["ads.example.com"]);
  const w = wire("ads.example.com");
  const off = allInGroup0(shape).find(w, hashName(w));
  const equals = (name: string) => recordEquals(shape.recs, shape.nodes, off, wire(name), shape.refBytes);
  expect(equals("ads.example.com")).toBe(true);
  for (const n of ["ads.example.com.au", "ads.example", "ads.example.org", "ads", "x.ads.example.com"])
    expect(equals(n)).toBe(false);
});

test("a suffix of a query's wire name is a key: the filter's subdomain lookup", () => {
  const set = allInGroup0(build(["example.com"]));
  const q = wire("deep.sub.example.com");
  const suffix = q.subarray(1 + 4 + 1 + 3);
  expect(set.find(q, hashName(q))).toBe(-1);
  expect(set.find(suffix, hashName(suffix))).toBeGreaterThanOrEqual(0);
});

test("adding: a name already there from the same list is not stored again", () => {
  const b = new DomainSetBuilder();
  expect(b.add(wire("a.example"), 1)).toBe(true);
  expect(b.add(wire("a.example"), 1)).toBe(false);
  expect(b.add(wire("a.example"), 2)).toBe(true);
  expect(b.add(wire("b.example"), 1)).toBe(true);
  expect(b.count).toBe(2);
  // the root is not an entry
  expect(b.add(Uint8Array.of(0), 1)).toBe(false);
  const shape = b.finish();
  expect(shape.count).toBe(2);
  expect(shape.combos).toEqual([[1], [1, 2]]);
  expect(b.finish()).toBe(shape);
});

test("match: the list of an entry when it applies to one of the client's groups, else -1", () => {
  const b = new DomainSetBuilder();
  b.add(wire("both.example"), 3);
  b.add(wire("both.example"), 7);
  b.add(wire("only3.example"), 3);
  b.add(wire("only7.example"), 7);
  const shape = b.finish();
  // list 3 in group 0, list 7 in groups 1 and 40 (a second bitset word)
  const masks = new Map([
    [3, Uint32Array.of(0b1, 0)],
    [7, Uint32Array.of(0b10, 1 << 8)],
  ]);
  const set = new DomainSet(resolveCombos(shape, 2, (id) => masks.get(id)));
  const match = (name: string, groups: number[]) => {
    const w = wire(name);
    return set.match(w, hashName(w), Uint32Array.from(groups));
  };
  expect(match("only3.example", [0b1, 0])).toBe(3);
  expect(match("only3.example", [0b10, 0])).toBe(-1);
  expect(match("only7.example", [0, 1 << 8])).toBe(7);
  expect(match("both.example", [0b10, 0])).toBe(3);
  expect(match("both.example", [0, 0])).toBe(-1);
  expect(match("other.example", [0b11, 0])).toBe(-1);
  // a disabled list (no mask): the entry is reported as the combination's next enabled list
  const without3 = new DomainSet(resolveCombos(shape, 2, (id) => (id === 3 ? undefined : masks.get(id))));
  const w = wire("both.example");
  expect(without3.match(w, hashName(w), Uint32Array.of(0b10, 0))).toBe(7);
  const only3 = wire("only3.example");
  expect(without3.match(only3, hashName(only3), Uint32Array.of(0b11, 0))).toBe(-1);
});

test("many names sharing suffixes: every one found, none of their neighbours", () => {
  const names: string[] = [];
  for (let i = 0; i < 40_000; i++) names.push(`host${i}.zone${i % 97}.example${i % 5}.com`);
  const shape = build(names, 1, 16);
  // 40k records need 3-byte table slots; shared suffix nodes keep the records short
  expect(shape.slotBytes).toBe(3);
  expect(shape.recs.byteLength).toBeLessThan(names.length * 16);
  const set = allInGroup0(shape);
  expect(set.size).toBe(names.length);
  for (const n of names) if (!has(set, n)) throw new Error(`${n} missing`);
  for (let i = 0; i < 40_000; i++)
    if (has(set, `host${i}.zone${(i + 1) % 97}.example${i % 5}.com`)) throw new Error(`false positive ${i}`);
  for (let i = 0; i < 97; i++) expect(has(set, `zone${i}.example${i % 5}.com`)).toBe(false);
});

test("finish without copy (for the file writer) gives the same records in parts", () => {
  const names = Array.from({ length: 3000 }, (_, i) => `n${i}.example`);
  const whole = build(names);
  const b = new DomainSetBuilder();
  for (const n of names) b.add(wire(n), 1);
  const parts = b.finish(false);
  expect(parts.recs.byteLength).toBe(0);
  expect(Buffer.concat(parts.recsParts!)).toEqual(Buffer.from(whole.recs));
  expect(Buffer.from(parts.slots)).toEqual(Buffer.from(whole.slots));
});

test("encodeWire: lowercase wire form, the trailing dot optional; 0 for what is not a name", () => {
  const out = new Uint8Array(512);
  const enc = (name: string) => {
    const n = encodeWire(name, out);
    return n === 0 ? null : [...out.subarray(0, n)];
  };
  expect(enc("Ab.C")).toEqual([2, 97, 98, 1, 99, 0]);
  expect(enc("ab.c.")).toEqual([2, 97, 98, 1, 99, 0]);
  for (const bad of [
    "",
    ".",
    "a..b",
    ".a",
    "x".repeat(64),
    "€.example",
    Array.from({ length: 5 }, () => "x".repeat(63)).join("."),
  ])
    expect(enc(bad)).toBeNull();
});
