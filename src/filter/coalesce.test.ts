// The Coalescer without a server: a burst of calls during a run makes exactly one more run, and every
// caller resolves only after a run that began after its call.
import { expect, test } from "bun:test";
import { Coalescer } from "./coalesce.ts";

test("100 calls during a run: one run in flight, one pending, and each caller waits for a run after its call", async () => {
  const started: number[] = [];
  let release: () => void = () => {};
  const c = new Coalescer(async () => {
    started.push(performance.now());
    await new Promise<void>((r) => {
      release = r;
    });
  });
  const first = c.run();
  await Bun.sleep(1);
  const calledAt = performance.now();
  let resolved = 0;
  const burst = Array.from({ length: 100 }, () => c.run().then(() => resolved++));
  release();
  await Bun.sleep(1);
  // the first run is over; the burst waits for the second
  expect(started.length).toBe(2);
  expect(started[1]!).toBeGreaterThanOrEqual(calledAt);
  expect(resolved).toBe(0);
  release();
  await Promise.all([first, ...burst]);
  expect(resolved).toBe(100);
  expect(started.length).toBe(2);
  // idle again: the next call runs at once
  const later = c.run();
  expect(started.length).toBe(3);
  release();
  await later;
});

test("a run that throws does not wedge the next one", async () => {
  let runs = 0;
  const c = new Coalescer(async () => {
    runs++;
    if (runs === 1) throw new Error("boom");
  });
  await expect(c.run()).rejects.toThrow("boom");
  await c.run();
  expect(runs).toBe(2);
});
