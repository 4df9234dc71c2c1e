// What the update tests share: a signing authority and a stranger's key made with openssl, small ext4 root
// images, bundles made by scripts/build-bundle.sh, and a RAUC "system" of slot files: a system.conf whose
// slots are plain files and whose bootloader is RAUC's U-Boot backend, as on the image, working on a scratch
// pair moat-boot.env and moat-boot-redund.env (the boot counters of image/boot/boot.cmd, two copies) through
// the real fw_printenv/fw_setenv, served by a real `rauc service` on a private D-Bus session bus.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server, Subprocess } from "bun";
import { ROOT } from "../harness/moat.ts";
import { makeTestCa, type TestCa } from "../harness/tls-peer.ts";

export const hasRauc = ["rauc", "mksquashfs", "openssl", "fw_printenv", "fw_setenv", "mkenvimage"].every(
  (t) => Bun.which(t) !== null,
);

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

  keyPair(name: string, cn: string): Keys {
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
      /** the boot counters' two copies (image/boot/boot.cmd), as on partition 1 */
      bootEnv: [join(d, "moat-boot.env"), join(d, "moat-boot-redund.env")],
      fwConfig: join(d, "fw_env.config"),
      bin: join(d, "bin"),
      state: join(d, "state"),
      cmdline: join(d, "cmdline"),
    };
  }

  /** The environment RAUC's backend needs here: fw_printenv/fw_setenv that use this system's moat-boot.env
   * (on the image they read /etc/fw_env.config). */
  get backendEnv(): Record<string, string> {
    return { PATH: `${this.slots.bin}:${process.env.PATH}` };
  }

  /** The boot counters as U-Boot's script would read them (BOOT_ORDER, BOOT_A_LEFT, BOOT_B_LEFT). */
  counters(): Record<string, string> {
    const out = sh(["fw_printenv", "-c", this.slots.fwConfig]);
    return Object.fromEntries(
      out
        .trim()
        .split("\n")
        .map((l) => l.split("=", 2) as [string, string]),
    );
  }

  /** Sets boot counters, as U-Boot's script does when it takes a try. */
  setCounters(vars: Record<string, string>): void {
    for (const [k, v] of Object.entries(vars)) sh(["fw_setenv", "-c", this.slots.fwConfig, k, v]);
  }

  /** A RAUC system.conf like the image's, with slot files, running slot A: a new card's counters. */
  systemConf(): string {
    const s = this.slots;
    const d = join(this.dir, "system");
    mkdirSync(join(d, "mnt"), { recursive: true });
    mkdirSync(join(d, "rauc-data"), { recursive: true });
    mkdirSync(s.bin, { recursive: true });
    for (const f of [s.a, s.b]) {
      writeFileSync(f, "");
      truncateSync(f, 8 * 1024 * 1024);
    }
    writeFileSync(join(d, "env.txt"), "BOOT_ORDER=A B\nBOOT_A_LEFT=3\nBOOT_B_LEFT=0\n");
    for (const f of s.bootEnv) sh(["mkenvimage", "-r", "-s", "0x4000", "-o", f, join(d, "env.txt")]);
    writeFileSync(s.fwConfig, s.bootEnv.map((f) => `${f} 0x0000 0x4000\n`).join(""));
    for (const tool of ["fw_printenv", "fw_setenv"]) {
      const real = Bun.which(tool)!;
      writeFileSync(join(s.bin, tool), `#!/bin/sh\nexec ${real} -c ${s.fwConfig} "$@"\n`);
      chmodSync(join(s.bin, tool), 0o755);
    }
    writeFileSync(s.cmdline, "console=tty0 root=PARTUUID=6d6f6174-05 rauc.slot=A rootwait\n");
    writeFileSync(
      s.conf,
      `[system]
compatible=moat-rpi-arm64
bootloader=uboot
boot-attempts=3
boot-attempts-primary=3
mountprefix=${join(d, "mnt")}
data-directory=${join(d, "rauc-data")}

[keyring]
path=${this.keyring ?? this.project.cert}

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

  /** The keyring systemConf() names, when not the project's certificate alone. */
  keyring: string | undefined;

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
