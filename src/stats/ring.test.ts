import { expect, test } from "bun:test";
import { RecordRing } from "./ring.ts";

const entry = (i: number) => ({
  time: i,
  replyTime: i / 4,
  type: 100 + (i % 70000),
  status: i % 19,
  reply: i % 14,
  domain: i,
  client: i % 3,
  upstream: i % 2 ? -1 : 5,
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
