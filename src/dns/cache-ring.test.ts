// The ring against a model: a Map in insertion order, whose first key is the oldest (what the cache
// kept before), through stores, re-stores, deletes, wraps of the ring and resizes.
import { expect, test } from "bun:test";
import { CacheRing } from "./cache-ring.ts";

test("CacheRing: the same entries, extras and eviction order as an insertion-ordered Map", () => {
  let seed = 3;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed % n);
  for (const [max, keys] of [
    [1, 4],
    [3, 10],
    [100, 150],
    [300, 5000],
  ] as const) {
    let limit: number = max;
    const ring = new CacheRing<{ v: number }, string[]>(max);
    const model = new Map<number, { v: number; x: string[] | null }>();
    let evictions = 0;
    for (let step = 0; step < 40_000; step++) {
      const key = rnd(keys) * 7919 + 0.5 * (step % 2); // keys need not be integers
      const op = rnd(100);
      if (op < 60) {
        const v = { v: step };
        const x = rnd(4) === 0 ? [`c${step}`] : null;
        if (model.has(key)) model.delete(key);
        else if (model.size >= limit) {
          model.delete(model.keys().next().value!);
          evictions++;
        }
        model.set(key, { v: step, x });
        const evicted = ring.set(key, v, x);
        // an eviction said is one the model made
        if (evicted) evictions--;
      } else if (op < 80) {
        model.delete(key);
        ring.delete(key);
      } else if (op < 99) {
        const m = model.get(key);
        expect(ring.get(key)?.v).toBe(m?.v);
        expect(ring.extra(key) ?? null).toEqual(m?.x ?? null);
      } else {
        limit = 1 + rnd(max * 2);
        const oldest = [...model.keys()];
        for (const k of oldest.slice(0, Math.max(0, oldest.length - limit))) model.delete(k);
        ring.resize(limit);
      }
      expect(ring.size).toBe(model.size);
    }
    expect(evictions).toBe(0);
    for (const [k, m] of model) expect(ring.get(k)?.v).toBe(m.v);
    // the oldest leave first, in the model's order
    const order = [...model.keys()];
    for (const k of order) {
      expect(ring.evictOldest()).toBe(true);
      expect(ring.has(k)).toBe(false);
    }
    expect(ring.evictOldest()).toBe(false);
    expect(ring.size).toBe(0);
  }
});

test("CacheRing: a flush empties it, and it fills again from the start", () => {
  const ring = new CacheRing<{ v: number }, string[]>(2);
  ring.set(1, { v: 1 }, ["a"]);
  ring.set(2, { v: 2 }, null);
  ring.clear();
  expect([ring.size, ring.get(1), ring.extra(1)]).toEqual([0, undefined, undefined]);
  ring.set(3, { v: 3 }, null);
  ring.set(4, { v: 4 }, null);
  expect(ring.set(5, { v: 5 }, null)).toBe(true);
  expect([ring.has(3), ring.get(4)?.v, ring.get(5)?.v]).toEqual([false, 4, 5]);
});

test("CacheRing: an entry outlives any number of re-stores of others while there is room", () => {
  const ring = new CacheRing<{ v: number }, string[]>(300);
  ring.set(1, { v: 1 }, ["kept"]);
  for (let k = 0; k < 299; k++) ring.set(100 + k, { v: k }, null);
  // the other 299 stored again and again: the ring comes round many times
  for (let n = 0; n < 20_000; n++) expect(ring.set(100 + (n % 299), { v: n }, null)).toBe(false);
  expect([ring.size, ring.get(1)?.v, ring.extra(1)]).toEqual([300, 1, ["kept"]]);
  // and it is still the oldest
  expect(ring.set(5, { v: 5 }, null)).toBe(true);
  expect(ring.has(1)).toBe(false);
});
