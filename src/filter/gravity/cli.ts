// `moat gravity`: one gravity run against the data directory, progress on stdout. The server's
// POST /api/action/gravity and the schedule run this same command as a child process, so a big
// build never stalls the DNS event loop and its memory returns to the system when it ends.
import type { ConfigStore } from "../../config/index.ts";
import type { Paths } from "../../core/runtime.ts";
import { openGravityDb } from "../../db/index.ts";
import { ownWebPorts } from "../../net/address-rule.ts";
import { runGravity } from "./build.ts";
import { acquireGravityLock } from "./lock.ts";
import { dieWithParent } from "../../net/libc.ts";
import { setPriority } from "node:os";

const EXIT_BUSY = 3;

/**
 * Set by the server for its gravity child to the server's pid; the child's stdin is then a pipe the
 * server never writes to. The child must not outlive the server: an orphan would go on downloading
 * and could swap its lists into gravity.db after a new server built its filter from the old ones.
 * Three guards, because each alone leaves a gap: the kernel kills the child when the server dies
 * (PR_SET_PDEATHSIG, Linux); the end of the pipe stops it at its next await; and the swap itself
 * asks `serverAlive` inside its transaction, so a child busy in synchronous work when the server
 * died (parsing, building the index) rolls back instead of committing.
 */
export const PARENT_PIPE_ENV = "MOAT_GRAVITY_PARENT_PIPE";

/** The server's pid when this run is a server's child, else null (a run from the command line). */
function serverPid(): number | null {
  const pid = Number(process.env[PARENT_PIPE_ENV]);
  return Number.isInteger(pid) && pid > 1 ? pid : null;
}

/** true while the server that started this run is alive (an orphan is re-parented, so its ppid changes) */
function serverAlive(): boolean {
  const pid = serverPid();
  return pid === null || process.ppid === pid;
}

function stopWhenParentGone(stop: () => void): void {
  if (serverPid() === null) return;
  dieWithParent();
  // the server may have died before the line above: then no signal comes
  if (!serverAlive()) {
    stop();
    return;
  }
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

/**
 * A run gives way to DNS: on a board of one to four cores its parse and SQLite's index build would
 * otherwise take turns with the server's DNS thread (bench/gravity/small-board.ts measures the slowest
 * answer during a 10M-name build). Linux sets the calling thread's niceness; threads started later inherit it.
 */
export const GRAVITY_NICE = 10;

export async function gravityCommand(paths: Paths, config: ConfigStore): Promise<number> {
  try {
    setPriority(GRAVITY_NICE);
  } catch {
    // not allowed (a container's seccomp profile): the run goes on at the server's priority
  }
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
      serverAlive,
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
