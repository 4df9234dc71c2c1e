import { expect, test } from "bun:test";
import { countLoopTurns } from "./loop-turns.ts";
import { CompactTallies } from "./tallies.ts";
import { topDomains, TopList, topN } from "./topn.ts";

test("topN: the bounded selection equals sorting everything, ties by key, skip honoured", () => {
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  const m = new Map<string, { key: string; count: number; blocked: number }>();
  for (let i = 0; i < 5000; i++) {
    const key = `d${Math.floor(rnd() * 4000)}`;
    const count = Math.floor(rnd() * 50);
    m.set(key, { key, count, blocked: Math.floor(count * rnd()) });
  }
  const full = [...m]
    .map(([k, t]) => [k, t.count] as [string, number])
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const n of [1, 3, 10, 100]) expect(topN(m, n, (t) => t.count)).toEqual(full.slice(0, n));
  expect(topN(m, 0, (t) => t.count)).toEqual(full);
  const skip = (k: string) => k.endsWith("7");
  expect(topN(m, 10, (t) => t.count, skip)).toEqual(full.filter(([k]) => !skip(k)).slice(0, 10));
});

test("topN over the window's compact tallies: ties decided on the names' bytes give the sorted order", () => {
  let seed = 11;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  const t = new CompactTallies();
  const counts = new Map<string, number>();
  // few distinct counts (most names tie), prefixes of each other, and names beyond ASCII
  const stems = ["a", "ab", "abc", "b", "ä", "é.test", "z", "zz", "Ω", "x-1", "x.1"];
  for (let i = 0; i < 3000; i++) {
    const name = `${stems[Math.floor(rnd() * stems.length)]}${rnd() < 0.5 ? Math.floor(rnd() * 300) : ""}`;
    const times = 1 + Math.floor(rnd() * 3);
    for (let k = 0; k < times; k++) t.count(t.of(name), 1, false, i);
    counts.set(name, (counts.get(name) ?? 0) + times);
  }
  const full = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const n of [1, 5, 50, 400]) expect(topN(t, n, (x) => x.count)).toEqual(full.slice(0, n));
});

test("topDomains: several lists in one pass in slices equal topN each, with the event loop free between", async () => {
  const t = new CompactTallies();
  for (let i = 0; i < 40_000; i++) {
    const id = t.of(`n${i % 30_000}.example${i % 7}`);
    t.count(id, 1, i % 5 === 0, i);
  }
  const byCount = (x: { count: number; blocked: number }) => x.count - x.blocked;
  const byBlocked = (x: { count: number; blocked: number }) => x.blocked;
  const skip = (k: string) => k.startsWith("n1");
  const loop = countLoopTurns();
  const [a, b, c] = await topDomains(
    t,
    [new TopList(10, byCount), new TopList(3, byBlocked), new TopList(5, byCount, skip)],
    0,
  );
  const turns = loop.stop();
  expect(a).toEqual(topN(t, 10, byCount));
  expect(b).toEqual(topN(t, 3, byBlocked));
  expect(c).toEqual(topN(t, 5, byCount, skip));
  expect(a!.length).toBe(10);
  expect(c!.every(([k]) => !skip(k))).toBe(true);
  // 30,000 ids in steps of 8,192, a pause after each
  expect(turns).toBeGreaterThanOrEqual(3);
});
