// The domain-set engine and regex translation on their own: no false positives, merged group masks,
// wire-suffix lookups, regex extensions and POSIX classes.
import { expect, test } from "bun:test";
import { DomainSet, hashName, resolveCombos } from "../../src/filter/domainset.ts";
import { ComboTable, DomainSetBuilder, encodeWire } from "../../src/filter/domainset-build.ts";
import { compileRegex, regexMatches } from "../../src/filter/regex.ts";
import { parseQuery, WireError } from "../../src/dns/wire.ts";
import { nameToWire } from "../../src/net/dns-name.ts";
import { encodeQuery } from "./helpers.ts";

const w = (n: string) => nameToWire(n)!;

test("domain set: every member found, no false positives among 200k non-members, lists merge per combo", () => {
  const b = new DomainSetBuilder(new ComboTable(), 10);
  const N = 50000;
  for (let i = 0; i < N; i++) expect(b.add(w(`member${i}.sub${i % 7}.example.com`), 1)).toBe(true);
  expect(b.add(w("member7.sub0.example.com"), 1)).toBe(false); // same list again: nothing new
  expect(b.add(w("member7.sub0.example.com"), 2)).toBe(true); // another list: joins the entry
  expect(b.add(w("example.com"), 3)).toBe(true); // a suffix node can also be an entry
  const masks = new Map([
    [1, Uint32Array.of(1)],
    [2, Uint32Array.of(2)],
    [3, Uint32Array.of(4)],
  ]);
  const set = new DomainSet(resolveCombos(b.finish(), 1, (id) => masks.get(id)));
  expect(set.size).toBe(N + 1);
  for (let i = 0; i < N; i++) {
    const x = w(`member${i}.sub${i % 7}.example.com`);
    expect(set.find(x, hashName(x))).toBeGreaterThanOrEqual(0);
  }
  let fp = 0;
  for (let i = 0; i < 200000; i++) {
    const x = w(`other${i}.sub${i % 7}.example.com`);
    if (set.find(x, hashName(x)) >= 0) fp++;
    // same label, other parent; a parent alone; a longer name with the member as its suffix
    for (const y of [
      w(`member${i % N}.sub${(i + 1) % 7}.example.com`),
      w(`sub${i % 7}.example.com`),
      w(`x.member${i % N}.sub${i % 7}.example.com`),
    ])
      if (i < 20000 && set.find(y, hashName(y)) >= 0) fp++;
  }
  expect(fp).toBe(0);
  const m7 = w("member7.sub0.example.com");
  expect(set.match(m7, hashName(m7), Uint32Array.of(2))).toBe(1); // reported as its first list
  expect(set.match(m7, hashName(m7), Uint32Array.of(4))).toBe(-1);
  const m8 = w("member8.sub1.example.com");
  expect(set.match(m8, hashName(m8), Uint32Array.of(2))).toBe(-1);
  const ex = w("example.com");
  expect(set.match(ex, hashName(ex), Uint32Array.of(4))).toBe(3);
  // a list without groups (or disabled) makes its entries inert, other lists of the entry still count
  const only2 = new DomainSet(resolveCombos(b.finish(), 1, (id) => (id === 2 ? masks.get(2) : undefined)));
  expect(only2.match(m7, hashName(m7), Uint32Array.of(2))).toBe(2);
  expect(only2.match(m8, hashName(m8), Uint32Array.of(1))).toBe(-1);
  expect(set.bytes / N).toBeLessThan(25); // compact: shared suffixes, no per-entry masks (a JS Set: ~143)
});

test("domain set: one list stores no combo; slots are as narrow as the records allow, and lookups stay exact", () => {
  // sizes whose record bytes need 1-, 2- and 3-byte slots
  for (const [n, slotBytes] of [
    [10, 1],
    [2000, 2],
    [30000, 3],
  ] as const) {
    for (const lists of [[7], [7, 8]]) {
      const b = new DomainSetBuilder(new ComboTable(), 4);
      for (let i = 0; i < n; i++) b.add(w(`n${i}.l${i % 3}.example.org`), lists[i % lists.length]!);
      const shape = b.finish();
      expect([shape.slotBytes, shape.comboBytes]).toEqual([slotBytes, lists.length === 1 ? 0 : 1]);
      expect(shape.slots.length % slotBytes).toBe(0);
      // a set kept in memory holds no wider buffer behind its narrowed slots
      expect(shape.slots.byteLength).toBe(shape.slots.buffer.byteLength);
      const masks = new Map([
        [7, Uint32Array.of(1)],
        [8, Uint32Array.of(2)],
      ]);
      const set = new DomainSet(resolveCombos(shape, 1, (id) => masks.get(id)));
      for (let i = 0; i < n; i++) {
        const x = w(`n${i}.l${i % 3}.example.org`);
        const list = lists[i % lists.length]!;
        expect(set.match(x, hashName(x), Uint32Array.of(list === 7 ? 1 : 2))).toBe(list);
        expect(set.match(x, hashName(x), Uint32Array.of(list === 7 ? 2 : 1))).toBe(-1);
        const y = w(`n${i}.l${(i + 1) % 3}.example.org`);
        expect(set.find(y, hashName(y))).toBe(-1);
      }
    }
  }
});

test("domain set: wire encoding of list names", () => {
  const out = new Uint8Array(300);
  for (const n of ["a.b", "Ads.Example.COM", "x-y_z.example.org.", `${"a".repeat(63)}.com`])
    expect([...out.subarray(0, encodeWire(n, out))]).toEqual([...nameToWire(n)!]);
  for (const n of ["", ".", "a..b", `${"a".repeat(64)}.com`, ".a"]) expect(encodeWire(n, out)).toBe(0);
});

test("regex: POSIX classes, querytype (incl. negated), invert, reply variants, bad input", () => {
  const r = compileRegex(1, "^ad[[:digit:]]+\\.[[:alpha:]]+$");
  if (typeof r === "string") throw new Error(r);
  expect(regexMatches(r, "ad12.com", 1)).toBe(true);
  expect(regexMatches(r, "adx.com", 1)).toBe(false);
  const t = compileRegex(2, "^x\\.com$;querytype=!A,AAAA");
  if (typeof t === "string") throw new Error(t);
  expect(regexMatches(t, "x.com", 1)).toBe(false);
  expect(regexMatches(t, "x.com", 16)).toBe(true);
  const i = compileRegex(3, "^keep\\.com$;invert");
  if (typeof i === "string") throw new Error(i);
  expect(regexMatches(i, "keep.com", 1)).toBe(false);
  expect(regexMatches(i, "other.com", 1)).toBe(true);
  const two = compileRegex(4, "^y$;reply=1.2.3.4;reply=fe80::1");
  expect(typeof two !== "string" && two.reply).toEqual({ kind: "ADDR", v4: ["1.2.3.4"], v6: ["fe80::1"] });
  const cn = compileRegex(5, "^z$;reply=CNAME,Target.Example");
  expect(typeof cn !== "string" && cn.reply).toEqual({ kind: "CNAME", target: "target.example" });
  expect(typeof compileRegex(6, "(unclosed")).toBe("string");
  expect(typeof compileRegex(7, "^a$;querytype=BOGUS")).toBe("string");
});

test("wire: question parsed case-insensitively, bad packets rejected with the right code", () => {
  const q = parseQuery(encodeQuery("MiXeD.Example.COM", { type: "AAAA", dnssecOk: true, udpSize: 4096 }));
  expect(q.name).toBe("mixed.example.com");
  expect([...q.wire]).toEqual([...w("mixed.example.com")]);
  expect(q.labels).toEqual([0, 6, 14]);
  expect([q.qtype, q.edns, q.dnssecOk, q.udpSize]).toEqual([28, true, true, 4096]);
  // bytes other than printable non-dots are escaped as \DDD, so the text stays unambiguous
  const odd = encodeQuery("x.example");
  // the first label "x" becomes the 3 bytes "A", ".", NUL
  const raw = new Uint8Array([...odd.subarray(0, 12), 3, 0x41, 0x2e, 0x00, ...odd.subarray(14)]);
  expect(parseQuery(raw).name).toBe("a\\046\\000.example");
  const spaced = new Uint8Array([...odd.subarray(0, 12), 3, 0x61, 0x20, 0x5c, ...odd.subarray(14)]);
  expect(parseQuery(spaced).name).toBe("a\\032\\092.example");
  const bad = encodeQuery("a.b");
  bad[2] = bad[2]! | 0x80;
  expect(() => parseQuery(bad)).toThrow(WireError);
  const op = encodeQuery("a.b");
  op[2] = (op[2]! & 0x87) | (5 << 3); // opcode UPDATE
  try {
    parseQuery(op);
    throw new Error("accepted");
  } catch (e) {
    expect((e as WireError).rcode).toBe(4);
  }
});
