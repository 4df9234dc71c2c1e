// The exclusions' answers kept per id (idsWhereKept): asked once per name while the test stays the
// same, asked again for a name that takes over a released id, and all again for another test.
import { expect, test } from "bun:test";
import { countLoopTurns } from "./loop-turns.ts";
import { wildcard } from "../querylog/read.ts";
import { compileGlob } from "./byte-glob.ts";
import { CompactTallies } from "./tallies.ts";

test("CompactTallies.idsWhereKept: each name tested once, an id's new name tested again", async () => {
  const t = new CompactTallies();
  const ids = new Map<string, number>();
  const add = (name: string) => {
    const id = t.of(name);
    t.count(id, 1, false, 1);
    ids.set(name, id);
    return id;
  };
  for (const n of ["ads.example", "good.example", "ads.other", "fine.test"]) add(n);
  const asked: string[] = [];
  const hideAds = (name: string) => {
    asked.push(name);
    return name.startsWith("ads.");
  };
  const first = await t.idsWhereKept("^ads\\.", hideAds);
  expect(first.size).toBe(2);
  expect(first.has(ids.get("ads.example")!)).toBe(true);
  expect(first.has(ids.get("good.example")!)).toBe(false);
  expect(asked.sort()).toEqual(["ads.example", "ads.other", "fine.test", "good.example"]);

  asked.length = 0;
  expect((await t.idsWhereKept("^ads\\.", hideAds)).size).toBe(2);
  expect(asked).toEqual([]);

  // "good.example" leaves; its id goes to a name the test hides
  const freed = ids.get("good.example")!;
  t.count(freed, -1, false, 1);
  const reused = add("ads.new");
  expect(reused).toBe(freed);
  const after = await t.idsWhereKept("^ads\\.", hideAds);
  expect(asked).toEqual(["ads.new"]);
  expect(after.size).toBe(3);
  expect(after.has(reused)).toBe(true);
  // and a name past the answers kept so far
  for (let i = 0; i < 2000; i++) add(`n${i}.test`);
  asked.length = 0;
  expect((await t.idsWhereKept("^ads\\.", hideAds)).size).toBe(3);
  expect(asked.length).toBe(2000);

  // another test: every name asked again
  asked.length = 0;
  const other = await t.idsWhereKept("fine", (n) => (asked.push(n), n.includes("fine")));
  expect(other.size).toBe(1);
  expect(asked.length).toBe(2004);
});

test("CompactTallies.idsWhereKept in slices: tests each name once with the event loop free between slices", async () => {
  const t = new CompactTallies();
  const names: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const name = i % 10 === 0 ? `ads${i}.example` : `n${i}.test`;
    t.count(t.of(name), 1, false, 1);
    names.push(name);
  }
  const asked: string[] = [];
  const slow = (name: string) => {
    asked.push(name);
    const until = performance.now() + 0.01;
    while (performance.now() < until);
    return name.startsWith("ads");
  };
  const loop = countLoopTurns();
  const done = t.idsWhereKept("ads", slow, 1);
  // a name added during the slices, past the ids known when they began
  await new Promise((r) => setImmediate(r));
  t.count(t.of("ads-late.example"), 1, false, 1);
  await done;
  const turns = loop.stop();
  expect(turns).toBeGreaterThan(5);
  expect(asked.length).toBe(new Set(asked).size);
  expect(new Set(asked)).toEqual(new Set([...names, "ads-late.example"]));

  // every answer is kept: a second call asks nothing
  asked.length = 0;
  const kept = await t.idsWhereKept("ads", slow);
  expect(asked).toEqual([]);
  expect(kept.size).toBe(501);
  expect(kept.has(t.of("ads0.example"))).toBe(true);
  expect(kept.has(t.of("n1.test"))).toBe(false);

  // another key takes the memo while slices of the first are pending: the first's answers still hold
  const first = t.idsWhereKept("none", () => false, 0);
  await t.idsWhereKept("ads", slow, 0);
  await first;
  const after = await t.idsWhereKept("ads", slow);
  expect(after.size).toBe(501);
});

test("CompactTallies.idsMatching: the same ids as the RegExp, found with the event loop free between slices", async () => {
  const t = new CompactTallies();
  const ids = new Map<string, number>();
  for (let i = 0; i < 60_000; i++) {
    const name = i % 7 === 0 ? `Ünï${i}.bücher.example` : `n${i}.bulk${i % 13}.test`;
    const id = t.of(name);
    t.count(id, 1, false, 1);
    ids.set(name, id);
  }
  const loop = countLoopTurns();
  for (const pattern of ["*7.bulk*", "*bücher*", "n1*.test", "*.nowhere"]) {
    const re = wildcard(pattern);
    const got = await t.idsMatching(compileGlob(pattern), re, 0);
    const want = [...ids].filter(([n]) => re.test(n)).map(([, id]) => id);
    expect({ pattern, size: got.size }).toEqual({ pattern, size: want.length });
    for (const id of want) expect(got.has(id)).toBe(true);
  }
  const turns = loop.stop();
  // slices of 0 ms: a pause after every step of names
  expect(turns).toBeGreaterThanOrEqual(4 * Math.floor(60_000 / 8192));
});
