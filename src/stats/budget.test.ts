import { expect, test } from "bun:test";
import { queriesFitting, windowBudgetBytes, windowBytes } from "./budget.ts";

const MiB = 1048576;

test("budget: 40% of the limit for the history, the 24 h log's part taken off, 16 MiB at least", () => {
  // a 256 MiB cgroup with the default log budget (a tenth): 102.4 - 25.6 MiB for the window
  expect(windowBudgetBytes(256 * MiB, 25.6 * MiB) / MiB).toBeCloseTo(76.8, 1);
  // a 4 GiB machine: 1638.4 - 409.6 MiB
  expect(windowBudgetBytes(4096 * MiB, 409.6 * MiB) / MiB).toBeCloseTo(1228.8, 1);
  // a log set larger than the share leaves the window its floor, not nothing
  expect(windowBudgetBytes(256 * MiB, 200 * MiB)).toBe(16 * MiB);
  expect(windowBudgetBytes(32 * MiB, 3.2 * MiB)).toBe(16 * MiB);
});

test("budget: distinct names cost more than repeated ones, and the import reads what fits", () => {
  expect(windowBytes(300_000, 300_000)).toBeGreaterThan(3 * windowBytes(300_000, 500));
  // the 256 MiB cgroup's window holds ~230k queries of distinct names
  const fit = queriesFitting(windowBudgetBytes(256 * MiB, 25.6 * MiB));
  expect(fit).toBeGreaterThan(200_000);
  expect(fit).toBeLessThan(260_000);
  expect(windowBytes(fit, fit)).toBeLessThanOrEqual(windowBudgetBytes(256 * MiB, 25.6 * MiB));
});
