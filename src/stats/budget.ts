// The 24 h window's memory budget (database.queryLogMemory): the window is the query log and the
// statistics of the last 24 h, and on a board with little memory (or a service in a memory cgroup)
// a busy day must not take the process past its limit. Over the budget the oldest queries leave the
// window early (Stats.keepWithinBudget) and a message says so.
import { readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { join } from "node:path";
import { BYTES_PER_ENTRY } from "./ring.ts";

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

/**
 * Of the memory this process may use, what the last 24 h of queries may take by default: a quarter
 * (a 1 GiB Pi 3: ~250 MiB, millions of queries; a service capped at 256 MiB: 64 MiB, beside the ~130
 * MiB that 1M list entries, the cache and the runtime take).
 */
export const HISTORY_SHARE = 0.25;

/** The budget in bytes: the setting in MiB, or with 0 HISTORY_SHARE of the memory this process may use (16 MiB at least). */
export function logBudgetBytes(mib: number, machineBytes = MACHINE_BYTES): number {
  if (mib > 0) return mib * 1048576;
  return Math.max(16 * 1048576, Math.floor(machineBytes * HISTORY_SHARE));
}

/**
 * The most queries that fit in `bytes` when every one names a domain of its own (the import at start
 * reads no more than these, the newest): a ring entry and a name's ~80 bytes each (names.ts).
 */
export function queriesFitting(bytes: number): number {
  return Math.floor(bytes / (BYTES_PER_ENTRY + 80));
}
