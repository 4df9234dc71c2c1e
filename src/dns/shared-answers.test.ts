// The shared answer table on its own: what a store keeps and a lookup finds, the oldest going first
// once full, a flush seen by every view of the buffer, the one refresh of a stale entry; and real
// threads storing and reading the same small table at once, none ever finding a torn answer.
import { expect, test } from "bun:test";
import { answerEnd, answerStart, storedAt, ttlOf } from "./cache-entry.ts";
import { keyBytes, keyHash, writeKey } from "./cache-key.ts";
import { BODY_MAX, EVICTED, STORED, SharedAnswers, TOO_BIG, sharedAnswersBuffer } from "./shared-answers.ts";
import { answerOf, keyWireOf } from "./shared-answers.fixture.ts";

const fields = (k: number) => ({ storedAt: k, ttl: k, reply: 0, upstreamBlocked: null, dnssec: 0, upstream: 0 });

function store(t: SharedAnswers, k: number, chain: string[] | null = null, answer = answerOf(k)): number {
  const length = writeKey(keyWireOf(k), 1, 1, false, false, true, 0);
  return t.store(keyHash(length), answer, [], fields(k), keyBytes, length, chain);
}

/** The stored key of what `t` holds for `k` (its storedAt), or null. */
function find(t: SharedAnswers, k: number): number | null {
  const length = writeKey(keyWireOf(k), 1, 1, false, false, true, 0);
  if (!t.lookup(keyHash(length), keyBytes, length)) return null;
  const e = t.entry;
  expect([...e.subarray(answerStart(e), answerEnd(e))]).toEqual([...answerOf(k)]);
  expect(ttlOf(e)).toBe(k);
  return storedAt(e);
}

test("SharedAnswers: stores, finds by key, replaces a key's entry, evicts the oldest past its size", () => {
  const buffer = sharedAnswersBuffer(3);
  const t = new SharedAnswers(buffer);
  const other = new SharedAnswers(buffer); // another thread's view
  expect([store(t, 1), store(t, 2), store(t, 3)]).toEqual([STORED, STORED, STORED]);
  expect([find(other, 1), find(other, 2), find(other, 3), find(other, 4)]).toEqual([1, 2, 3, null]);
  expect(store(other, 2)).toBe(STORED); // the same key again: no eviction, now the newest
  expect(t.live).toBe(3);
  expect(store(t, 4)).toBe(EVICTED); // 1 was the oldest
  expect([find(other, 1), find(other, 2), find(other, 3), find(other, 4)]).toEqual([null, 2, 3, 4]);
  expect(store(t, 5)).toBe(EVICTED); // 3: 2 was stored again after it
  expect([find(t, 2), find(t, 3), find(t, 4), find(t, 5)]).toEqual([2, null, 4, 5]);
  expect(t.live).toBe(3);
  other.clear();
  expect([find(t, 2), find(t, 4), find(t, 5), t.live]).toEqual([null, null, null, 0]);
  expect(store(t, 6)).toBe(STORED);
  expect(find(other, 6)).toBe(6);
});

test("SharedAnswers: a chain comes back, an entry too large is refused, a removal and one refresh", () => {
  const t = new SharedAnswers(sharedAnswersBuffer(100));
  const other = new SharedAnswers(t.buffer);
  expect(store(t, 7, ["a.cdn.example", "b.cdn.example"])).toBe(STORED);
  expect(find(other, 7)).toBe(7);
  const chain = other.chain();
  expect(chain).toEqual(["a.cdn.example", "b.cdn.example"]);
  expect(find(other, 7)).toBe(7);
  expect(other.chain()).toBe(chain); // decoded once per write of the slot
  expect(store(t, 8, null, new Uint8Array(BODY_MAX))).toBe(TOO_BIG);
  expect(store(t, 9, ["\u0100.example"])).toBe(TOO_BIG);
  expect(find(other, 8)).toBeNull();

  expect(find(other, 7)).toBe(7);
  const [slot, seq] = [other.slot, other.seq];
  expect([t.startRefresh(slot, seq), other.startRefresh(slot, seq)]).toEqual([true, false]);
  t.endRefresh(slot, seq);
  expect(other.startRefresh(slot, seq)).toBe(true);
  expect(t.remove(slot, seq)).toBe(true);
  expect([other.remove(slot, seq), find(t, 7), t.live]).toEqual([false, null, 0]);
  // found, then flushed: the removal finds nothing left to count
  expect([store(t, 10), find(other, 10), t.live]).toEqual([STORED, 10, 1]);
  const [slot10, seq10] = [other.slot, other.seq];
  t.clear();
  expect(store(t, 11)).toBe(STORED);
  expect([other.remove(slot10, seq10), t.live]).toEqual([false, 1]);
});

test("SharedAnswers: four threads storing and reading one small table never see a torn answer", async () => {
  // 64 keys over 3 buckets: every store evicts, and the threads meet in the same slots all the time
  const buffer = sharedAnswersBuffer(16);
  const rounds = 40_000;
  const results = await Promise.all(
    [1, 2, 3, 4].map(
      (seed) =>
        new Promise<{ hits: number; stores: number; busy: number; wrong: string[] }>((resolve, reject) => {
          const w = new Worker(new URL("./shared-answers.hammer.ts", import.meta.url).href);
          const timer = setTimeout(() => reject(new Error("a thread did not finish in 20 s")), 20_000);
          w.onmessage = (ev) => {
            clearTimeout(timer);
            void w.terminate();
            resolve(ev.data);
          };
          w.onerror = (ev) => {
            clearTimeout(timer);
            reject(new Error(ev.message));
          };
          w.postMessage({ buffer, seed, rounds, keys: 64 });
        }),
    ),
  );
  for (const r of results) {
    expect(r.wrong).toEqual([]);
    expect(r.hits).toBeGreaterThan(0);
    expect(r.stores).toBeGreaterThan(0);
  }
}, 30_000);
