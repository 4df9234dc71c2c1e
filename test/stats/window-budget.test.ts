// The 24 h window keeps within its memory budget (src/stats/budget.ts): over it the oldest queries go
// (the newest stay counted) with one notice, and the import at start reads only the newest that fit.
// A small `limitBytes` stands in for a memory cgroup's limit.
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ConfigStore } from "../../src/config/index.ts";
import { openQueryDb } from "../../src/db/index.ts";
import { queriesFitting, windowBudgetBytes } from "../../src/stats/budget.ts";
import { Stats } from "../../src/stats/sink.ts";
import { bulkSeededDataDir, rec } from "./fixture.ts";

const MiB = 1048576;
const LIMIT = 32 * MiB;
const NOW = Math.floor(Date.now() / 1000);

async function statsOn(dir: string, notices: string[]) {
  await Bun.write(join(dir, "pihole.toml"), "");
  const config = new ConfigStore({ file: join(dir, "pihole.toml"), env: {}, hashPassword: (p) => p });
  const disk = openQueryDb(dir);
  const stats = new Stats({
    config,
    disk,
    log: () => {},
    now: () => NOW,
    limitBytes: LIMIT,
    notice: (text) => notices.push(text),
  });
  return { stats, disk };
}

// the default log budget is a tenth of the limit; the window gets its floor here
const fit = queriesFitting(windowBudgetBytes(LIMIT, LIMIT / 10));

test("window budget: over it the oldest queries go, the newest stay, and it says so once", async () => {
  const dir = bulkSeededDataDir(0, NOW);
  const notices: string[] = [];
  const { stats, disk } = await statsOn(dir, notices);
  try {
    const n = Math.ceil(fit * 1.5);
    for (let i = 0; i < n; i++) stats.record(rec({ time: NOW - 3600 + (i * 3600) / n, domain: `n${i}.flood.test` }));
    expect(stats.window.size).toBe(n);
    stats.syncMemory();
    expect(stats.window.size).toBeLessThanOrEqual(fit);
    expect(stats.window.size).toBeGreaterThan(fit * 0.8);
    expect(stats.window.domains.has(`n${n - 1}.flood.test`)).toBe(true);
    expect(stats.window.domains.has("n0.flood.test")).toBe(false);
    expect(notices.length).toBe(1);
    expect(notices[0]).toContain("memory budget");
    // still over it a moment later: shed again, without a second notice within the hour
    for (let i = 0; i < fit; i++) stats.record(rec({ time: NOW, domain: `m${i}.flood.test` }));
    stats.syncMemory();
    expect(stats.window.size).toBeLessThanOrEqual(fit);
    expect(notices.length).toBe(1);
    await stats.stop();
  } finally {
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);

test("window budget: the import at start reads the newest queries that fit, not all of the last 24 h", async () => {
  const stored = fit + 20_000;
  const dir = bulkSeededDataDir(stored, NOW);
  const { stats, disk } = await statsOn(dir, []);
  try {
    const n = await stats.importFromDisk();
    expect(n).toBeLessThanOrEqual(fit);
    expect(n).toBeGreaterThan(fit * 0.9);
    expect(stats.window.domains.has(`d${stored}.bulk.test`)).toBe(true);
    expect(stats.window.domains.has("d1.bulk.test")).toBe(false);
    await stats.stop();
  } finally {
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
