// The trial boot's verdict (scripts/image-lib/rauc/moat-health) against the real Moat and the real RAUC
// service: a trial slot whose Moat answers DNS and the API is marked good and becomes autoboot.txt's
// default; one whose DNS does not answer in time is marked bad and rebooted, leaving the old default; a
// boot of the old slot while a trial was pending is noted as a fallback.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, freePort, run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { BACKEND, UpdateFixture, hasRauc } from "./fixture.ts";

const HEALTH = join(ROOT, "scripts/image-lib/rauc/moat-health");
const can = hasRauc && Bun.which("dbus-daemon") !== null;
let fx: UpdateFixture;
let moat: MoatProcess;

beforeAll(async () => {
  if (!can) return;
  fx = new UpdateFixture();
  fx.systemConf();
  // the machine came up on slot B, which autoboot.txt's [tryboot] named: a trial
  await fx.startService("B");
  moat = await startMoat();
});

afterAll(async () => {
  if (!can) return;
  await moat?.dispose();
  await fx.dispose();
});

function trialOf(slot: string, booted: string): void {
  const s = fx.slots;
  mkdirSync(s.state, { recursive: true });
  writeFileSync(join(s.state, "trial"), `${slot}\n`);
  writeFileSync(s.autoboot, "[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n");
  writeFileSync(s.cmdline, `root=PARTUUID=6d6f6174-0${booted === "A" ? 5 : 6} rauc.slot=${booted}\n`);
}

const health = (env: Record<string, string> = {}) =>
  run([HEALTH], {
    env: {
      ...fx.backendEnv,
      ...fx.busEnv,
      MOAT_TRYBOOT: BACKEND,
      MOAT_RAUC_CONF: fx.slots.conf,
      MOAT_DNS_PORT: String(moat.dnsPort),
      MOAT_API_PORT: String(moat.httpPort),
      MOAT_DATA_MOUNT: "/",
      MOAT_REBOOT: `touch ${join(fx.dir, "rebooted")}`,
      MOAT_HEALTH_TIMEOUT: "20",
      ...env,
    },
  });

test.skipIf(!can)("a healthy trial is marked good and becomes the default", async () => {
  trialOf("B", "B");
  const r = await health();
  expect(r.stderr).not.toContain("not healthy");
  expect(r.stdout).toContain("rauc status: marked slot rootfs.1 as good");
  expect(r.stdout.trim().split("\n").at(-1)).toBe("slot B healthy: marked good");
  expect(r.code).toBe(0);
  expect(readFileSync(fx.slots.autoboot, "utf8")).toBe(
    "[all]\ntryboot_a_b=1\nboot_partition=3\n[tryboot]\nboot_partition=3\n",
  );
  expect(existsSync(join(fx.slots.state, "trial"))).toBe(false);
  expect(existsSync(join(fx.dir, "rebooted"))).toBe(false);
});

test.skipIf(!can)(
  "a trial whose DNS does not answer in time is marked bad and rebooted into the old slot",
  async () => {
    trialOf("B", "B");
    const r = await health({ MOAT_DNS_PORT: String(await freePort()), MOAT_HEALTH_TIMEOUT: "1" });
    expect(r.stderr).toContain("slot B not healthy after 1s: marking it bad and going back");
    expect(existsSync(join(fx.dir, "rebooted"))).toBe(true);
    // the default stays A, and RAUC's backend calls B bad (what Moat reports after the fallback)
    expect(readFileSync(fx.slots.autoboot, "utf8")).toContain("[all]\ntryboot_a_b=1\nboot_partition=2\n");
    expect((await run([BACKEND, "get-state", "B"], { env: fx.backendEnv })).stdout.trim()).toBe("bad");
  },
  20_000,
);

test.skipIf(!can)("the old slot booting while a trial was pending is a fallback, noted once", async () => {
  trialOf("B", "A");
  const r = await health();
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toBe("trial of slot B failed; running slot A");
  expect(readFileSync(join(fx.slots.state, "rolled-back"), "utf8")).toContain("trial of slot B failed");
  expect(existsSync(join(fx.slots.state, "trial"))).toBe(false);
  // no trial pending: nothing to decide
  const again = await health();
  expect(again.stdout).toBe("");
  expect(again.code).toBe(0);
});
