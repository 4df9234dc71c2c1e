// The byte matcher means what the query log's RegExp means (src/querylog/read.ts wildcard()), on
// every pattern and name below, and leaves to the RegExp what it cannot judge.
import { expect, test } from "bun:test";
import { wildcard } from "../querylog/read.ts";
import { compileGlob, globMatches } from "./byte-glob.ts";

const bytesOf = (s: string) => new TextEncoder().encode(s);

const NAMES = [
  "ads.example.com",
  "ADS.Example.COM",
  "example.com",
  "a.b",
  "",
  "x",
  "aaa",
  "abab.ab",
  "tracker7.bulk.test",
  "d999995.bulk.test",
  "7.bulk.test",
  "s.one.test",
  "a*b.test",
  "percent%and_underscore.test",
];
const PATTERNS = [
  "ads.example.com",
  "*example*",
  "*.example.com",
  "ads.*",
  "*",
  "**",
  "",
  "a*a",
  "a*b*a",
  "ab*ab",
  "*ab*ab*",
  "*7*.bulk.test",
  "d99999*.bulk*",
  "*.nowhere.test",
  "A*B.TEST",
  "*%*_*",
  "x*",
  "*x",
  "aaa*aaa",
];

test("byteGlob: the same answer as the RegExp for ASCII names and patterns", () => {
  // the name at an offset inside a larger buffer, as in the name table's arena
  for (const p of PATTERNS) {
    const g = compileGlob(p)!;
    expect(g).not.toBeNull();
    const re = wildcard(p);
    for (const n of NAMES) {
      const b = bytesOf(`##${n}##`);
      expect([p, n, globMatches(g, b, 2, b.length - 4)]).toEqual([p, n, re.test(n)]);
    }
  }
});

test("byteGlob: what it leaves to the RegExp", () => {
  // a pattern beyond printable ASCII: JavaScript's case folding applies
  expect(compileGlob("*é*")).toBeNull();
  expect(compileGlob("a\nb")).toBeNull();
  // a name with a byte beyond printable ASCII: no answer from the bytes
  const g = compileGlob("*")!;
  for (const n of ["café.test", "a\nb", "tab\there"]) {
    const b = bytesOf(n);
    expect(globMatches(g, b, 0, b.length)).toBeNull();
  }
});
