import { expect, test } from "bun:test";
import { HISTORY_SHARE, logBudgetBytes, queriesFitting } from "./budget.ts";
import { BYTES_PER_ENTRY } from "./ring.ts";

const MiB = 1048576;

test("budget: a quarter of the memory this process may use, 16 MiB at least; a setting is MiB", () => {
  expect(HISTORY_SHARE).toBe(0.25);
  // a service capped at 256 MiB
  expect(logBudgetBytes(0, 256 * MiB)).toBe(64 * MiB);
  expect(logBudgetBytes(0, 32 * MiB)).toBe(16 * MiB);
  expect(logBudgetBytes(10, 256 * MiB)).toBe(10 * MiB);
});

test("budget: the import at start reads what fits when every query names a domain of its own", () => {
  const fit = queriesFitting(64 * MiB);
  expect(fit * (BYTES_PER_ENTRY + 80)).toBeLessThanOrEqual(64 * MiB);
  expect(fit).toBeGreaterThan(450_000);
});
