// One gravity run at a time per data directory, across processes (server, CLI, schedule): an
// exclusive lock file holding the owner's pid; a lock whose owner died is taken over.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * A zombie is not alive: a run killed with its server (cli.ts) holds no lock, but waits as a zombie
 * until its new parent reaps it, which an init that never reaps (some containers) never does.
 */
const zombie = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat[stat.lastIndexOf(")") + 2] === "Z";
  } catch {
    return false;
  }
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !zombie(pid);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Returns a release function, or null when another live process holds the lock. */
export function acquireGravityLock(dataDir: string): (() => void) | null {
  const file = join(dataDir, "gravity.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const pid = Number(readFileSync(file, "utf8").trim());
      if (pid > 0 && alive(pid)) return null;
      rmSync(file, { force: true });
    }
  }
  return null;
}
