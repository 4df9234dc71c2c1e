// `moat gravity`: one gravity run against the data directory, progress on stdout. The server's
// POST /api/action/gravity and the schedule run this same command as a child process, so a big
// build never stalls the DNS event loop and its memory returns to the system when it ends.
import type { ConfigStore } from "../../config/index.ts";
import type { Paths } from "../../core/runtime.ts";
import { openGravityDb } from "../../db/index.ts";
import { runGravity } from "./build.ts";
import { acquireGravityLock } from "./lock.ts";

export const EXIT_BUSY = 3;

export async function gravityCommand(paths: Paths, config: ConfigStore): Promise<number> {
  const release = acquireGravityLock(paths.dataDir);
  if (!release) {
    console.log("  [✗] Another gravity update is already running");
    return EXIT_BUSY;
  }
  const c = config.current.gravity;
  const db = openGravityDb(paths.dataDir, config.current.database.useWAL);
  try {
    const r = await runGravity(db, paths.dataDir, { timeoutMs: c.downloadTimeout * 1000, maxBytes: c.maxListSize * 1024 * 1024 }, (l) => console.log(l));
    return r.ok ? 0 : 1;
  } catch (e) {
    console.log(`  [✗] Gravity update failed, the previous lists stay active: ${(e as Error).message}`);
    return 1;
  } finally {
    db.close();
    release();
  }
}
