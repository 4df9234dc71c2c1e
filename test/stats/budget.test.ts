// The 24 h window's memory budget (database.queryLogMemory): over it the oldest queries leave the
// window (the 24 h log and its statistics), the long-term database keeps them, and a message says so
// (held back while another connection writes the database, and said at the next look).
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { ConfigStore } from "../../src/config/index.ts";
import { openQueryDb } from "../../src/db/index.ts";
import { logBudgetBytes, memoryLimitBytes } from "../../src/stats/budget.ts";
import { Stats } from "../../src/stats/sink.ts";
import { rec } from "./fixture.ts";

const NOW = 1_800_000_000;

test("budget: 0 sizes it from the memory this process may use (a quarter, 16 MiB at least); a value is MiB", () => {
  expect(logBudgetBytes(0, 8 * 2 ** 30)).toBe(2 * 2 ** 30);
  expect(logBudgetBytes(0, 64 * 2 ** 20)).toBe(16 * 2 ** 20);
  expect(logBudgetBytes(3)).toBe(3 * 2 ** 20);
});

test("budget: a tiny budget sheds the oldest queries from the window, keeps the newest and says so once", async () => {
  const dir = mkdtempSync(join(tmpdir(), "moat-budget-"));
  await Bun.write(join(dir, "pihole.toml"), "[database]\nqueryLogMemory = 1\n");
  const config = new ConfigStore({ file: join(dir, "pihole.toml"), env: {}, hashPassword: (p) => p });
  const disk = openQueryDb(dir);
  const n = 40_000;
  const stats = new Stats({ config, disk, log: () => {}, now: () => NOW + n / 1000 });
  try {
    // distinct names make each query cost what a busy network's do
    for (let i = 0; i < n; i++)
      stats.record(rec({ time: NOW + i / 1000, domain: `host${i}.budget.example`, client: `10.0.${i % 4}.1` }));
    expect(stats.window.bytes()).toBeGreaterThan(1024 * 1024);
    // the writer thread idle (it takes the write lock while it writes), and another connection writing
    expect(stats.flushDisk()).toBe(true);
    const other = new Database(join(dir, "pihole-FTL.db"));
    other.exec("BEGIN IMMEDIATE");
    stats.syncMemory();
    // within the budget, oldest first: what is left is the newest queries, without a gap
    expect(stats.window.bytes()).toBeLessThanOrEqual(1024 * 1024);
    const kept = stats.window.total;
    expect(kept).toBeGreaterThan(1000);
    expect(kept).toBeLessThan(n);
    expect(stats.counters.shed).toBe(n - kept);
    expect(stats.window.domains.size).toBe(kept);
    const page = await stats.queryPage({ length: 1 });
    expect(page.queries[0]!.domain).toBe(`host${n - 1}.budget.example`);
    expect(page.queries[0]!.id).toBe(n);
    expect(page.recordsTotal).toBe(kept);
    const oldest = (await stats.queryPage({ length: 1, start: kept - 1 })).queries[0]!;
    expect(oldest.id).toBe(n - kept + 1);
    // the message waited for a later look, not for the lock, and that look says it without shedding more
    const stored = () =>
      disk.query("SELECT type, message, blob1 FROM message").all() as Array<{
        type: string;
        message: string;
        blob1: number;
      }>;
    expect(stored()).toEqual([]);
    other.exec("COMMIT");
    other.close();
    stats.syncMemory();
    expect(stats.counters.shed).toBe(n - kept);
    expect(stored().map((m) => [m.type, m.blob1])).toEqual([["SHMEM", n - kept]]);
    // shedding again later does not repeat the message (one an hour at most)
    for (let i = n; i < n + 20_000; i++)
      stats.record(rec({ time: NOW + i / 1000, domain: `host${i}.budget.example`, client: "10.0.0.1" }));
    stats.syncMemory();
    const msgs = stored();
    expect(msgs.length).toBe(1);
    expect(msgs[0]!.type).toBe("SHMEM");
    expect(msgs[0]!.message).toContain("database.queryLogMemory: 1 MiB");
    expect(msgs[0]!.message).toContain("The long-term database keeps every query");
    expect(msgs[0]!.blob1).toBe(n - kept);
    // the long-term database still gets every query
    expect(stats.flushDisk()).toBe(true);
    expect((disk.query("SELECT COUNT(*) AS n FROM query_storage").get() as { n: number }).n).toBe(n + 20_000);
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
