// A clean Debian system for the package and installer tests. A trixie minbase root with systemd's tools
// (systemctl, systemd-analyze, deb-systemd-helper) is made once with mmdebstrap from Debian's packages and
// cached in /var/tmp; each test system is an overlay of it (its changes go with the overlay) inside a
// network namespace of its own (only its loopback). systemd does not run inside: the tests check the unit
// with `systemd-analyze verify` and start its ExecStart as its User= with its capabilities, by hand.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT, run } from "../harness/moat.ts";

const CACHE = "/var/tmp/moat-deb-test";
const SUITE = "trixie";
const MIRROR = "http://deb.debian.org/debian";
export const DEB_ARCH = process.arch === "arm64" ? "arm64" : "amd64";
const PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

async function must(cmd: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await run(cmd, { env });
  if (r.code !== 0) throw new Error(`${cmd.join(" ")} exited ${r.code}: ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

/** The cached clean root (made on first use: a few minutes, most of it downloading). */
async function baseRoot(): Promise<string> {
  const root = join(CACHE, `root-${SUITE}`);
  if (existsSync(join(root, ".moat-complete"))) return root;
  mkdirSync(CACHE, { recursive: true });
  const tmp = `${root}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  await must(["timeout", "600", "mmdebstrap", "--quiet", "--variant=minbase", "--include=systemd", SUITE, tmp, MIRROR]);
  await must(["touch", join(tmp, ".moat-complete")]);
  rmSync(root, { recursive: true, force: true });
  renameSync(tmp, root);
  return root;
}

/** The checkout's state: a package built from it is reused until a file changes. */
async function treeKey(): Promise<string> {
  const h = createHash("sha256");
  for (const args of [
    ["rev-parse", "HEAD"],
    ["status", "--porcelain"],
    ["diff", "HEAD"],
  ])
    h.update(await must(["git", "-C", ROOT, ...args]));
  return h.digest("hex").slice(0, 16);
}

/**
 * dist/moat_<version>_<arch>.deb of this checkout, built by scripts/build-deb.sh for this machine's
 * architecture (gzip at level 1 rather than xz, which takes two CPU-minutes; the contents are the release's).
 */
export async function debPackage(): Promise<string> {
  const out = join(CACHE, `dist-${await treeKey()}`);
  const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
  const deb = join(out, `moat_${version}_${DEB_ARCH}.deb`);
  if (!existsSync(deb)) {
    // a build of its own, moved into place whole: test runs of two checkouts may build at once
    const tmp = `${out}.tmp-${process.pid}`;
    await must(["bash", join(ROOT, "scripts/build-deb.sh"), DEB_ARCH], {
      MOAT_DIST: tmp,
      MOAT_DEB_COMPRESSION: "gzip",
      MOAT_DEB_LEVEL: "1",
    });
    if (existsSync(deb)) rmSync(tmp, { recursive: true, force: true });
    else renameSync(tmp, out);
    // one package is kept: the one of the checkout as it is now
    for (const old of readdirSync(CACHE).filter((d) => /^dist-[0-9a-f]{16}$/.test(d) && join(CACHE, d) !== out))
      rmSync(join(CACHE, old), { recursive: true, force: true });
  }
  return deb;
}

export class TestSystem {
  private servers: ReturnType<typeof Bun.spawn>[] = [];
  private constructor(
    private dir: string,
    readonly root: string,
    readonly ns: string,
  ) {}

  static async create(name: string): Promise<TestSystem> {
    const base = await baseRoot();
    const dir = mkdtempSync(join(CACHE, `${name}-`));
    const root = join(dir, "root");
    for (const d of ["upper", "work", "root"]) mkdirSync(join(dir, d));
    await must([
      "mount",
      "-t",
      "overlay",
      "overlay",
      "-o",
      `lowerdir=${base},upperdir=${dir}/upper,workdir=${dir}/work`,
      root,
    ]);
    const ns = `moat-${name}-${process.pid}`;
    await must(["ip", "netns", "add", ns]);
    await must(["ip", "-n", ns, "link", "set", "lo", "up"]);
    return new TestSystem(dir, root, ns);
  }

  /** A command of this machine inside the system's network namespace (dig, curl). */
  inNs(cmd: string[]) {
    return run(["ip", "netns", "exec", this.ns, ...cmd]);
  }

  /** The argv that runs `cmd` inside the system: its root, its network namespace, /proc mounted. */
  private argv(cmd: string[], binds: [string, string][] = []): string[] {
    const mounts = binds.map(([from, to]) => `mount --bind '${from}' "$1${to}" && `).join("");
    return [
      "ip",
      "netns",
      "exec",
      this.ns,
      "unshare",
      "-m",
      "--propagation",
      "private",
      "sh",
      "-c",
      `${mounts}mount -t proc proc "$1/proc" && r=$1 && shift && exec env -i PATH=${PATH} LANG=C.UTF-8 chroot "$r" "$@"`,
      "sh",
      this.root,
      ...cmd,
    ];
  }

  /** Runs `cmd` inside the system; `binds` mounts host files over paths of the system for this command only. */
  exec(cmd: string[], binds: [string, string][] = []) {
    return run(this.argv(cmd, binds));
  }

  /**
   * Starts the installed unit's ExecStart as its User= with its AmbientCapabilities, as systemd would,
   * and waits until the API answers on port 80.
   */
  async startUnit(unitPath: string): Promise<void> {
    const unit = readFileSync(join(this.root, unitPath), "utf8");
    const field = (k: string) => new RegExp(`^${k}=(.*)$`, "m").exec(unit)?.[1]?.trim() ?? "";
    const caps = field("AmbientCapabilities")
      .split(/\s+/)
      .map((c) => `+${c.replace(/^CAP_/, "").toLowerCase()}`)
      .join(",");
    const user = field("User");
    const server = Bun.spawn(
      this.argv([
        "setpriv",
        `--reuid=${user}`,
        `--regid=${field("Group") || user}`,
        "--init-groups",
        `--inh-caps=${caps}`,
        `--ambient-caps=${caps}`,
        ...field("ExecStart").split(/\s+/),
      ]),
      { stdout: "pipe", stderr: "pipe" },
    );
    this.servers.push(server);
    const deadline = Date.now() + 30000;
    while (Date.now() < deadline) {
      const r = await this.inNs([
        "curl",
        "-s",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "http://127.0.0.1/api/info/login",
      ]);
      if (r.stdout === "200") return;
      if (server.exitCode !== null) break;
      await Bun.sleep(200);
    }
    server.kill("SIGTERM");
    const err = await new Response(server.stderr as ReadableStream).text();
    throw new Error(`moat did not answer on port 80 within 30 s: ${err.slice(-2000)}`);
  }

  /** Stops what startUnit started (SIGTERM, as systemctl stop). */
  async stopUnit(): Promise<void> {
    for (const s of this.servers.splice(0)) {
      s.kill("SIGTERM");
      await s.exited;
    }
  }

  async destroy(): Promise<void> {
    await this.stopUnit();
    await run(["ip", "netns", "del", this.ns]);
    await run(["umount", "-l", this.root]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
