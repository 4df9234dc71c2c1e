// A real PostgreSQL 15 (Debian's) for fleet tests: its own cluster in a temp directory, run as
// the unprivileged user `nobody` (PostgreSQL refuses root), on a loopback port with trust
// authentication for user `moat`. `kill()` is a crash (SIGKILL to the postmaster), `start()`
// brings it back with its data.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./moat.ts";

const BIN = "/usr/lib/postgresql/15/bin";
const NOBODY = 65534;

export class PostgresServer {
  proc: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  get url(): string {
    return `postgres://moat@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    const p = spawn(
      `${BIN}/postgres`,
      [
        "-D",
        join(this.dir, "data"),
        "-p",
        String(this.port),
        "-k",
        this.dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "fsync=off",
      ],
      {
        uid: NOBODY,
        gid: NOBODY,
        stdio: "ignore",
      },
    );
    this.proc = p;
    this.exited = new Promise((res) => p.once("exit", () => res()));
    const deadline = Date.now() + 15000;
    while (Date.now() < deadline) {
      if (
        spawnSync(`${BIN}/pg_isready`, ["-h", "127.0.0.1", "-p", String(this.port)], { stdio: "ignore" }).status === 0
      )
        return;
      if (p.exitCode !== null) throw new Error(`postgres exited with ${p.exitCode}`);
      await Bun.sleep(100);
    }
    throw new Error("postgres did not start");
  }

  /** crash: SIGKILL to the postmaster (its backends end when they notice) */
  async kill(): Promise<void> {
    if (!this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.kill("SIGKILL");
    await this.exited;
    // the backends leave shortly after; a restart waits for the port and the shared memory
    await Bun.sleep(300);
  }

  async stop(): Promise<void> {
    if (!this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.kill("SIGINT"); // fast shutdown
    await this.exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function startPostgres(): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), "moat-pg-"));
  chownSync(dir, NOBODY, NOBODY);
  const init = spawnSync(
    `${BIN}/initdb`,
    ["-D", join(dir, "data"), "-U", "moat", "--auth=trust", "-E", "UTF8", "--no-sync"],
    { uid: NOBODY, gid: NOBODY, stdio: ["ignore", "ignore", "pipe"] },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr?.toString()}`);
  const pg = new PostgresServer(await freePort(), dir);
  await pg.start();
  return pg;
}
