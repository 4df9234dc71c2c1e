// The 24 h window's memory budget (database.queryLogMemory): the window is the query log and the
// statistics of the last 24 h, and on a board with little memory (or a service in a memory cgroup)
// a busy day must not take the process past its limit. Over the budget the oldest queries leave the
// window early (Stats.keepWithinBudget) and a message says so.
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
