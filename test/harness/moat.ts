// Starts the real Moat (`bun src/main.ts serve`) on free ports with its own data directory, the way
// a user runs it, and gives tests what they need to talk to it over real HTTP and DNS.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createServer } from "node:net";
import { createSocket } from "node:dgram";
import type { Subprocess } from "bun";

export const ROOT = resolve(import.meta.dir, "../..");
export const BUN = process.execPath;

/**
 * Ports handed out are reserved: in this process (two draws before the first server binds would
 * otherwise get the same port) and across the test processes of every checkout on this machine (one
 * file per port under PORT_LOCKS, made with O_EXCL and holding the owner's pid; a dead owner's file is
 * taken over). A port stays reserved while this process lives, so a server restarted on it finds it free;
 * `bun test` runs no exit handlers, so its files stay until a later draw finds their owner gone.
 */
const PORT_LOCKS = join(tmpdir(), "moat-test-ports");
const reserved = new Set<number>();

function reserve(port: number): boolean {
  if (reserved.has(port)) return false;
  mkdirSync(PORT_LOCKS, { recursive: true });
  const file = join(PORT_LOCKS, String(port));
  for (let tries = 0; tries < 2; tries++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      if (reserved.size === 0) process.once("exit", releaseAll);
      reserved.add(port);
      return true;
    } catch {
      let owner: number;
      try {
        owner = Number(readFileSync(file, "utf8"));
      } catch {
        continue; // released meanwhile
      }
      // an empty file is one another process made and is still writing its pid into
      if (!owner || alive(owner)) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function releaseAll(): void {
  for (const port of reserved) rmSync(join(PORT_LOCKS, String(port)), { force: true });
}

/** whether `port` can be bound on `host` for TCP (a listener) and for UDP */
async function bindable(port: number, host: string): Promise<boolean> {
  const tcpOk = await new Promise<boolean>((res) => {
    const s = createServer();
    s.once("error", () => res(false));
    s.listen({ port, host, ipv6Only: false }, () => s.close(() => res(true)));
  });
  if (!tcpOk) return false;
  return new Promise<boolean>((res) => {
    const s = createSocket({ type: host.includes(":") ? "udp6" : "udp4", ipv6Only: false });
    s.once("error", () => res(false));
    s.bind(port, host, () => s.close(() => res(true)));
  });
}

let wildcard: string | undefined;

/**
 * A port free for both TCP and UDP (DNS needs both), reserved for this process. Checked on the
 * wildcard address, as Moat's DNS binds it (dual-stack "::"): a port some program holds on any local
 * address only is not free. Drawn below Linux's ephemeral range
 * (/proc/sys/net/ipv4/ip_local_port_range, 32768-60999), where the kernel hands out the source ports of
 * outgoing connections and upstream queries, so a port found free stays free until the server binds it.
 */
export async function freePort(): Promise<number> {
  wildcard ??= (await bindable(0, "::")) ? "::" : "0.0.0.0";
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 10000 + Math.floor(Math.random() * 22000);
    if (!reserve(port)) continue;
    if (await bindable(port, wildcard)) return port;
  }
  throw new Error("no free port found");
}

export interface MoatOptions {
  /** extra environment, e.g. { FTLCONF_webserver_api_password: "secret" } */
  env?: Record<string, string>;
  /** TOML text written as the config file before start */
  configToml?: string;
  /** reuse a data directory (restart tests) */
  dataDir?: string;
  /** HTTP bind address (default 127.0.0.1) */
  httpHost?: string;
  /** the DNS port, set by configToml itself rather than the environment, so the API may change it */
  dnsPortInConfig?: number;
}

export class MoatProcess {
  proc: Subprocess<"ignore", "pipe", "pipe"> | undefined;
  output = "";
  constructor(
    readonly dataDir: string,
    readonly httpPort: number,
    readonly dnsPort: number,
    readonly opts: MoatOptions,
  ) {}

  get base(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  /**
   * The output once it holds `what`, or as it is after `timeoutMs`. The output is read from a pipe,
   * so a line logged before an answer can reach the test after that answer.
   */
  async outputWith(what: string | RegExp, timeoutMs = 5000): Promise<string> {
    const has = () => (typeof what === "string" ? this.output.includes(what) : what.test(this.output));
    const deadline = Date.now() + timeoutMs;
    while (!has() && Date.now() < deadline) await Bun.sleep(20);
    return this.output;
  }

  /** fetch relative to the server, e.g. api("/api/auth", { method: "POST", body }) */
  api(path: string, init?: RequestInit): Promise<Response> {
    return fetch(this.base + path, init);
  }

  async start(timeoutMs = 20000): Promise<void> {
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      FTLCONF_webserver_port: `${this.opts.httpHost ?? "127.0.0.1"}:${this.httpPort}`,
      ...(this.opts.dnsPortInConfig ? {} : { FTLCONF_dns_port: String(this.dnsPort) }),
      // DNS over TLS is on by default (port 853): tests that want it set a free port
      FTLCONF_dns_tls_port: "0",
      ...this.opts.env,
    };
    this.output = "";
    this.proc = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "serve", "--data-dir", this.dataDir], {
      env,
      cwd: ROOT,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const collect = async (stream: ReadableStream<Uint8Array>) => {
      const dec = new TextDecoder();
      for await (const chunk of stream) this.output += dec.decode(chunk);
    };
    void collect(this.proc.stdout);
    void collect(this.proc.stderr);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.proc.exitCode !== null) throw new Error(`moat exited with ${this.proc.exitCode}:\n${this.output}`);
      try {
        const r = await fetch(`${this.base}/api/info/login`);
        if (r.ok) {
          await r.arrayBuffer();
          return;
        }
      } catch {
        // not listening yet
      }
      await Bun.sleep(50);
    }
    throw new Error(`moat did not start within ${timeoutMs} ms:\n${this.output}`);
  }

  async stop(): Promise<void> {
    if (!this.proc || this.proc.exitCode !== null) return;
    this.proc.kill("SIGTERM");
    const killer = setTimeout(() => this.proc?.kill("SIGKILL"), 5000);
    await this.proc.exited;
    clearTimeout(killer);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** stops the process and removes its data directory */
  async dispose(): Promise<void> {
    await this.stop();
    if (!this.opts.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export async function startMoat(opts: MoatOptions = {}): Promise<MoatProcess> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "moat-test-"));
  if (opts.configToml !== undefined) await Bun.write(join(dataDir, "pihole.toml"), opts.configToml);
  return startOnFreePorts(
    async () => new MoatProcess(dataDir, await freePort(), opts.dnsPortInConfig ?? (await freePort()), opts),
  );
}

/**
 * Starts the Moat `make` builds on ports it draws from freePort(). A program outside the reservation
 * (a benchmark on fixed ports, another tool's server) may still take one between the check and the
 * bind: then the ports are drawn again rather than failing the test.
 */
export async function startOnFreePorts(make: () => Promise<MoatProcess>): Promise<MoatProcess> {
  for (let attempt = 1; ; attempt++) {
    const m = await make();
    try {
      await m.start();
      return m;
    } catch (e) {
      await m.stop();
      if (attempt >= 3 || !/in use|EADDRINUSE/i.test(m.output)) throw e;
    }
  }
}

/** Runs a command and returns its exit code and output (for CLI tests). */
export async function run(cmd: string[], opts: { env?: Record<string, string>; stdin?: string } = {}) {
  const p = Bun.spawn(cmd, {
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ...opts.env },
    stdin: opts.stdin !== undefined ? new TextEncoder().encode(opts.stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code: await p.exited, stdout: out, stderr: err };
}
