import { expect, test } from "bun:test";
import { BurstCollector } from "./burst-collect.ts";

/** A collector over a scripted count: `rates` is the work done before each tick; the ticks that collected. */
function run(rates: number[], minWork = 1000): number[] {
  let count = 0;
  const fired: number[] = [];
  let tick = 0;
  const c = new BurstCollector(
    () => count,
    minWork,
    () => fired.push(tick),
  );
  for (; tick < rates.length; tick++) {
    count += rates[tick]!;
    c.tick();
  }
  return fired;
}

test("a steady rate never collects", () => {
  expect(run(Array(100).fill(500))).toEqual([]);
});

test("one collection when the rate falls to half its peak after enough work", () => {
  expect(run([800, 900, 1000, 400, 400, 400, 0, 0])).toEqual([3]);
});

test("a fall after too little work collects nothing", () => {
  expect(run([300, 300, 0, 0, 0])).toEqual([]);
});

test("after a collection the next one waits for another burst's worth of work", () => {
  // collected at 2; then 600 + 600 is a new burst of enough work, falling at 5
  expect(run([1000, 1000, 100, 600, 600, 200, 0, 0])).toEqual([2, 5]);
});

test("idle after a burst collects once, not every tick", () => {
  expect(run([5000, 0, 0, 0, 0, 0])).toEqual([1]);
});
