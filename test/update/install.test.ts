// Firmware updates through the real CLI and the real server, with the real rauc: RAUC's service runs on a
// private D-Bus with slot *files* and RAUC's U-Boot backend on a scratch copy of the boot counters (fixture.ts).
// Bundles signed by another key, truncated, or built for another system are refused with a sentence and
// change nothing; a good one (file, upload, https URL) lands in the other slot, which goes first in BOOT_ORDER
// with 3 tries. The keyring holds the project's certificate and the next key's (rotation, scripts/build-bundle.sh
// --keyring): a bundle signed with the next key installs too.
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { writeLast } from "../../src/update/last.ts";
import { BUN, ROOT, run, startMoat, type MoatProcess } from "../harness/moat.ts";
import type { TestCa } from "../harness/tls-peer.ts";
import { UpdateFixture, hasRauc, serveBundles } from "./fixture.ts";

const MAIN = join(ROOT, "src/main.ts");
const can = hasRauc && Bun.which("dbus-daemon") !== null;

let fx: UpdateFixture;
let moat: MoatProcess;
let ca: TestCa;
let https: Server<unknown>;
let cliData: string;
const bundles: Record<string, string> = {};

beforeAll(async () => {
  if (!can) return;
  fx = new UpdateFixture();
  const next = fx.keyPair("next", "Moat test project, next key");
  fx.keyring = join(fx.dir, "keyring.pem");
  const keyring = await run([join(ROOT, "scripts/build-bundle.sh"), "--keyring"], {
    env: { MOAT_BUNDLE_KEY: fx.project.key, MOAT_BUNDLE_CERT: fx.project.cert, MOAT_BUNDLE_NEXT_CERT: next.cert },
  });
  expect(keyring.code).toBe(0);
  writeFileSync(fx.keyring, keyring.stdout);
  fx.systemConf();
  await fx.startService();
  bundles.rotated = fx.bundle("7.0.0", { keys: next });
  bundles.v2 = fx.bundle("2.0.0");
  bundles.v3 = fx.bundle("3.0.0");
  bundles.v4 = fx.bundle("4.0.0");
  bundles.v5 = fx.bundle("5.0.0");
  bundles.stranger = fx.bundle("9.0.0", { keys: fx.stranger });
  bundles.other = fx.bundle("9.0.1", { compatible: "moat-x86-64" });
  const whole = readFileSync(bundles.v2);
  bundles.truncated = join(fx.dir, "truncated.raucb");
  writeFileSync(bundles.truncated, whole.subarray(0, Math.floor(whole.length / 2)));
  // one byte of the payload changed (plain bundles sign the whole payload)
  const damaged = Buffer.from(whole);
  damaged[1000] = damaged[1000]! ^ 0xff;
  bundles.damaged = join(fx.dir, "damaged.raucb");
  writeFileSync(bundles.damaged, damaged);
  ({ ca, server: https } = serveBundles(bundles));
  moat = await startMoat({
    env: { FTLCONF_update_system: fx.slots.conf, NODE_EXTRA_CA_CERTS: ca.caFile, ...fx.busEnv },
  });
  cliData = mkdtempSync(join(tmpdir(), "moat-update-cli-"));
  // as on the image: the data directory is Moat's user's, `moat update` runs as root
  if (process.getuid?.() === 0) chownSync(cliData, 65534, 65534);
});

afterAll(async () => {
  if (!can) return;
  await moat?.dispose();
  https?.stop(true);
  ca?.dispose();
  rmSync(cliData, { recursive: true, force: true });
  await fx.dispose();
});

const cli = (...args: string[]) =>
  run([BUN, MAIN, "update", ...args, "--data-dir", cliData], {
    env: { FTLCONF_update_system: fx.slots.conf, ...fx.busEnv },
  });
const slotB = () => readFileSync(fx.slots.b);
const zeros = (b: Buffer) => b.every((x) => x === 0);

async function upload(path: string): Promise<Response> {
  const form = new FormData();
  form.append("file", Bun.file(path), "bundle.raucb");
  return moat.api("/api/action/update", { method: "POST", body: form });
}
const refusalOf = async (r: Response) => {
  expect(r.status).toBe(400);
  const body = (await r.json()) as { error: { message: string; hint: string } };
  expect(body.error.message).toBe("Update refused");
  return body.error.hint;
};

test.skipIf(!can)(
  "the CLI refuses a stranger's, a truncated, a damaged and another system's bundle, and nothing changes",
  async () => {
    const expectations: [string, string][] = [
      [bundles.stranger!, "moat: the bundle is not signed by this system's update key: refused"],
      [bundles.truncated!, "moat: the bundle is truncated or corrupt: refused"],
      [bundles.damaged!, "moat: the bundle is damaged (its content does not match its signature): refused"],
      [bundles.other!, "moat: the bundle is built for moat-x86-64, this is moat-rpi-arm64: refused"],
    ];
    for (const [bundle, line] of expectations) {
      const r = await cli(bundle);
      expect(r.stderr.trim()).toBe(line);
      expect(r.code).toBe(1);
    }
    expect(zeros(slotB())).toBe(true);
    expect(fx.counters()).toEqual({ BOOT_ORDER: "A B", BOOT_A_LEFT: "3", BOOT_B_LEFT: "0" });
    // by URL the same: downloaded, then the signature decides
    const byUrl = await run([BUN, MAIN, "update", `https://localhost:${https.port}/stranger`, "--data-dir", cliData], {
      env: { FTLCONF_update_system: fx.slots.conf, NODE_EXTRA_CA_CERTS: ca.caFile, ...fx.busEnv },
    });
    expect(byUrl.stderr.trim()).toBe("moat: the bundle is not signed by this system's update key: refused");
    expect(byUrl.code).toBe(1);
    expect(readdirSync(cliData).filter((f) => f.endsWith(".raucb"))).toEqual([]);
    if (process.getuid?.() === 0) expect(statSync(join(cliData, "update-last.json")).uid).toBe(65534);
    const status = await cli();
    expect(status.stdout).toContain("last update");
    expect(status.stdout).toContain("last update (");
    expect(status.stdout).toContain("): the bundle is not signed by this system's update key: refused");
  },
);

test.skipIf(!can)("the API refuses the same bundles with a 400 whose hint says why", async () => {
  expect(await refusalOf(await upload(bundles.stranger!))).toBe(
    "the bundle is not signed by this system's update key: refused",
  );
  expect(await refusalOf(await upload(bundles.truncated!))).toBe("the bundle is truncated or corrupt: refused");
  expect(await refusalOf(await upload(bundles.other!))).toBe(
    "the bundle is built for moat-x86-64, this is moat-rpi-arm64: refused",
  );
  const url = `https://localhost:${https.port}/stranger`;
  expect(await refusalOf(await moat.api("/api/action/update", { method: "POST", body: JSON.stringify({ url }) }))).toBe(
    "the bundle is not signed by this system's update key: refused",
  );
  // only https: the signature decides, but a plain URL is not even fetched
  const plain = await moat.api("/api/action/update", {
    method: "POST",
    body: JSON.stringify({ url: `http://127.0.0.1:${https.port}/v2` }),
  });
  expect(await refusalOf(plain)).toBe("an update URL must start with https://");
  expect(zeros(slotB())).toBe(true);
  const info = (await (await moat.api("/api/info/update")).json()) as Record<string, any>;
  expect(info.available).toBe(true);
  expect(info.running.slot).toBe("A");
  expect(info.other.version).toBeNull();
  expect(info.last.ok).toBe(false);
});

test.skipIf(!can)("the CLI installs a good bundle into the other slot, which boots next with 3 tries", async () => {
  expect((await cli("--reboot")).stderr.trim()).toBe("moat: --reboot needs a bundle to install first");
  expect(existsSync(join(cliData, "reboot-request"))).toBe(false);
  const r = await cli(bundles.v2!, "--reboot");
  expect(r.stderr).not.toContain("moat:");
  expect(r.code).toBe(0);
  // --reboot: once installed, the request moat-reboot.path acts on (test/update/reboot.test.ts runs its commands)
  expect(r.stdout.trim().split("\n").at(-1)).toBe("rebooting into slot B to try the new version once");
  const request = JSON.parse(readFileSync(join(cliData, "reboot-request"), "utf8"));
  expect(request).toMatchObject({ slot: "B", tryboot: true });
  expect(request.boot).toBe(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
  rmSync(join(cliData, "reboot-request"));
  expect(r.stdout).toContain("bundle: version 2.0.0 for moat-rpi-arm64, signature good");
  expect(r.stdout).toContain(" 60% Checking manifest contents done.");
  expect(r.stdout).toContain("100% Installing done.");
  expect(r.stdout).toContain("installed version 2.0.0 into the other slot; reboot to start it");
  // slot B holds the image now; A is untouched; B goes first in U-Boot's order, with 3 tries
  expect(zeros(readFileSync(fx.slots.a))).toBe(true);
  const root = readFileSync(fx.rootOf.get(bundles.v2!)!);
  expect(slotB().subarray(0, root.length).equals(root)).toBe(true);
  expect(fx.counters()).toEqual({ BOOT_ORDER: "B A", BOOT_A_LEFT: "3", BOOT_B_LEFT: "3" });
  const status = await cli();
  expect(status.stdout).toContain("running: v");
  expect(status.stdout).toContain("(slot A)");
  expect(status.stdout).toContain("other slot B: 2.0.0 (good, boots next)");
});

test.skipIf(!can)("the API installs an upload and an https URL, streaming the progress", async () => {
  const before = slotB();
  const r = await upload(bundles.v3!);
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/plain");
  const text = await r.text();
  expect(text).toContain("  0% Installing version 3.0.0");
  expect(text).toContain("100% Installing done.");
  expect(text.trim().split("\n").at(-1)).toBe(
    "installed version 3.0.0 into the other slot; reboot to start it (the old version stays as the fallback)",
  );
  expect(slotB().equals(before)).toBe(false);
  const root = readFileSync(fx.rootOf.get(bundles.v3!)!);
  expect(slotB().subarray(0, root.length).equals(root)).toBe(true);
  let info = (await (await moat.api("/api/info/update")).json()) as Record<string, any>;
  expect(info.other).toMatchObject({ bootname: "B", version: "3.0.0", primary: true });
  expect(info.last).toMatchObject({ ok: true, version: "3.0.0" });

  const viaUrl = await moat.api("/api/action/update", {
    method: "POST",
    body: JSON.stringify({ url: `https://localhost:${https.port}/v4` }),
  });
  expect(viaUrl.status).toBe(200);
  expect(await viaUrl.text()).toContain("installed version 4.0.0 into the other slot");
  info = (await (await moat.api("/api/info/update")).json()) as Record<string, any>;
  expect(info.other.version).toBe("4.0.0");
  // the downloaded and uploaded copies are gone from the data directory
  const left = Bun.spawnSync(["ls", moat.dataDir]).stdout.toString();
  expect(left).not.toContain(".raucb");
});

test.skipIf(!can)("a trial that failed and fell back is reported once, in the messages and the status", async () => {
  // what U-Boot's script leaves after 3 boots of B that never got to moat-health (a panic, a hang): no tries
  // left for B, so it booted A again (moat-health's mark-bad of a trial that is not healthy leaves the same)
  fx.setCounters({ BOOT_B_LEFT: "0" });
  await moat.restart();
  const sentence = "the update to version 4.0.0 did not start; Moat is back on version v";
  const find = async () => {
    const r = (await (await moat.api("/api/info/messages")).json()) as { messages: { type: string; plain: string }[] };
    return r.messages.filter((m) => m.type === "UPDATE_ROLLBACK");
  };
  let found: { plain: string }[] = [];
  for (let i = 0; i < 100 && found.length === 0; i++) {
    found = await find();
    if (!found.length) await Bun.sleep(50);
  }
  expect(found).toHaveLength(1);
  expect(found[0]!.plain).toStartWith(sentence);
  expect(found[0]!.plain).toEndWith("(slot A)");
  const info = (await (await moat.api("/api/info/update")).json()) as Record<string, any>;
  expect(info.other).toMatchObject({ version: "4.0.0", bootStatus: "bad" });
  expect(info.last).toMatchObject({ ok: false, version: "4.0.0", message: found[0]!.plain });
  // a second start has nothing new to say
  await moat.restart();
  await moat.outputWith("API listening");
  await Bun.sleep(500);
  expect(await find()).toHaveLength(1);
});

test.skipIf(!can)("an install the machine's stop cut short is reported once; one in this boot is not", async () => {
  // what install.ts leaves in the data directory until RAUC's result replaces it
  const installing = (boot: string) =>
    writeLast(moat.dataDir, {
      ok: false,
      version: "6.0.0",
      message: "installing version 6.0.0 into the other slot",
      installing: true,
      boot,
    });
  const find = async () => {
    const r = (await (await moat.api("/api/info/messages")).json()) as { messages: { type: string; plain: string }[] };
    return r.messages.filter((m) => m.type === "UPDATE_INTERRUPTED");
  };
  // recorded in this boot: RAUC's service may still be writing, so a restart of Moat says nothing
  installing(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
  await moat.restart();
  await moat.outputWith("API listening");
  let info = (await (await moat.api("/api/info/update")).json()) as Record<string, any>;
  expect(info.last).toMatchObject({ ok: false, version: "6.0.0", installing: true });
  expect(info.last.boot).toBeUndefined();
  await Bun.sleep(500);
  expect(await find()).toHaveLength(0);

  // recorded in a boot that has ended: the write was cut short
  installing("5b1f3a3e-0000-4000-8000-0000000000aa");
  await moat.restart();
  let found: { plain: string }[] = [];
  for (let i = 0; i < 100 && found.length === 0; i++) {
    found = await find();
    if (!found.length) await Bun.sleep(50);
  }
  expect(found).toHaveLength(1);
  expect(found[0]!.plain).toMatch(
    /^the update to version 6\.0\.0 did not finish: the machine stopped while it was being written into slot B; Moat still runs version v\S+ \(slot A\), unchanged\. Install the update again$/,
  );
  info = (await (await moat.api("/api/info/update")).json()) as Record<string, any>;
  expect(info.last).toEqual({ at: expect.any(String), ok: false, version: "6.0.0", message: found[0]!.plain });
  await moat.restart();
  await moat.outputWith("API listening");
  await Bun.sleep(500);
  expect(await find()).toHaveLength(1);
});

test.skipIf(!can)("where RAUC is not set up, updates are available on the Moat image only", async () => {
  const r = await run([BUN, MAIN, "update", bundles.v2!, "--data-dir", cliData], {
    env: { FTLCONF_update_system: join(fx.dir, "no-such-system.conf") },
  });
  expect(r.stderr.trim()).toBe("moat: updates are available on the Moat image only");
  expect(r.code).toBe(1);
  const bare = await startMoat({ env: { FTLCONF_update_system: join(fx.dir, "no-such-system.conf") } });
  try {
    const info = (await (await bare.api("/api/info/update")).json()) as Record<string, any>;
    expect(info).toMatchObject({ available: false, message: "updates are available on the Moat image only" });
    const copy = join(fx.dir, "copy.raucb");
    copyFileSync(bundles.v2!, copy);
    const form = new FormData();
    form.append("file", Bun.file(copy), "bundle.raucb");
    const res = await bare.api("/api/action/update", { method: "POST", body: form });
    expect(await refusalOf(res)).toBe("updates are available on the Moat image only");
  } finally {
    await bare.dispose();
  }
});

test.skipIf(!can)("a client that leaves during the install does not stop it", async () => {
  const ac = new AbortController();
  const form = new FormData();
  form.append("file", Bun.file(bundles.v5!), "bundle.raucb");
  const r = await moat.api("/api/action/update", { method: "POST", body: form, signal: ac.signal });
  expect(r.status).toBe(200);
  const reader = r.body!.getReader();
  await reader.read();
  ac.abort();
  let info: Record<string, any> = {};
  for (let i = 0; i < 100; i++) {
    info = (await (await moat.api("/api/info/update")).json()) as Record<string, any>;
    if (info.last?.version === "5.0.0" && !info.last.installing) break;
    await Bun.sleep(50);
  }
  expect(info.last).toMatchObject({ ok: true, version: "5.0.0" });
  expect(info.other).toMatchObject({ version: "5.0.0", bootStatus: "good", primary: true });
  // and the next update is not locked out
  const again = await upload(bundles.stranger!);
  expect(await refusalOf(again)).toBe("the bundle is not signed by this system's update key: refused");
});

test.skipIf(!can)("a bundle signed with the next key (the keyring's second certificate) installs", async () => {
  const r = await cli(bundles.rotated!);
  expect(r.stderr).not.toContain("moat:");
  expect(r.stdout).toContain("bundle: version 7.0.0 for moat-rpi-arm64, signature good");
  expect(r.stdout).toContain("installed version 7.0.0 into the other slot; reboot to start it");
  expect(r.code).toBe(0);
  const root = readFileSync(fx.rootOf.get(bundles.rotated!)!);
  expect(slotB().subarray(0, root.length).equals(root)).toBe(true);
  expect(fx.counters()).toMatchObject({ BOOT_ORDER: "B A", BOOT_B_LEFT: "3" });
});
