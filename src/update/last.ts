// The result of the last update attempt, kept in the data directory so GET /api/info/update and the
// dashboard can say it after the reboot that follows an install.
import { chownSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface LastResult {
  /** ISO 8601 */
  at: string;
  ok: boolean;
  /** the bundle's version, "" when it was refused before its version was known */
  version: string;
  message: string;
}

const file = (dataDir: string) => join(dataDir, "update-last.json");

export function readLast(dataDir: string): LastResult | null {
  try {
    const v = JSON.parse(readFileSync(file(dataDir), "utf8")) as LastResult;
    return typeof v.ok === "boolean" && typeof v.message === "string" ? v : null;
  } catch {
    return null;
  }
}

export function writeLast(dataDir: string, r: Omit<LastResult, "at">): void {
  const tmp = `${file(dataDir)}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ at: new Date().toISOString(), ...r })}\n`, { mode: 0o640 });
  // `moat update` runs as root on the image, Moat as its own user: the file stays the data directory's
  if (process.getuid?.() === 0) {
    const owner = statSync(dataDir);
    chownSync(tmp, owner.uid, owner.gid);
  }
  renameSync(tmp, file(dataDir));
}
