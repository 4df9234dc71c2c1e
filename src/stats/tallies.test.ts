// The exclusions' answers kept per id (idsWhereKept): asked once per name while the test stays the
// same, asked again for a name that takes over a released id, and all again for another test.
import { expect, test } from "bun:test";
import { CompactTallies } from "./tallies.ts";

test("CompactTallies.idsWhereKept: each name tested once, an id's new name tested again", () => {
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
  const first = t.idsWhereKept("^ads\\.", hideAds);
  expect(first.size).toBe(2);
  expect(first.has(ids.get("ads.example")!)).toBe(true);
  expect(first.has(ids.get("good.example")!)).toBe(false);
  expect(asked.sort()).toEqual(["ads.example", "ads.other", "fine.test", "good.example"]);

  asked.length = 0;
  expect(t.idsWhereKept("^ads\\.", hideAds).size).toBe(2);
  expect(asked).toEqual([]);

  // "good.example" leaves; its id goes to a name the test hides
  const freed = ids.get("good.example")!;
  t.count(freed, -1, false, 1);
  const reused = add("ads.new");
  expect(reused).toBe(freed);
  const after = t.idsWhereKept("^ads\\.", hideAds);
  expect(asked).toEqual(["ads.new"]);
  expect(after.size).toBe(3);
  expect(after.has(reused)).toBe(true);
  // and a name past the answers kept so far
  for (let i = 0; i < 2000; i++) add(`n${i}.test`);
  asked.length = 0;
  expect(t.idsWhereKept("^ads\\.", hideAds).size).toBe(3);
  expect(asked.length).toBe(2000);

  // another test: every name asked again
  asked.length = 0;
  const other = t.idsWhereKept("fine", (n) => (asked.push(n), n.includes("fine")));
  expect(other.size).toBe(1);
  expect(asked.length).toBe(2004);
});
