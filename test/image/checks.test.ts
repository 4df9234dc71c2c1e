// The image test's own checks (scripts/image-lib/checks.sh), run for real with bash against a made-up
// /proc: threads that vanish between the listing and the reading are skipped, a main thread at another
// niceness than misc.nice's or a missing or not-idle writer thread still fails; the listener check against made-up `ss -Htulpn` output: every expected listener must
// be there and nothing else. Plus a syntax check of every image script (the initrd's runs under busybox sh).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, chmodSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const LIB = join(ROOT, "scripts/image-lib");
const PID = 4242;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "moat-image-checks-"));
  mkdirSync(join(dir, "bin"));
  // the guest's systemctl: moat's main process is PID
  writeFileSync(join(dir, "bin/systemctl"), `#!/bin/sh\necho ${PID}\n`);
  chmodSync(join(dir, "bin/systemctl"), 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** a /proc/<pid>/task/<tid>/stat line: field 19 is the niceness, field 41 the scheduling policy */
function statLine(tid: number, comm: string, policy: number, nice: number): string {
  const after = Array.from({ length: 38 }, (_, i) => (i === 0 ? "S" : i === 16 ? String(nice) : String(i)));
  return `${tid} (${comm}) ${after.join(" ")} ${policy} 0 0 0 0\n`;
}

let n = 0;
/** a fake /proc for PID: threads [tid, comm, policy, nice] plus tids listed but gone (dangling stat links) */
function proc(threads: Array<[number, string, number, number]>, vanished: number[] = []): string {
  const root = join(dir, `proc-${n++}`);
  for (const [tid, comm, policy, nice] of threads) {
    mkdirSync(join(root, `${PID}/task/${tid}`), { recursive: true });
    writeFileSync(join(root, `${PID}/task/${tid}/stat`), statLine(tid, comm, policy, nice));
  }
  for (const tid of vanished) {
    mkdirSync(join(root, `${PID}/task/${tid}`), { recursive: true });
    symlinkSync(join(root, "gone"), join(root, `${PID}/task/${tid}/stat`));
  }
  return root;
}

/** runs `priorities_set -10` with `guest` running its command here, /proc replaced by procRoot */
function prioritiesSet(procRoot: string) {
  const script = `
    source '${LIB}/common.sh'
    guest() { local c=\${*//\\/proc\\//${procRoot}/}; PATH='${dir}/bin':"$PATH" bash -c "$c"; }
    source '${LIB}/checks.sh'
    priorities_set -10`;
  const r = Bun.spawnSync(["bash", "-c", script], { env: { PATH: process.env.PATH! } });
  return { code: r.exitCode, log: r.stderr.toString() };
}

// as Moat runs: the main thread at misc.nice's -10, the writer (which inherited it) at nice 19 and SCHED_IDLE
describe("priorities_set", () => {
  test("passes with the main thread at -10 and the writer at SCHED_IDLE while other threads have ended between listing and reading", () => {
    const r = prioritiesSet(
      proc(
        [
          [PID, "moat", 0, -10],
          [PID + 7, "bun:writer", 5, 19],
        ],
        [PID + 1, PID + 3, PID + 9],
      ),
    );
    expect(r.log).toContain(`main thread ${PID} at nice -10; threads at SCHED_IDLE: 1 of 2`);
    expect(r.code).toBe(0);
  });

  test("reads the niceness and policy after a thread name with spaces and parentheses", () => {
    const r = prioritiesSet(
      proc([
        [PID, "m) 0 (x) -10", 0, -10],
        [PID + 2, "a) b (c) 5", 0, -10],
        [PID + 3, "w) 1 2", 5, 19],
      ]),
    );
    expect(r.log).toContain(`main thread ${PID} at nice -10; threads at SCHED_IDLE: 1 of 3`);
    expect(r.code).toBe(0);
  });

  test("fails when the main thread runs at another niceness (misc.nice refused), the writer idle as before", () => {
    const r = prioritiesSet(
      proc([
        [PID, "moat", 0, 0],
        [PID + 1, "dns", 0, -10],
        [PID + 7, "bun:writer", 5, 19],
      ]),
    );
    expect(r.log).toContain(`main thread ${PID} at nice 0; threads at SCHED_IDLE: 1 of 3`);
    expect(r.code).not.toBe(0);
  });

  test("fails when the main thread is not among those read (ended between listing and reading)", () => {
    const r = prioritiesSet(
      proc(
        [
          [PID + 1, "dns", 0, -10],
          [PID + 7, "bun:writer", 5, 19],
        ],
        [PID],
      ),
    );
    expect(r.log).toContain(`main thread ${PID} at nice ?; threads at SCHED_IDLE: 1 of 2`);
    expect(r.code).not.toBe(0);
  });

  test("fails when no thread runs at SCHED_IDLE", () => {
    const r = prioritiesSet(
      proc(
        [
          [PID, "moat", 0, -10],
          [PID + 1, "writer", 0, 19],
          [PID + 2, "other", 3, -10],
        ],
        [PID + 5],
      ),
    );
    expect(r.log).toContain("threads at SCHED_IDLE: 0 of 3");
    expect(r.code).not.toBe(0);
  });

  test("fails when the process has gone (every task vanished)", () => {
    const r = prioritiesSet(proc([], [PID, PID + 1]));
    expect(r.log).toContain("no moat threads");
    expect(r.code).not.toBe(0);
  });
});

/** runs compare_listeners (checks.sh) on ss output with the appliance's listeners wanted */
function compareListeners(ss: string, want: string, may = "") {
  const script = `
    source '${LIB}/common.sh'
    source '${LIB}/checks.sh'
    compare_listeners "$SS" "$WANT" "$MAY"`;
  const r = Bun.spawnSync(["bash", "-c", script], { env: { PATH: process.env.PATH!, SS: ss, WANT: want, MAY: may } });
  return { code: r.exitCode, log: r.stderr.toString() };
}

// as `ss -Htulpn` prints them in the guest (IPv4 and IPv6 sockets, a device-bound one, two processes on a port)
const SS_LINES = {
  dns: [
    'udp   UNCONN 0      0            0.0.0.0:53         0.0.0.0:*    users:(("moat",pid=612,fd=20))',
    'udp   UNCONN 0      0               [::]:53            [::]:*    users:(("moat",pid=612,fd=21))',
    'tcp   LISTEN 0      512          0.0.0.0:53         0.0.0.0:*    users:(("moat",pid=612,fd=22))',
    'tcp   LISTEN 0      512             [::]:53            [::]:*    users:(("moat",pid=612,fd=24))',
  ],
  http: ['tcp   LISTEN 0      511                *:80               *:*    users:(("moat",pid=612,fd=23))'],
  https: ['tcp   LISTEN 0      511                *:443              *:*    users:(("moat",pid=612,fd=26))'],
  dot: ['tcp   LISTEN 0      511          0.0.0.0:853        0.0.0.0:*    users:(("moat",pid=612,fd=27))'],
  ntp: [
    'udp   UNCONN 0      0            0.0.0.0:123        0.0.0.0:*    users:(("moat",pid=612,fd=25))',
    'udp   UNCONN 0      0               [::]:123           [::]:*    users:(("moat",pid=612,fd=28))',
  ],
  ssh: [
    'tcp   LISTEN 0      128          0.0.0.0:22         0.0.0.0:*    users:(("sshd",pid=500,fd=3),("systemd",pid=1,fd=60))',
  ],
  dhcpServer: ['udp   UNCONN 0      0       0.0.0.0%eth0:67         0.0.0.0:*    users:(("moat",pid=612,fd=31))'],
  dhcpClient: [
    'udp   UNCONN 0      0     10.0.2.15%eth0:68         0.0.0.0:*    users:(("systemd-network",pid=300,fd=22))',
  ],
};
const APPLIANCE = "udp/53/moat tcp/53/moat tcp/80/moat tcp/443/moat tcp/853/moat udp/123/moat tcp/22/sshd";
const CLIENTS = "udp/68/systemd-network udp/546/systemd-network";
const ss = (...groups: string[][]) => groups.flat().join("\n");
const { dns, http, https, dot, ntp, ssh, dhcpServer, dhcpClient } = SS_LINES;

describe("compare_listeners", () => {
  test("passes with exactly the wanted listeners, each counted once over IPv4 and IPv6", () => {
    const r = compareListeners(ss(dns, http, https, dot, ntp, ssh), APPLIANCE, CLIENTS);
    expect(r.log).toContain(
      "listening: tcp/22/sshd tcp/443/moat tcp/53/moat tcp/80/moat tcp/853/moat udp/123/moat udp/53/moat",
    );
    expect(r.code).toBe(0);
  });

  test("an allowed listener may be there or not (the DHCP client of a Pi that takes its address by DHCP)", () => {
    expect(compareListeners(ss(dns, http, https, dot, ntp, ssh, dhcpClient), APPLIANCE, CLIENTS).code).toBe(0);
  });

  test("fails when a wanted listener is missing", () => {
    const r = compareListeners(ss(dns, http, https, ntp, ssh), APPLIANCE, CLIENTS);
    expect(r.log).toContain("missing: tcp/853/moat");
    expect(r.code).not.toBe(0);
  });

  test("fails on anything else that listens, Moat's own unexpected ports included", () => {
    const rpc = 'tcp   LISTEN 0      4096         0.0.0.0:111        0.0.0.0:*    users:(("rpcbind",pid=1,fd=4))';
    const r = compareListeners(ss(dns, http, https, dot, ntp, ssh, dhcpServer, [rpc]), APPLIANCE, CLIENTS);
    expect(r.log).toContain("unexpected: tcp/111/rpcbind udp/67/moat");
    expect(r.code).not.toBe(0);
  });

  test("DHCP's port 67 is wanted once the settings file switched DHCP on, and the client's 68 is not allowed there", () => {
    expect(compareListeners(ss(dns, http, https, dot, ntp, ssh, dhcpServer), `${APPLIANCE} udp/67/moat`).code).toBe(0);
    const r = compareListeners(ss(dns, http, https, dot, ntp, ssh, dhcpServer, dhcpClient), `${APPLIANCE} udp/67/moat`);
    expect(r.log).toContain("unexpected: udp/68/systemd-network");
    expect(r.code).not.toBe(0);
  });

  test("a port held by another process than the wanted one does not count", () => {
    const other = 'tcp   LISTEN 0      128          0.0.0.0:853        0.0.0.0:*    users:(("stunnel4",pid=7,fd=3))';
    const r = compareListeners(ss(dns, http, https, [other], ntp, ssh), APPLIANCE, CLIENTS);
    expect(r.log).toContain("missing: tcp/853/moat");
    expect(r.log).toContain("unexpected: tcp/853/stunnel4");
    expect(r.code).not.toBe(0);
  });
});

describe("image scripts", () => {
  const bashScripts = [
    ...["build-image.sh", "test-image.sh"].map((f) => join(ROOT, "scripts", f)),
    ...readdirSync(LIB)
      .filter((f) => f.endsWith(".sh"))
      .map((f) => join(LIB, f)),
    join(ROOT, "image/rootfs/usr/lib/moat/firstboot"),
  ];
  test.each(bashScripts)("bash parses %s", (f) => {
    const r = Bun.spawnSync(["bash", "-n", f]);
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  });
  // the initrd runs these with busybox sh: no bash-only syntax
  const initrd = ["scripts/local-premount/moat-grow", "hooks/moat-grow"].map((f) =>
    join(ROOT, "image/rootfs/etc/initramfs-tools", f),
  );
  test.each(initrd)("busybox sh parses %s", (f) => {
    const r = Bun.spawnSync(["busybox", "sh", "-n", f]);
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  });
});
