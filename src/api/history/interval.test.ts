import { expect, test } from "bun:test";
import { coarsen, intervalParam } from "./interval.ts";

test("interval= is a multiple of 600 s between 10 minutes and a day", () => {
  expect(intervalParam(undefined)).toBe(600);
  expect(intervalParam("abc")).toBe(600);
  expect(intervalParam("-5")).toBe(600);
  expect(intervalParam("601")).toBe(1200);
  expect(intervalParam("3600")).toBe(3600);
  expect(intervalParam("1e9")).toBe(86400);
});

test("slots are summed into points that start at multiples of the interval", () => {
  const slots = [0, 600, 1200, 1800, 2400].map((t) => ({ timestamp: 3000 + t, n: 1, data: { a: 1 } }));
  const add = (a: (typeof slots)[0], b: (typeof slots)[0]) => {
    a.n += b.n;
    a.data = { a: a.data.a + b.data.a };
  };
  const out = coarsen(slots, 1800, add);
  expect(out.map((s) => [s.timestamp, s.n, s.data.a])).toEqual([
    [1800, 1, 1],
    [3600, 3, 3],
    [5400, 1, 1],
  ]);
  // the input is left as it was
  expect(slots.map((s) => s.n)).toEqual([1, 1, 1, 1, 1]);
  expect(coarsen(slots, 600, add)).toBe(slots);
});
