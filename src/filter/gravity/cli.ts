// `moat gravity`: one gravity run against the data directory, progress on stdout. The server's
// POST /api/action/gravity and the schedule run this same command as a child process, so a big
// build never stalls the DNS event loop and its memory returns to the system when it ends.
import type { ConfigStore } from "../../config/index.ts";
import type { Paths } from "../../core/runtime.ts";
import { openGravityDb } from "../../db/index.ts";
import { ownWebPorts } from "./address-guard.ts";
import { runGravity } from "./build.ts";
import { acquireGravityLock } from "./lock.ts";

const EXIT_BUSY = 3;

/**
 * Set by the server for its gravity child, whose stdin is then a pipe the server never writes to.
 * The kernel closes it when the server dies, even by kill -9, and the child stops instead of running
 * on as an orphan that downloads and writes gravity.db for nobody.
 */
export const PARENT_PIPE_ENV = "MOAT_GRAVITY_PARENT_PIPE";

function stopWhenParentGone(stop: () => void): void {
  if (process.env[PARENT_PIPE_ENV] !== "1") return;
  void (async () => {
    try {
      for await (const _ of Bun.stdin.stream()) {
        // the server writes nothing; only the end matters
      }
    } catch {
      // a broken pipe ends the same way
    }
    stop();
  })();
}

export async function gravityCommand(paths: Paths, config: ConfigStore): Promise<number> {
  const release = acquireGravityLock(paths.dataDir);
  if (!release) {
    console.log("  [✗] Another gravity update is already running");
    return EXIT_BUSY;
  }
  const c = config.current.gravity;
  const db = openGravityDb(paths.dataDir, config.current.database.useWAL);
  stopWhenParentGone(() => {
    console.log("  [✗] The server that started this update is gone; stopping, the previous lists stay active");
    release();
    // an open write transaction is rolled back by SQLite when the process ends
    process.exit(1);
  });
  try {
    const r = await runGravity(
      db,
      paths.dataDir,
      {
        timeoutMs: c.downloadTimeout * 1000,
        maxBytes: c.maxListSize * 1024 * 1024,
        ownPorts: ownWebPorts(config.current.webserver.port),
      },
      (l) => console.log(l),
    );
    return r.ok ? 0 : 1;
  } catch (e) {
    console.log(`  [✗] Gravity update failed, the previous lists stay active: ${(e as Error).message}`);
    return 1;
  } finally {
    db.close();
    release();
  }
}
