// The image test's own checks (scripts/image-lib/checks.sh), run for real with bash against a made-up
// /proc: threads that vanish between the listing and the reading are skipped, a missing or not-idle writer
// thread still fails. Plus a syntax check of every image script (the initrd's runs under busybox sh).
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

/** a /proc/<pid>/task/<tid>/stat line: field 41 is the scheduling policy */
function statLine(tid: number, comm: string, policy: number): string {
  const after = Array.from({ length: 38 }, (_, i) => (i === 0 ? "S" : String(i)));
  return `${tid} (${comm}) ${after.join(" ")} ${policy} 0 0 0 0\n`;
}

let n = 0;
/** a fake /proc for PID: threads [tid, comm, policy] plus tids listed but gone (dangling stat links) */
function proc(threads: Array<[number, string, number]>, vanished: number[] = []): string {
  const root = join(dir, `proc-${n++}`);
  for (const [tid, comm, policy] of threads) {
    mkdirSync(join(root, `${PID}/task/${tid}`), { recursive: true });
    writeFileSync(join(root, `${PID}/task/${tid}/stat`), statLine(tid, comm, policy));
  }
  for (const tid of vanished) {
    mkdirSync(join(root, `${PID}/task/${tid}`), { recursive: true });
    symlinkSync(join(root, "gone"), join(root, `${PID}/task/${tid}/stat`));
  }
  return root;
}

/** runs writer_idle with `guest` running its command here, /proc replaced by procRoot */
function writerIdle(procRoot: string) {
  const script = `
    source '${LIB}/common.sh'
    guest() { local c=\${*//\\/proc\\//${procRoot}/}; PATH='${dir}/bin':"$PATH" bash -c "$c"; }
    source '${LIB}/checks.sh'
    writer_idle`;
  const r = Bun.spawnSync(["bash", "-c", script], { env: { PATH: process.env.PATH! } });
  return { code: r.exitCode, log: r.stderr.toString() };
}

describe("writer_idle", () => {
  test("passes with the writer at SCHED_IDLE while other threads have ended between listing and reading", () => {
    const r = writerIdle(proc([[PID, "moat", 0], [PID + 7, "bun:writer", 5]], [PID + 1, PID + 3, PID + 9]));
    expect(r.log).toContain("threads at SCHED_IDLE: 1 of 2");
    expect(r.code).toBe(0);
  });

  test("reads the policy after a thread name with spaces and parentheses", () => {
    const r = writerIdle(proc([[PID, "moat", 0], [PID + 2, "a) b (c) 5", 0], [PID + 3, "w) 1 2", 5]]));
    expect(r.log).toContain("threads at SCHED_IDLE: 1 of 3");
    expect(r.code).toBe(0);
  });

  test("fails when no thread runs at SCHED_IDLE", () => {
    const r = writerIdle(proc([[PID, "moat", 0], [PID + 1, "writer", 0], [PID + 2, "other", 3]], [PID + 5]));
    expect(r.log).toContain("threads at SCHED_IDLE: 0 of 3");
    expect(r.code).not.toBe(0);
  });

  test("fails when the process has gone (every task vanished)", () => {
    const r = writerIdle(proc([], [PID, PID + 1]));
    expect(r.log).toContain("no moat threads");
    expect(r.code).not.toBe(0);
  });
});

describe("image scripts", () => {
  const bashScripts = [
    ...["build-image.sh", "test-image.sh"].map((f) => join(ROOT, "scripts", f)),
    ...readdirSync(LIB).filter((f) => f.endsWith(".sh")).map((f) => join(LIB, f)),
    join(ROOT, "image/rootfs/usr/lib/moat/firstboot"),
  ];
  test.each(bashScripts)("bash parses %s", (f) => {
    const r = Bun.spawnSync(["bash", "-n", f]);
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  });
  // the initrd runs these with busybox sh: no bash-only syntax
  const initrd = ["scripts/local-premount/moat-grow", "hooks/moat-grow"].map((f) => join(ROOT, "image/rootfs/etc/initramfs-tools", f));
  test.each(initrd)("busybox sh parses %s", (f) => {
    const r = Bun.spawnSync(["busybox", "sh", "-n", f]);
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  });
});
