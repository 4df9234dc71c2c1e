// The reboot that starts an installed update, against the real server and the real rauc (fixture.ts): POST
// /api/action/reboot asks for a session, who may change the config, and webserver.api.allow_destructive;
// without RAUC it is refused; on the "image" it writes the request that moat-reboot.path watches and names
// the slot the next boot takes. Then moat-reboot.service's own commands run against that request, with the
// real moat-reboot and a recording systemctl: a plain reboot (U-Boot's boot counters start the trial), and
// none for a request left from an earlier boot.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashPassword } from "../../src/auth/password.ts";
import { ROOT, run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { UpdateFixture, hasRauc } from "./fixture.ts";

const can = hasRauc && Bun.which("dbus-daemon") !== null;
const PASSWORD = "reboot test password";
const APP = "an-application-password-for-reboots";
const UNITS = join(ROOT, "scripts/image-lib/rauc");
const REBOOT = join(UNITS, "moat-reboot");

let fx: UpdateFixture;
let moat: MoatProcess;
let sid = "";
let bundle = "";

beforeAll(async () => {
  if (!can) return;
  fx = new UpdateFixture();
  fx.systemConf();
  await fx.startService();
  bundle = fx.bundle("2.0.0");
  moat = await startMoat({
    env: { FTLCONF_webserver_api_password: PASSWORD, FTLCONF_update_system: fx.slots.conf, ...fx.busEnv },
    configToml: `[webserver.api]\napp_pwhash = "${hashPassword(APP)}"\n`,
  });
  sid = await login(moat);
}, 60000);

afterAll(async () => {
  if (!can) return;
  await moat?.dispose();
  await fx.dispose();
});

async function login(m: MoatProcess, password = PASSWORD): Promise<string> {
  const r = await m.api("/api/auth", { method: "POST", body: JSON.stringify({ password }) });
  return ((await r.json()) as { session: { sid: string } }).session.sid;
}

const reboot = (m: MoatProcess, s: string | null = sid) =>
  m.api("/api/action/reboot", { method: "POST", headers: s ? { sid: s } : {} });
const request = () => join(moat.dataDir, "reboot-request");

async function errorOf(r: Response, status: number) {
  expect(r.status).toBe(status);
  return ((await r.json()) as { error: { key: string; message: string; hint: string | null } }).error;
}

test.skipIf(!can)(
  "without a session it is 401; an app session without app_sudo is 403; nothing is asked for",
  async () => {
    expect((await errorOf(await reboot(moat, null), 401)).key).toBe("unauthorized");
    const app = await errorOf(await reboot(moat, await login(moat, APP)), 403);
    expect(app.message).toBe("Unable to change configuration (read-only)");
    expect(existsSync(request())).toBe(false);
  },
);

test.skipIf(!can)("with webserver.api.allow_destructive off it is 403 as Pi-hole's restartdns is", async () => {
  const set = async (v: boolean) => {
    const r = await moat.api("/api/config", {
      method: "PATCH",
      headers: { sid },
      body: JSON.stringify({ config: { webserver: { api: { allow_destructive: v } } } }),
    });
    expect(r.status).toBe(200);
  };
  await set(false);
  try {
    expect(await errorOf(await reboot(moat), 403)).toEqual({
      key: "forbidden",
      message: "Rebooting is not allowed",
      hint: "Check setting webserver.api.allow_destructive",
    });
    expect(existsSync(request())).toBe(false);
  } finally {
    await set(true);
  }
});

test.skipIf(!can)("without RAUC (not the image) it is 400: updates are available on the Moat image only", async () => {
  const bare = await startMoat({
    env: { FTLCONF_webserver_api_password: PASSWORD, FTLCONF_update_system: join(fx.dir, "no-such-system.conf") },
  });
  try {
    expect(await errorOf(await reboot(bare, await login(bare)), 400)).toEqual({
      key: "bad_request",
      message: "Reboot refused",
      hint: "updates are available on the Moat image only",
    });
    expect(existsSync(join(bare.dataDir, "reboot-request"))).toBe(false);
  } finally {
    await bare.dispose();
  }
});

test.skipIf(!can)("before an install the reboot names the running slot; after one, slot B as a trial", async () => {
  let r = await reboot(moat);
  expect(r.status).toBe(202);
  // every reply of the API also says how long it `took`
  expect(await r.json()).toMatchObject({ status: "rebooting", slot: "A", tryboot: false });
  expect(JSON.parse(readFileSync(request(), "utf8"))).toMatchObject({ slot: "A", tryboot: false });
  // as moat-reboot.service would
  rmSync(request());

  const form = new FormData();
  form.append("file", Bun.file(bundle), "bundle.raucb");
  const install = await moat.api("/api/action/update", { method: "POST", headers: { sid }, body: form });
  expect(await install.text()).toContain("installed version 2.0.0 into the other slot");
  r = await reboot(moat);
  expect(r.status).toBe(202);
  expect(await r.json()).toMatchObject({ status: "rebooting", slot: "B", tryboot: true });
  const written = JSON.parse(readFileSync(request(), "utf8")) as Record<string, unknown>;
  expect(written).toMatchObject({ slot: "B", tryboot: true });
  expect(Date.now() - Date.parse(String(written.at))).toBeLessThan(60000);
  // written whole, by rename: no temporary file stays behind
  expect(existsSync(`${request()}.new`)).toBe(false);
  expect(await moat.outputWith("reboot: requested, the next boot takes slot B as a trial")).toContain(
    "reboot: requested, the next boot takes slot B as a trial",
  );
});

test.skipIf(!can)("while an upload is on its way to an install, the reboot is refused", async () => {
  // a multipart upload that sends its start and then waits: the install is claimed from its first byte
  const boundary = "rebootTestBoundary";
  let finish = () => {};
  const body = new ReadableStream<Uint8Array>({
    async start(out) {
      out.enqueue(
        new TextEncoder().encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.raucb"\r\n\r\n${"x".repeat(4096)}`,
        ),
      );
      await new Promise<void>((res) => {
        finish = res;
      });
      out.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
      out.close();
    },
  });
  const upload = moat.api("/api/action/update", {
    method: "POST",
    headers: { sid, "content-type": `multipart/form-data; boundary=${boundary}` },
    body,
  });
  let refusal: Awaited<ReturnType<typeof errorOf>> | undefined;
  for (let i = 0; i < 100 && !refusal; i++) {
    const r = await reboot(moat);
    if (r.status === 400) refusal = await errorOf(r, 400);
    else {
      expect(r.status).toBe(202);
      await r.arrayBuffer();
      await Bun.sleep(20);
    }
  }
  finish();
  // the upload itself is refused: those bytes are no bundle
  expect((await upload).status).toBe(400);
  expect(refusal).toEqual({
    key: "bad_request",
    message: "Reboot refused",
    hint: "an update is being installed; reboot when it has finished",
  });
  rmSync(request(), { force: true });
});

/** The unit file's `Key=` values, in order. */
function unitValues(file: string, key: string): string[] {
  return readFileSync(join(UNITS, file), "utf8")
    .split("\n")
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));
}

/**
 * moat-reboot.service's ExecStart lines as root runs them on the image, with the image's paths moved to this
 * test's: /etc/moat is the Moat's data directory, moat-reboot is the checkout's, and systemctl records its
 * arguments (one per line) instead of rebooting.
 */
async function runService(): Promise<string[]> {
  const record = join(fx.dir, "systemctl-args");
  const systemctl = join(fx.dir, "systemctl");
  writeFileSync(systemctl, `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\n`);
  chmodSync(systemctl, 0o755);
  rmSync(record, { force: true });
  for (const line of unitValues("moat-reboot.service", "ExecStart")) {
    const argv = line
      .split(" ")
      .map((a) => a.replace("/etc/moat/", `${moat.dataDir}/`).replace("/usr/lib/moat/moat-reboot", REBOOT));
    const r = await run(argv, { env: { MOAT_SYSTEMCTL: systemctl } });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  }
  return readFileSync(record, "utf8").split("\n").slice(0, -1);
}

test.skipIf(!can)(
  "moat-reboot.path watches the file the API writes; its service removes it and reboots plainly",
  async () => {
    expect(unitValues("moat-reboot.path", "PathExists")).toEqual(["/etc/moat/reboot-request"]);
    expect(unitValues("moat-reboot.path", "Unit")).toEqual(["moat-reboot.service"]);
    expect(unitValues("moat-reboot.service", "Type")).toEqual(["oneshot"]);
    // the API writes the request; slot B (the install above) is first in U-Boot's order
    const asked = await reboot(moat);
    expect(asked.status).toBe(202);
    await asked.arrayBuffer();
    expect(existsSync(request())).toBe(true);
    // made in this boot: the service follows it
    expect(JSON.parse(readFileSync(request(), "utf8")).boot).toBe(
      readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
    );
    expect(fx.counters()).toMatchObject({ BOOT_ORDER: "B A", BOOT_B_LEFT: "3" });
    expect(await runService()).toEqual(["reboot"]);
    expect(existsSync(request())).toBe(false);
    // a request without a boot id (an older Moat's) is followed too
    writeFileSync(request(), "{}\n");
    expect(await runService()).toEqual(["reboot"]);
    expect(existsSync(request())).toBe(false);
    // a request a power cut left from an earlier boot is removed and not followed
    writeFileSync(request(), `${JSON.stringify({ boot: "00000000-0000-4000-8000-000000000000" })}\n`);
    rmSync(join(fx.dir, "systemctl-args"), { force: true });
    const stale = await run([REBOOT, request()], { env: { MOAT_SYSTEMCTL: join(fx.dir, "systemctl") } });
    expect(stale.code).toBe(0);
    expect(stale.stderr).toContain("a reboot request from an earlier boot, not followed");
    expect(existsSync(request())).toBe(false);
    expect(existsSync(join(fx.dir, "systemctl-args"))).toBe(false);
  },
);
