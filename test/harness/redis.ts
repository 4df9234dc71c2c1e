// A real redis-server (Debian's) for fleet tests: loopback only, its own temp directory, started
// and stopped by the test; `kill()` is a crash (SIGKILL), `start()` again brings it back on the
// same port (with its data when `persist` is set: append-only file).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "./moat.ts";

export class RedisServer {
  proc: Subprocess | undefined;
  constructor(
    readonly port: number,
    readonly dir: string,
    readonly persist: boolean,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = [
      "redis-server",
      "--port",
      String(this.port),
      "--bind",
      "127.0.0.1",
      "--dir",
      this.dir,
      "--save",
      "",
      "--appendonly",
      this.persist ? "yes" : "no",
      "--protected-mode",
      "no",
    ];
    this.proc = Bun.spawn(args, { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    const deadline = Date.now() + 10000;
    while (Date.now() < deadline) {
      const r = Bun.spawnSync(["redis-cli", "-p", String(this.port), "ping"], { stdout: "pipe", stderr: "ignore" });
      if (r.stdout.toString().trim() === "PONG") return;
      if (this.proc.exitCode !== null) throw new Error(`redis-server exited with ${this.proc.exitCode}`);
      await Bun.sleep(50);
    }
    throw new Error("redis-server did not start");
  }

  /** crash: SIGKILL, no goodbye to the clients */
  async kill(): Promise<void> {
    if (!this.proc || this.proc.exitCode !== null) return;
    this.proc.kill("SIGKILL");
    await this.proc.exited;
  }

  /** runs one redis-cli command and returns its output */
  cli(...args: string[]): string {
    return Bun.spawnSync(["redis-cli", "-p", String(this.port), ...args], { stdout: "pipe", stderr: "ignore" })
      .stdout.toString()
      .trim();
  }

  async dispose(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function startRedis(opts: { persist?: boolean } = {}): Promise<RedisServer> {
  const r = new RedisServer(await freePort(), mkdtempSync(join(tmpdir(), "moat-redis-")), opts.persist ?? false);
  await r.start();
  return r;
}
