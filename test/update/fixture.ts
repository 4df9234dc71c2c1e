// What the update tests share: a signing authority and a stranger's key made with openssl, small ext4 root
// images, bundles made by scripts/build-bundle.sh, and a RAUC "system" of slot files: a system.conf whose
// slots are plain files and whose bootloader is the image's own tryboot backend working on a scratch
// autoboot.txt, served by a real `rauc service` on a private D-Bus session bus.
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server, Subprocess } from "bun";
import { ROOT } from "../harness/moat.ts";
import { makeTestCa, type TestCa } from "../harness/tls-peer.ts";

export const BACKEND = join(ROOT, "scripts/image-lib/rauc/rauc-tryboot");
export const hasRauc = Bun.which("rauc") !== null && Bun.which("mksquashfs") !== null && Bun.which("openssl") !== null;

function sh(cmd: string[], env: Record<string, string> = {}): string {
  const p = Bun.spawnSync(cmd, { env: { ...(process.env as Record<string, string>), ...env }, cwd: ROOT });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed (${p.exitCode}): ${p.stderr.toString()}`);
  return p.stdout.toString();
}

export interface Keys {
  key: string;
  cert: string;
}

export class UpdateFixture {
  readonly dir = mkdtempSync(join(tmpdir(), "moat-update-"));
  readonly project: Keys;
  readonly stranger: Keys;
  private n = 0;
  /** bundle path → the root image inside it */
  readonly rootOf = new Map<string, string>();

  constructor() {
    this.project = this.keyPair("project", "Moat test project");
    this.stranger = this.keyPair("stranger", "Someone else");
  }

  private keyPair(name: string, cn: string): Keys {
    const key = join(this.dir, `${name}.key.pem`);
    const cert = join(this.dir, `${name}.cert.pem`);
    sh([
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "30",
      "-subj",
      `/O=${cn}/CN=${cn}`,
      "-keyout",
      key,
      "-out",
      cert,
    ]);
    return { key, cert };
  }

  /** A 4 MiB ext4 image holding `version` and random bytes (so the squashfs is not all zeros). */
  rootImage(version: string): string {
    const id = ++this.n;
    const content = join(this.dir, `content-${id}`);
    mkdirSync(content);
    writeFileSync(join(content, "version"), `${version}\n`);
    writeFileSync(join(content, "noise"), crypto.getRandomValues(new Uint8Array(48 * 1024)));
    const img = join(this.dir, `root-${id}.ext4`);
    sh(["mkfs.ext4", "-q", "-F", "-d", content, img, "4M"]);
    return img;
  }

  /** scripts/build-bundle.sh with a fresh root image; plain format, as this machine may lack device-mapper. */
  bundle(version: string, opts: { keys?: Keys; compatible?: string; format?: string } = {}): string {
    const keys = opts.keys ?? this.project;
    const out = join(this.dir, `bundle-${version}-${++this.n}.raucb`);
    const root = this.rootImage(version);
    this.rootOf.set(out, root);
    sh([join(ROOT, "scripts/build-bundle.sh"), out, root], {
      MOAT_BUNDLE_VERSION: version,
      MOAT_BUNDLE_KEY: keys.key,
      MOAT_BUNDLE_CERT: keys.cert,
      BUNDLE_FORMAT: opts.format ?? "plain",
      ...(opts.compatible ? { MOAT_BUNDLE_COMPATIBLE: opts.compatible } : {}),
    });
    return out;
  }

  /** The files of a slot-file system (see systemConf). */
  get slots() {
    const d = join(this.dir, "system");
    return {
      conf: join(d, "system.conf"),
      a: join(d, "slotA.img"),
      b: join(d, "slotB.img"),
      autoboot: join(d, "autoboot.txt"),
      state: join(d, "state"),
      cmdline: join(d, "cmdline"),
    };
  }

  /** The environment the tryboot backend reads instead of the Pi's paths. */
  get backendEnv(): Record<string, string> {
    const s = this.slots;
    return { MOAT_AUTOBOOT: s.autoboot, MOAT_RAUC_STATE: s.state, MOAT_CMDLINE: s.cmdline };
  }

  /** A RAUC system.conf like the image's, with slot files, running slot A (partition 2 in autoboot.txt). */
  systemConf(): string {
    const s = this.slots;
    const d = join(this.dir, "system");
    mkdirSync(join(d, "mnt"), { recursive: true });
    mkdirSync(join(d, "rauc-data"), { recursive: true });
    for (const f of [s.a, s.b]) {
      writeFileSync(f, "");
      truncateSync(f, 8 * 1024 * 1024);
    }
    writeFileSync(s.autoboot, "[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=2\n");
    writeFileSync(s.cmdline, "console=tty0 root=PARTUUID=6d6f6174-05 rauc.slot=A rootwait\n");
    writeFileSync(
      s.conf,
      `[system]
compatible=moat-rpi-arm64
bootloader=custom
mountprefix=${join(d, "mnt")}
data-directory=${join(d, "rauc-data")}

[handlers]
bootloader-custom-backend=${BACKEND}

[keyring]
path=${this.project.cert}

[slot.rootfs.0]
device=${s.a}
type=raw
bootname=A

[slot.rootfs.1]
device=${s.b}
type=raw
bootname=B
`,
    );
    return s.conf;
  }

  private bus: Subprocess | undefined;
  private service: Subprocess | undefined;
  /** DBUS_* for rauc's clients: set once startService() ran */
  busEnv: Record<string, string> = {};
  serviceLog = "";

  /** A private session bus and `rauc service` on it (RAUC's clients talk to the service over D-Bus), as booted from `bootedSlot`. */
  async startService(bootedSlot = "A"): Promise<void> {
    const bus = Bun.spawn(["dbus-daemon", "--session", "--nofork", "--print-address=1"], {
      stdout: "pipe",
      stderr: "ignore",
    });
    this.bus = bus;
    const reader = bus.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("dbus-daemon printed no address");
      text += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    this.busEnv = { DBUS_SESSION_BUS_ADDRESS: text.trim(), DBUS_STARTER_BUS_TYPE: "session" };
    this.service = Bun.spawn(["rauc", `--conf=${this.slots.conf}`, "service", `--override-boot-slot=${bootedSlot}`], {
      env: { ...(process.env as Record<string, string>), ...this.busEnv, ...this.backendEnv },
      stdout: "ignore",
      stderr: "pipe",
    });
    void (async () => {
      for await (const c of this.service!.stderr as ReadableStream<Uint8Array>)
        this.serviceLog += new TextDecoder().decode(c);
    })();
    // ready once a client gets an answer
    for (let i = 0; i < 100; i++) {
      const p = Bun.spawnSync(["rauc", `--conf=${this.slots.conf}`, "status", "--output-format=json"], {
        env: { ...(process.env as Record<string, string>), ...this.busEnv },
      });
      if (p.exitCode === 0) return;
      await Bun.sleep(50);
    }
    throw new Error(`rauc service did not start:\n${this.serviceLog}`);
  }

  async dispose(): Promise<void> {
    for (const p of [this.service, this.bus]) {
      if (!p || p.exitCode !== null) continue;
      p.kill("SIGTERM");
      await p.exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Bundles by https URL: a server on 127.0.0.1 with a certificate for localhost from a test authority
 * (Moat trusts it through NODE_EXTRA_CA_CERTS=ca.caFile); `/NAME` serves `files[NAME]`, read at each
 * request, so names may be added after the start.
 */
export function serveBundles(files: Record<string, string>): { ca: TestCa; server: Server<unknown> } {
  const ca = makeTestCa(["localhost"]);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: Bun.file(ca.certFile), key: Bun.file(ca.keyFile) },
    fetch: (req) => {
      const name = new URL(req.url).pathname.slice(1);
      return files[name] ? new Response(Bun.file(files[name])) : new Response("no", { status: 404 });
    },
  });
  return { ca, server };
}
