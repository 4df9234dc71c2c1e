import { expect, test } from "bun:test";
import { emptyEntry, RecordRing } from "./ring.ts";

const entry = (i: number) => ({
  id: 1000 + i,
  time: i,
  replyTime: i / 4,
  type: 100 + (i % 70000),
  status: i % 19,
  reply: i % 14,
  dnssec: i % 5,
  ede: (i % 26) - 1,
  listId: i % 3 ? null : i,
  domain: i,
  client: i % 3,
  upstream: i % 2 ? -1 : 5,
  cname: i % 4 ? -1 : i,
});

test("ring: entries come back oldest first, across chunk boundaries, with every field", () => {
  const r = new RecordRing();
  const n = 40_000; // more than two chunks
  for (let i = 0; i < n; i++) r.push(entry(i));
  expect(r.size).toBe(n);
  for (let i = 0; i < n; i++) {
    expect(r.oldestTime()).toBe(i);
    const e = r.shift()!;
    expect({ ...e }).toEqual(entry(i));
  }
  expect(r.size).toBe(0);
  expect(r.shift()).toBeNull();
  expect(r.oldestTime()).toBeNull();
  // usable again after running empty, and after clear
  r.push(entry(7));
  expect(r.shift()!.domain).toBe(7);
  for (let i = 0; i < 20_000; i++) r.push(entry(i));
  r.clear();
  expect(r.size).toBe(0);
  r.push(entry(9));
  expect(r.size).toBe(1);
});

test("ring: scanNewest walks newest first across chunks, stops when told, and skips what aged out", () => {
  const r = new RecordRing();
  for (let i = 0; i < 40_000; i++) r.push(entry(i));
  for (let i = 0; i < 20_000; i++) r.shift();
  const seen: number[] = [];
  const v = emptyEntry();
  r.scanNewest((c, i) => {
    seen.push(RecordRing.read(c, i, v).id);
    return true;
  });
  expect(seen.length).toBe(20_000);
  expect(seen[0]).toBe(1000 + 39_999);
  expect(seen.at(-1)).toBe(1000 + 20_000);
  expect(seen.every((id, k) => k === 0 || id === seen[k - 1]! - 1)).toBe(true);
  let n = 0;
  r.scanNewest(() => ++n < 5);
  expect(n).toBe(5);
});
