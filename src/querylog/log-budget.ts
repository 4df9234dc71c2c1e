// The 24 h query log's memory budget (database.queryLogMemory): the log lives on tmpfs, so every
// byte of it is RAM. Over the budget the detail of the oldest queries goes first; the window's
// counters (src/stats/window.ts) keep every query, so /api/stats/* and /api/history stay complete while
// /api/queries starts later than 24 h ago. Runs on the query writer thread.
import type { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { join } from "node:path";

/**
 * The memory this process may use: the machine's, or less when its control group (a container, a
 * systemd MemoryMax) has a limit, which is what a board with a service cap effectively has.
 */
export function memoryLimitBytes(cgroupFile = "/proc/self/cgroup", root = "/sys/fs/cgroup"): number {
  let limit = totalmem();
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return ""; // not readable here (another namespace, no controller): no limit from it
    }
  };
  for (const line of read(cgroupFile).split("\n")) {
    const [, controllers, path] = line.split(":");
    if (path === undefined) continue;
    // cgroup v2 ("0::/path") or the v1 memory controller ("4:memory:/path")
    const file =
      controllers === ""
        ? join(root, path, "memory.max")
        : controllers!.split(",").includes("memory")
          ? join(root, "memory", path, "memory.limit_in_bytes")
          : null;
    const n = file ? Number(read(file).trim()) : NaN;
    if (Number.isFinite(n) && n > 0) limit = Math.min(limit, n);
  }
  return limit;
}

const MACHINE_BYTES = memoryLimitBytes();

/** The budget in bytes: the setting in MiB, or with 0 a tenth of the memory this process may use (16 MiB at least). */
export function logBudgetBytes(mib: number, machineBytes = MACHINE_BYTES): number {
  if (mib > 0) return mib * 1048576;
  return Math.max(16 * 1048576, Math.floor(machineBytes / 10));
}

/** Bytes the log's database uses now: its pages in use (freed pages are reused, not returned) plus its write-ahead log. */
export function logBytes(db: Database): number {
  const n = (pragma: string) =>
    Number(Object.values(db.query(`PRAGMA ${pragma}`).get() as Record<string, number>)[0] ?? 0);
  return (n("page_count") - n("freelist_count")) * n("page_size");
}

interface Shed {
  /** queries whose detail was dropped */
  rows: number;
  /** time of the oldest query still in the log, or null when it is empty */
  oldest: number | null;
}

/**
 * Drops the oldest queries until the log fits in 90% of `budget` (a margin so it does not shed on
 * every insert). Ids grow with time, so the oldest are the lowest ids. Null when under the budget.
 */
export function shedOldest(db: Database, budget: number, used = logBytes(db)): Shed | null {
  if (budget <= 0 || used <= budget) return null;
  const span = db.query("SELECT MIN(id) AS lo, MAX(id) AS hi, COUNT(*) AS n FROM query_storage").get() as {
    lo: number | null;
    hi: number | null;
    n: number;
  };
  if (!span.n || span.lo === null || span.hi === null) return null;
  // rows to keep, in proportion to the bytes; at least one row goes
  const keep = Math.min(span.n - 1, Math.floor((span.n * 0.9 * budget) / used));
  const cut = db.query("SELECT id FROM query_storage ORDER BY id DESC LIMIT 1 OFFSET ?").get(Math.max(0, keep)) as {
    id: number;
  } | null;
  if (!cut) return null;
  const rows = db.query("DELETE FROM query_storage WHERE id <= ?").run(cut.id).changes;
  const oldest = (db.query("SELECT MIN(timestamp) AS t FROM query_storage").get() as { t: number | null }).t;
  return { rows, oldest };
}
