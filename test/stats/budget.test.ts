// The 24 h query log's memory budget (database.queryLogMemory): over it the oldest queries' details
// leave the log first, the statistics keep counting every query, and a message says what happened.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { ConfigStore } from "../../src/config/index.ts";
import { openQueryDb } from "../../src/db/index.ts";
import { logBudgetBytes, logBytes, memoryLimitBytes } from "../../src/querylog/log-budget.ts";
import { queryPage } from "../../src/querylog/read.ts";
import { Stats } from "../../src/stats/sink.ts";
import { rec } from "./fixture.ts";

const NOW = 1_800_000_000;

test("budget: 0 sizes it from the machine's memory (a tenth, 16 MiB at least); a value is MiB", () => {
  expect(logBudgetBytes(0, 8 * 2 ** 30)).toBe(Math.floor((8 * 2 ** 30) / 10));
  expect(logBudgetBytes(0, 64 * 2 ** 20)).toBe(16 * 2 ** 20);
  expect(logBudgetBytes(3)).toBe(3 * 2 ** 20);
});

test("budget: a tiny budget sheds the oldest details, keeps the newest, the counts and says so once", async () => {
  const dir = mkdtempSync(join(tmpdir(), "moat-budget-"));
  await Bun.write(join(dir, "pihole.toml"), "[database]\nqueryLogMemory = 1\n");
  const config = new ConfigStore({ file: join(dir, "pihole.toml"), env: {}, hashPassword: (p) => p });
  const disk = openQueryDb(dir);
  const n = 40_000;
  const stats = new Stats({ config, disk, log: () => {}, now: () => NOW + n / 1000 });
  try {
    // distinct names make each row cost what a busy network's do
    for (let i = 0; i < n; i++)
      stats.record(rec({ time: NOW + i / 1000, domain: `host${i}.budget.example`, client: `10.0.${i % 4}.1` }));
    const db = (await stats.freshMemory()).db;
    const span = () =>
      db.query("SELECT COUNT(*) AS n, MIN(id) AS lo, MAX(id) AS hi FROM query_storage").get() as {
        n: number;
        lo: number;
        hi: number;
      };
    // the writer thread runs at idle priority: on a busy machine it may need more than one wait
    // (the last batch is readable a moment before the shedding that follows it is done)
    for (let tries = 0; tries < 40 && (span().hi !== n || logBytes(db) > 1024 * 1024); tries++)
      await stats.freshMemory();
    const kept = span();
    // within the budget, oldest first: the rows left are the newest ones, without a gap
    expect(logBytes(db)).toBeLessThanOrEqual(1024 * 1024);
    expect(kept.n).toBeGreaterThan(1000);
    expect(kept.n).toBeLessThan(n);
    expect(kept.hi).toBe(n);
    expect(kept.hi - kept.lo + 1).toBe(kept.n);
    expect(stats.counters.shed).toBe(n - kept.n);
    // the statistics still count every query
    expect(stats.window.total).toBe(n);
    expect(stats.window.domains.size).toBe(n);
    // /api/queries' SQL answers the newest query with its name, and nothing older than the log's start
    const page = queryPage(db, { length: 1 }) as { queries: Array<{ domain: string }>; recordsTotal: number };
    expect(page.queries[0]!.domain).toBe(`host${n - 1}.budget.example`);
    expect(page.recordsTotal).toBe(kept.n);
    // one message (not one per shed), naming the setting
    const msgs = disk.query("SELECT type, message, blob1 FROM message").all() as Array<{
      type: string;
      message: string;
      blob1: number;
    }>;
    expect(msgs.length).toBe(1);
    expect(msgs[0]!.type).toBe("SHMEM");
    expect(msgs[0]!.message).toContain("database.queryLogMemory: 1 MiB");
    expect(msgs[0]!.message).toContain("Statistics still count every query");
    // the names only the shed queries used went with them
    expect((db.query("SELECT COUNT(*) AS n FROM domain_by_id").get() as { n: number }).n).toBe(kept.n);
  } finally {
    await stats.stop();
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("budget: the default follows a control group's memory limit (v1 and v2), else the machine's", async () => {
  const dir = mkdtempSync(join(tmpdir(), "moat-cgroup-"));
  try {
    const write = async (p: string, text: string) => Bun.write(join(dir, p), text);
    await write("v2/cgroup", "0::/moat.service\n");
    await write("fs/moat.service/memory.max", `${512 * 2 ** 20}\n`);
    expect(memoryLimitBytes(join(dir, "v2/cgroup"), join(dir, "fs"))).toBe(512 * 2 ** 20);
    await write("v1/cgroup", "9:pids:/\n4:memory:/box\n1:name=systemd:/\n");
    await write("fs/memory/box/memory.limit_in_bytes", `${256 * 2 ** 20}\n`);
    expect(memoryLimitBytes(join(dir, "v1/cgroup"), join(dir, "fs"))).toBe(256 * 2 ** 20);
    // "max" (no limit) and a missing file leave the machine's memory
    await write("max/cgroup", "0::/free\n");
    await write("fs/free/memory.max", "max\n");
    expect(memoryLimitBytes(join(dir, "max/cgroup"), join(dir, "fs"))).toBe(totalmem());
    expect(memoryLimitBytes(join(dir, "none"), join(dir, "fs"))).toBe(totalmem());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
