import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { GrowAhead } from "./grow-ahead.ts";
import { CompactTallies } from "./tallies.ts";

/** This process's minor page faults so far (/proc/self/stat, field 10). */
function minorFaults(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[7]);
}

test("a table of names grows into pages written ahead: the insert that doubles it faults few pages", () => {
  const t = new CompactTallies();
  // the 2^18 + 1st name doubles the id columns, the counters and the hash slots at once (~17 MiB)
  const n = 1 << 18;
  for (let i = 0; i < n; i++) t.of(`n${i}.grow-ahead.test`);
  const before = minorFaults();
  const id = t.of("one-more.grow-ahead.test");
  const faults = minorFaults() - before;
  expect(id).toBe(n);
  expect(t.has(`n${n - 1}.grow-ahead.test`)).toBe(true);
  // written in place: a few pages of the names' arena and the counters' next rows at most
  expect(faults).toBeLessThan(256);
});

test("what take() hands out reads as zeros, made ahead or not, and a column is made ahead only near its growth", () => {
  const a = new GrowAhead(4, (raw, n) => new Int32Array(raw.buffer, raw.byteOffset, n));
  a.advance(10, 1024, 2048);
  expect(a.bytes()).toBe(0);
  for (let used = 900; used < 1000; used++) a.advance(used, 1024, 2048);
  expect(a.bytes()).toBe(2048 * 4);
  const made = a.take(2048);
  expect(made.length).toBe(2048);
  expect(made.every((v) => v === 0)).toBe(true);
  expect(a.bytes()).toBe(0);
  // another length than the one made ahead: a new array
  a.advance(1000, 1024, 2048);
  expect(a.take(4096).every((v) => v === 0)).toBe(true);
});
