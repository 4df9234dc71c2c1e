// The result of the last update attempt, kept in the data directory so GET /api/info/update and the
// dashboard can say it after the reboot that follows an install.
import { chownSync, closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";

export interface LastResult {
  /** ISO 8601 */
  at: string;
  ok: boolean;
  /** the bundle's version, "" when it was refused before its version was known */
  version: string;
  message: string;
  /**
   * true while an install writes the other slot: the record is made before RAUC starts writing and
   * replaced by the result, so one still there after a reboot is an install the reboot cut short
   */
  installing?: boolean;
  /** the kernel's boot_id when `installing` was recorded */
  boot?: string;
}

const file = (dataDir: string) => join(dataDir, "update-last.json");

/** This boot's id (the kernel's, new at every boot); empty where there is none. */
export function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "";
  }
}

export function readLast(dataDir: string): LastResult | null {
  try {
    const v = JSON.parse(readFileSync(file(dataDir), "utf8")) as LastResult;
    return typeof v.ok === "boolean" && typeof v.message === "string" ? v : null;
  } catch {
    return null;
  }
}

/**
 * Written to a new file, synced, renamed and the directory synced: the "installing" record must be on the
 * card before RAUC writes a byte, or a power cut during the install would leave the record before it.
 */
export function writeLast(dataDir: string, r: Omit<LastResult, "at">): void {
  const tmp = `${file(dataDir)}.tmp`;
  const fd = openSync(tmp, "w", 0o640);
  try {
    writeSync(fd, `${JSON.stringify({ at: new Date().toISOString(), ...r })}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // `moat update` runs as root on the image, Moat as its own user: the file stays the data directory's
  if (process.getuid?.() === 0) {
    const owner = statSync(dataDir);
    chownSync(tmp, owner.uid, owner.gid);
  }
  renameSync(tmp, file(dataDir));
  const dir = openSync(dataDir, "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
