// A test LAN: a network namespace per client device, joined to the root namespace (where Moat runs)
// by a veth pair whose root end carries a private test subnet. Nothing touches the host's own
// interfaces; everything made here is removed by dispose(), also after a failed test.
import { mkdtempSync, rmSync, writeFileSync, chmodSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function sh(cmd: string[], opts: { allowFail?: boolean } = {}): string {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0 && !opts.allowFail)
    throw new Error(`${cmd.join(" ")} failed (${p.exitCode}): ${p.stderr.toString()}`);
  return p.stdout.toString();
}

/** Whether this machine lets the tests make namespaces (root with iproute2). */
export function canMakeNamespaces(): boolean {
  if (process.getuid?.() !== 0) return false;
  return Bun.spawnSync(["ip", "netns", "list"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
}

export interface Device {
  ns: string;
  /** the interface inside the namespace */
  ifname: string;
  mac: string;
  /** runs a command inside the device's namespace */
  exec(cmd: string[], opts?: { allowFail?: boolean }): string;
  spawn(cmd: string[]): ReturnType<typeof Bun.spawn>;
}

const usedOctets = new Set<number>();
function freshOctet(): number {
  for (;;) {
    const o = 10 + Math.floor(Math.random() * 240);
    if (!usedOctets.has(o)) return (usedOctets.add(o), o);
  }
}

export class TestLan {
  readonly tag = Math.random().toString(36).slice(2, 7);
  /** third octet of 10.77.x.0/24: never the same twice in one run, and random so parallel runs rarely meet */
  readonly octet = freshOctet();
  readonly hostIf = `mh${this.tag}`;
  readonly bridge = `mb${this.tag}`;
  readonly dir = mkdtempSync(join(tmpdir(), "moat-lan-"));
  private devices: Device[] = [];
  private procs: Array<ReturnType<typeof Bun.spawn>> = [];

  get prefix(): string {
    return `10.77.${this.octet}`;
  }
  get hostIp(): string {
    return `${this.prefix}.1`;
  }

  /** The root end: a bridge with Moat's address, so several devices share one segment. */
  up(): this {
    sh(["ip", "link", "add", this.bridge, "type", "bridge"]);
    sh(["ip", "addr", "add", `${this.hostIp}/24`, "dev", this.bridge]);
    sh(["ip", "link", "set", this.bridge, "up"]);
    return this;
  }

  addDevice(mac: string): Device {
    const i = this.devices.length;
    const ns = `mn${this.tag}${i}`;
    const outer = `mv${this.tag}${i}`;
    sh(["ip", "netns", "add", ns]);
    const dev: Device = {
      ns,
      ifname: "eth0",
      mac,
      exec: (cmd, opts) => sh(["ip", "netns", "exec", ns, ...cmd], opts),
      spawn: (cmd) => {
        const p = Bun.spawn(["ip", "netns", "exec", ns, ...cmd], { stdout: "pipe", stderr: "pipe" });
        this.procs.push(p);
        return p;
      },
    };
    this.devices.push(dev);
    sh(["ip", "link", "add", outer, "type", "veth", "peer", "name", "eth0", "netns", ns]);
    sh(["ip", "link", "set", outer, "master", this.bridge]);
    sh(["ip", "link", "set", outer, "up"]);
    dev.exec(["ip", "link", "set", "eth0", "address", mac]);
    dev.exec(["ip", "link", "set", "lo", "up"]);
    dev.exec(["ip", "link", "set", "eth0", "up"]);
    return dev;
  }

  /** A script file (mode 0755) in the LAN's directory. */
  script(name: string, body: string): string {
    const path = join(this.dir, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  read(name: string): string {
    const path = join(this.dir, name);
    return existsSync(path) ? readFileSync(path, "utf8") : "";
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  async dispose(): Promise<void> {
    for (const p of this.procs) p.kill("SIGKILL");
    await Promise.all(this.procs.map((p) => p.exited));
    for (const d of this.devices) {
      // dhclient daemons live in the namespace: end them before it goes
      for (const pid of sh(["ip", "netns", "pids", d.ns], { allowFail: true }).split(/\s+/).filter(Boolean)) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // already gone
        }
      }
      sh(["ip", "netns", "del", d.ns], { allowFail: true });
    }
    sh(["ip", "link", "del", this.bridge], { allowFail: true });
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Polls until fn returns a value (not undefined/false) or the time is up. */
export async function waitFor<T>(fn: () => T | Promise<T>, ms = 10000, what = "condition"): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== null && v !== false) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

/** a second DHCP server (dnsmasq) on the test LAN, at <prefix>.2, as a home router would run one */
export async function startRogueServer(lan: TestLan, mac: string): Promise<void> {
  const rogue = lan.addDevice(mac);
  rogue.exec(["ip", "addr", "add", `${lan.prefix}.2/24`, "dev", "eth0"]);
  rogue.exec(["ip", "route", "add", "default", "dev", "eth0"]); // a router has one; broadcasts need a route
  rogue.spawn([
    "dnsmasq",
    "--keep-in-foreground",
    "--conf-file=/dev/null",
    "--port=0",
    "--user=root",
    "--interface=eth0",
    `--dhcp-range=${lan.prefix}.150,${lan.prefix}.160,1h`,
    `--dhcp-leasefile=${lan.path("rogue.leases")}`,
    `--pid-file=${lan.path("rogue.pid")}`,
  ]);
  await Bun.sleep(500); // dnsmasq listening
}
