import { expect, test } from "bun:test";
import { noteSent, sentTo } from "./own-queries.ts";

/** A query with `id` for `name` (type A, class IN); its question ends at the returned end. */
function query(id: number, name: string): { msg: Uint8Array; end: number } {
  const labels = name.split(".").flatMap((l) => [l.length, ...Buffer.from(l)]);
  const msg = Uint8Array.from([id >> 8, id & 0xff, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, ...labels, 0, 0, 1, 0, 1]);
  return { msg, end: msg.length };
}

test("a query noted as sent is known when it comes back: same ID, same question in the same case", () => {
  const { msg, end } = query(0x1234, "wWw.ExAmple.test");
  noteSent(msg, end, "192.0.2.53#53", performance.now());
  expect(sentTo(Uint8Array.from(msg), end)).toBe("192.0.2.53#53");
  expect(sentTo(query(0x1234, "www.example.test").msg, end)).toBeNull(); // another case: a client's own
  expect(sentTo(query(0x1235, "wWw.ExAmple.test").msg, end)).toBeNull();
  expect(sentTo(query(0x1234, "wWw.ExAmple.tesx").msg, end)).toBeNull();
});

test("several queries with one ID are each known, and one past its time is forgotten", () => {
  const now = performance.now();
  noteSent(query(0x2222, "old.test").msg, query(0x2222, "old.test").end, "old#53", now - 5_000);
  for (let i = 0; i < 5; i++) {
    const q = query(0x2222, `n${i}.test`);
    noteSent(q.msg, q.end, `up${i}#53`, now);
  }
  for (let i = 0; i < 5; i++)
    expect(sentTo(query(0x2222, `n${i}.test`).msg, query(0x2222, `n${i}.test`).end)).toBe(`up${i}#53`);
  expect(sentTo(query(0x2222, "old.test").msg, query(0x2222, "old.test").end)).toBeNull();
});

test("bounded: the newest queries are kept, the oldest written over (questions of every length across the ring's end)", () => {
  const first = query(0x3333, "first.test");
  noteSent(first.msg, first.end, "first#53", performance.now());
  let last = first;
  for (let i = 0; i < 40_000; i++) {
    last = query(i & 0xffff, `${"x".repeat(1 + (i % 60))}.q${i}.test`);
    noteSent(last.msg, last.end, "many#53", performance.now());
  }
  expect(sentTo(first.msg, first.end)).toBeNull();
  expect(sentTo(last.msg, last.end)).toBe("many#53");
});
