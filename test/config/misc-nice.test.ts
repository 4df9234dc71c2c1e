// misc.nice as Pi-hole's FTL applies it at start (default -10): the thread that answers DNS gets it,
// -999 leaves the priority alone, and a system that refuses it gets a warning in the log, not a crash.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

const started: MoatProcess[] = [];
afterAll(() => Promise.all(started.map((m) => m.dispose())));

/** The niceness of Moat's main thread (the one that answers DNS at the defaults): field 19 of its stat. */
function niceOf(m: MoatProcess): number {
  const st = readFileSync(`/proc/${m.proc!.pid}/task/${m.proc!.pid}/stat`, "utf8");
  return Number(st.slice(st.lastIndexOf(")") + 2).split(" ")[16]);
}

async function start(env: Record<string, string> = {}): Promise<MoatProcess> {
  const m = await startMoat({ env });
  started.push(m);
  return m;
}

/** Whether this machine lets a process raise its priority to -10 (root with CAP_SYS_NICE, or a nice limit) */
const mayRaise =
  Bun.spawnSync([process.execPath, "-e", 'require("node:os").setPriority(-10)'], { stderr: "ignore" }).exitCode === 0;

test("the default -10 is set on the thread that answers DNS, or a warning says why not", async () => {
  const m = await start();
  if (mayRaise) expect(niceOf(m)).toBe(-10);
  else {
    expect(niceOf(m)).toBe(getPriority());
    expect(await m.outputWith("Cannot set the process priority to -10")).toContain("CAP_SYS_NICE");
  }
}, 30000);

test("-999 leaves the priority as it was; a higher value is set for anyone", async () => {
  const [unchanged, lower] = await Promise.all([
    start({ FTLCONF_misc_nice: "-999" }),
    start({ FTLCONF_misc_nice: "5" }),
  ]);
  expect(niceOf(unchanged)).toBe(getPriority());
  expect(niceOf(lower)).toBe(5);
}, 30000);

// setpriv drops the capability (for root, which has it); where it is not held the first test saw the refusal
test.if(mayRaise && Bun.which("setpriv") !== null)(
  "refused (no CAP_SYS_NICE): the priority stays and the warning says what allows it",
  () => {
    const p = Bun.spawnSync(
      [
        "setpriv",
        "--inh-caps=-sys_nice",
        "--bounding-set=-sys_nice",
        process.execPath,
        "-e",
        `const { applyNice } = await import(${JSON.stringify(join(import.meta.dir, "../../src/core/process-priority.ts"))}); console.log(JSON.stringify([applyNice(-10), require("node:os").getPriority()]));`,
      ],
      { stderr: "pipe" },
    );
    const [warning, nice] = JSON.parse(p.stdout.toString()) as [string, number];
    expect(warning).toBe(
      `Cannot set the process priority to -10 (misc.nice): not permitted (a lower value needs CAP_SYS_NICE or a nice limit that allows it: systemd's LimitNICE=, Docker's --ulimit nice=); it stays at ${getPriority()}, so DNS answers may wait for a core while other programs keep this machine busy. misc.nice = -999 leaves the priority alone.`,
    );
    expect(nice).toBe(getPriority());
  },
);
