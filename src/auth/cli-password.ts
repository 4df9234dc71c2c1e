// The CLI password (`webserver.api.cli_pw`): a fresh random password each run, written to
// <data-dir>/cli_pw where a local administrator (group-readable) can read it to log in, as Pi-hole does.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "./password.ts";

/** Writes a new CLI password to <dataDir>/cli_pw; null (and a warning) when the file cannot be written. */
export function writeCliPassword(dataDir: string, log: (level: "warn", msg: string) => void): string | null {
  const pw = Buffer.from(randomBytes(32)).toString("base64");
  const file = join(dataDir, "cli_pw");
  try {
    writeFileSync(file, pw, { mode: 0o640 });
    // the mode given to writeFileSync passes through the umask, and an existing file keeps its own
    chmodSync(file, 0o640);
    return pw;
  } catch (e) {
    log("warn", `could not write the CLI password file ${file}: ${(e as Error).message}`);
    return null;
  }
}
