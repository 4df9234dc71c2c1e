// The boot's verdict (scripts/image-lib/rauc/moat-health) against the real Moat, the real RAUC service and
// RAUC's U-Boot backend on a scratch copy of the boot counters (fixture.ts): the confirmed slot gets its try
// back at once; a trial slot whose Moat answers DNS and the API is marked good (3 tries) and becomes the
// confirmed one; one whose DNS does not answer in time is marked bad (0 tries: U-Boot boots the other slot)
// and rebooted.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, freePort, run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { UpdateFixture, hasRauc } from "./fixture.ts";

const HEALTH = join(ROOT, "scripts/image-lib/rauc/moat-health");
const can = hasRauc && Bun.which("dbus-daemon") !== null;
let fx: UpdateFixture;
let moat: MoatProcess;

beforeAll(async () => {
  if (!can) return;
  fx = new UpdateFixture();
  fx.systemConf();
  // the machine came up on slot B, which RAUC had put first after an install
  await fx.startService("B");
  moat = await startMoat();
});

afterAll(async () => {
  if (!can) return;
  await moat?.dispose();
  await fx.dispose();
});

/** The counters and the confirmed slot as a boot of `booted` leaves them, after an install into B. */
function bootOf(booted: string, confirmed: string | null): void {
  const s = fx.slots;
  mkdirSync(s.state, { recursive: true });
  rmSync(join(s.state, "confirmed"), { force: true });
  if (confirmed) writeFileSync(join(s.state, "confirmed"), `${confirmed}\n`);
  // U-Boot took one of B's 3 tries
  fx.setCounters({ BOOT_ORDER: "B A", BOOT_A_LEFT: "3", BOOT_B_LEFT: "2" });
  writeFileSync(s.cmdline, `root=PARTUUID=6d6f6174-0${booted === "A" ? 5 : 6} rauc.slot=${booted}\n`);
}

const health = (env: Record<string, string> = {}) =>
  run([HEALTH], {
    env: {
      ...fx.backendEnv,
      ...fx.busEnv,
      MOAT_RAUC_STATE: fx.slots.state,
      MOAT_CMDLINE: fx.slots.cmdline,
      MOAT_RAUC_CONF: fx.slots.conf,
      MOAT_DNS_PORT: String(moat.dnsPort),
      MOAT_API_PORT: String(moat.httpPort),
      MOAT_DATA_MOUNT: "/",
      MOAT_REBOOT: `touch ${join(fx.dir, "rebooted")}`,
      MOAT_HEALTH_TIMEOUT: "20",
      ...env,
    },
  });
const confirmed = () => readFileSync(join(fx.slots.state, "confirmed"), "utf8").trim();

test.skipIf(!can)("a healthy trial is marked good (its tries back to 3) and becomes the confirmed slot", async () => {
  bootOf("B", "A");
  const r = await health();
  expect(r.stderr).not.toContain("not healthy");
  expect(r.stdout).toContain("slot B is a trial (slot A is the confirmed one)");
  expect(r.stdout).toContain("rauc status: marked slot rootfs.1 as good");
  expect(r.stdout.trim().split("\n").at(-1)).toBe("slot B healthy: marked good");
  expect(r.code).toBe(0);
  expect(fx.counters()).toEqual({ BOOT_ORDER: "B A", BOOT_A_LEFT: "3", BOOT_B_LEFT: "3" });
  expect(confirmed()).toBe("B");
  expect(existsSync(join(fx.dir, "rebooted"))).toBe(false);
});

test.skipIf(!can)(
  "a trial whose DNS does not answer in time is marked bad and rebooted, so U-Boot boots the old slot",
  async () => {
    bootOf("B", "A");
    const r = await health({ MOAT_DNS_PORT: String(await freePort()), MOAT_HEALTH_TIMEOUT: "1" });
    expect(r.stderr).toContain("slot B not healthy after 1s: marking it bad and going back to slot A");
    expect(existsSync(join(fx.dir, "rebooted"))).toBe(true);
    // RAUC's mark-bad takes B out of U-Boot's order and its tries away: the next boot is A's; RAUC calls B
    // bad (what Moat reports)
    expect(fx.counters()).toEqual({ BOOT_ORDER: "A", BOOT_A_LEFT: "3", BOOT_B_LEFT: "0" });
    const st = await run(["rauc", `--conf=${fx.slots.conf}`, "status", "--output-format=json"], { env: fx.busEnv });
    expect(st.stdout).toContain('"boot_status":"bad"');
    expect(confirmed()).toBe("A");
  },
  20_000,
);

test.skipIf(!can)("the confirmed slot gets its try back at once, healthy or not; a new card's first", async () => {
  rmSync(join(fx.dir, "rebooted"), { force: true });
  bootOf("B", "B");
  const r = await health({ MOAT_DNS_PORT: String(await freePort()), MOAT_HEALTH_TIMEOUT: "1" });
  expect(r.stdout.trim().split("\n").at(-1)).toBe("slot B (the confirmed one) marked good");
  expect(r.code).toBe(0);
  expect(fx.counters()).toMatchObject({ BOOT_B_LEFT: "3" });
  expect(existsSync(join(fx.dir, "rebooted"))).toBe(false);
  // nothing confirmed yet (a new card): the booted slot is the one there is
  bootOf("B", null);
  const first = await health();
  expect(first.stdout.trim().split("\n").at(-1)).toBe("slot B (the confirmed one) marked good");
  expect(confirmed()).toBe("B");
});
