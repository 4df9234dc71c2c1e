// The import at start reads only the newest queries that fit the window's memory budget
// (database.queryLogMemory, src/stats/budget.ts); shedding itself is test/stats/budget.test.ts.
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ConfigStore } from "../../src/config/index.ts";
import { openQueryDb } from "../../src/db/index.ts";
import { queriesFitting } from "../../src/stats/budget.ts";
import { Stats } from "../../src/stats/sink.ts";
import { bulkSeededDataDir } from "./fixture.ts";

const MiB = 1048576;
const NOW = Math.floor(Date.now() / 1000);

async function statsOn(dir: string) {
  await Bun.write(join(dir, "pihole.toml"), "[database]\nqueryLogMemory = 4\n");
  const config = new ConfigStore({ file: join(dir, "pihole.toml"), env: {}, hashPassword: (p) => p });
  const disk = openQueryDb(dir);
  const stats = new Stats({
    config,
    disk,
    log: () => {},
    now: () => NOW,
  });
  return { stats, disk };
}

const fit = queriesFitting(4 * MiB);

test("window budget: the import at start reads the newest queries that fit, not all of the last 24 h", async () => {
  const stored = fit + 20_000;
  const dir = bulkSeededDataDir(stored, NOW);
  const { stats, disk } = await statsOn(dir);
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
