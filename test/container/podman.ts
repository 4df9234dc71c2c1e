// The container image under Debian's podman with runc (crun fails on hybrid cgroups; no Docker daemon
// needed): its own storage under a temporary directory, cgroupfs, a containers.conf without the default
// ulimits (raising RLIMIT_NOFILE beyond what root may set here fails), and every container on host
// networking inside a network namespace the test makes, so ports 53, 80, 443 and 853 are bound there
// only. The image is built once per test process (scripts/build-container.sh).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../harness/moat.ts";

export const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
export const ARCHIVE = join(ROOT, "dist", `moat-${VERSION}-oci.tar`);
export const IMAGE = `moat:${VERSION}`;

const has = (cmd: string) => Bun.spawnSync(["sh", "-c", `command -v ${cmd}`], { stdout: "ignore" }).exitCode === 0;

/** Root (namespaces, file capabilities in the layer) with podman, runc and iproute2. */
export function canRunContainers(): boolean {
  return process.getuid?.() === 0 && ["podman", "runc", "ip", "nsenter", "dig", "curl"].every(has);
}

export interface Run {
  code: number;
  out: string;
  err: string;
}

export function run(cmd: string[], env?: Record<string, string>): Run {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe", env: env ? { ...process.env, ...env } : undefined });
  return { code: p.exitCode ?? -1, out: p.stdout.toString(), err: p.stderr.toString() };
}

function must(r: Run, what: string): string {
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}): ${r.err.trim() || r.out.trim()}`);
  return r.out;
}

let built: Promise<void> | undefined;
/** Builds both architectures once per test process; later calls wait for the same build. */
export function buildImage(): Promise<void> {
  built ??= (async () => {
    const p = Bun.spawn(["bash", join(ROOT, "scripts/build-container.sh")], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.exited,
    ]);
    if (code !== 0) throw new Error(`scripts/build-container.sh failed (${code}):\n${out}\n${err}`);
  })();
  return built;
}

/** One podman installation of its own (storage, run state, config) inside a network namespace of its own. */
export class Podman {
  readonly dir = mkdtempSync(join(tmpdir(), "moat-oci-"));
  readonly ns = `moat-oci-${process.pid}-${Math.random().toString(36).slice(2, 7)}`;
  private readonly conf = join(this.dir, "containers.conf");

  constructor() {
    writeFileSync(this.conf, "[containers]\ndefault_ulimits = []\n");
    must(run(["ip", "netns", "add", this.ns]), "ip netns add");
    must(run(["ip", "-n", this.ns, "link", "set", "lo", "up"]), "ip link set lo up");
  }

  /** `podman …` with this installation's flags, run inside the namespace (nsenter keeps /sys and its cgroups). */
  podman(args: string[]): Run {
    return run(
      [
        ...this.inNs(),
        "podman",
        "--root",
        join(this.dir, "storage"),
        "--runroot",
        join(this.dir, "run"),
        "--runtime",
        "runc",
        "--cgroup-manager",
        "cgroupfs",
        "--events-backend",
        "file",
        ...args,
      ],
      { CONTAINERS_CONF: this.conf },
    );
  }

  must(args: string[]): string {
    return must(this.podman(args), `podman ${args[0]}`);
  }

  /** A command prefix that runs in the namespace. */
  inNs(): string[] {
    return ["nsenter", `--net=/run/netns/${this.ns}`];
  }

  /** `dig +short` inside the namespace against the container's DNS on port 53 ("" when no answer). */
  dig(name: string, proto: "udp" | "tcp" = "udp"): string {
    const r = run([
      ...this.inNs(),
      "dig",
      "+short",
      "+time=1",
      "+tries=1",
      proto === "tcp" ? "+tcp" : "+notcp",
      "@127.0.0.1",
      name,
    ]);
    return r.code === 0 ? r.out.trim() : "";
  }

  /** The answer's status (NOERROR, NXDOMAIN, …) for `name`, "" when none came. */
  rcode(name: string): string {
    const r = run([...this.inNs(), "dig", "+noall", "+comments", "+time=1", "+tries=1", "@127.0.0.1", name]);
    return /status: ([A-Z]+)/.exec(r.out)?.[1] ?? "";
  }

  /** curl inside the namespace: status line number and body. */
  curl(url: string, opts: { method?: string; body?: unknown; sid?: string } = {}): { status: number; body: string } {
    const args = ["curl", "-sk", "-o", "-", "-w", "\n%{http_code}", "-X", opts.method ?? "GET"];
    if (opts.sid) args.push("-H", `X-FTL-SID: ${opts.sid}`);
    if (opts.body !== undefined) args.push("-H", "Content-Type: application/json", "--data", JSON.stringify(opts.body));
    const r = run([...this.inNs(), ...args, url]);
    const i = r.out.lastIndexOf("\n");
    return { status: Number(r.out.slice(i + 1)) || 0, body: r.out.slice(0, i) };
  }

  /** Waits (bounded) until DNS answers `name` with something; returns the answer or "". */
  async waitForDns(name: string, limitMs = 30_000): Promise<string> {
    const end = Date.now() + limitMs;
    while (Date.now() < end) {
      const a = this.dig(name);
      if (a && !a.startsWith(";;")) return a;
      await Bun.sleep(100);
    }
    return "";
  }

  dispose(): void {
    this.podman(["rm", "-a", "-f", "-t", "0"]);
    this.podman(["volume", "prune", "-f"]);
    // podman's storage holds overlay mounts; it unmounts them itself before the files go
    this.podman(["system", "reset", "-f"]);
    run(["ip", "netns", "del", this.ns]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
