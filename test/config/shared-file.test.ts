// The config file is shared while Moat runs: `moat password`, `moat totp enable` and a hand edit
// take effect in the running server at once, and a later change through the API keeps them (it
// used to rewrite pihole.toml from memory, and the password was gone). A broken hand edit is
// reported and never overwritten.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress, until } from "../dns/helpers.ts";
import { totp } from "../api/auth-helpers.ts";
import { call, login } from "./helpers.ts";

const PASSWORD = "shared file password";
let moat: MoatProcess;
let up: Upstream;
const file = () => join(moat.dataDir, "pihole.toml");
const cli = (args: string[], stdin?: string) =>
  run([BUN, "src/main.ts", ...args, "--data-dir", moat.dataDir], stdin === undefined ? {} : { stdin });

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.50" });
  moat = await startMoat({ env: { FTLCONF_dns_upstreams: up.address } });
});
afterAll(async () => {
  await Promise.all([moat?.dispose(), up?.stop()]);
});

test("moat password while the server runs: in force at once, and kept by the next API change", async () => {
  expect((await call(moat, "GET", "/api/auth")).body.session.message).toBe("no password set");
  const r = await cli(["password"], PASSWORD);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  await until(
    async () => (await call(moat, "GET", "/api/auth")).status === 401,
    5000,
    "the server to ask for the password",
  );
  const sid = await login(moat, PASSWORD);
  expect((await call(moat, "PATCH", "/api/config", { config: { dns: { blockTTL: 7 } } }, sid)).status).toBe(200);
  const text = readFileSync(file(), "utf8");
  expect(text).toMatch(/pwhash = "\$BALLOON-SHA256\$/);
  expect(text).toMatch(/blockTTL = 7/);
  await moat.restart();
  await login(moat, PASSWORD);
});

test("moat totp enable while the server runs: 2FA in force at once, and kept by the next API change", async () => {
  const r = await cli(["totp", "enable"]);
  expect(r.code).toBe(0);
  const secret = /^\s+([A-Z2-7]{32})$/m.exec(r.stdout)?.[1];
  expect(secret).toBeDefined();
  await until(
    async () => (await call(moat, "POST", "/api/auth", { password: PASSWORD })).status === 400,
    5000,
    "the server to ask for a 2FA code",
  );
  const noCode = await call(moat, "POST", "/api/auth", { password: PASSWORD });
  expect(noCode.body.error.message).toBe("No 2FA token found in JSON payload");
  const ok = await call(moat, "POST", "/api/auth", { password: PASSWORD, totp: totp(secret!) });
  expect(ok.status).toBe(200);
  const sid = ok.body.session.sid as string;
  expect((await call(moat, "PATCH", "/api/config", { config: { dns: { blockTTL: 8 } } }, sid)).status).toBe(200);
  expect(readFileSync(file(), "utf8")).toContain(`totp_secret = "${secret}"`);
  const code = await cli(["totp"]);
  expect(code.stdout.trim()).toBe(String(totp(secret!)).padStart(6, "0"));
  expect((await cli(["totp", "disable"])).code).toBe(0);
  await until(
    async () => (await call(moat, "POST", "/api/auth", { password: PASSWORD })).status === 200,
    5000,
    "2FA to be off",
  );
});

test("a hand edit while the server runs: applied at once (DNS answers it), kept by the next API change", async () => {
  const before = readFileSync(file(), "utf8");
  expect(before).toContain("[dns]\n");
  writeFileSync(
    file(),
    before
      .replace("blockTTL = 8", "blockTTL = 9")
      .replace("[dns]\n", '[dns]\n  hosts = ["10.7.7.7 hand.shared.test"]\n'),
  );
  await until(
    async () => firstAddress(await ask(moat.dnsPort, "hand.shared.test")) === "10.7.7.7",
    5000,
    "the hand-written record",
  );
  const sid = await login(moat, PASSWORD);
  expect((await call(moat, "GET", "/api/config/dns/blockTTL", undefined, sid)).body.config.dns.blockTTL).toBe(9);
  expect((await call(moat, "PATCH", "/api/config", { config: { dns: { cache: { size: 5000 } } } }, sid)).status).toBe(
    200,
  );
  const text = readFileSync(file(), "utf8");
  expect(text).toContain('"10.7.7.7 hand.shared.test"');
  expect(text).toMatch(/blockTTL = 9/);
  expect(text).toMatch(/size = 5000/);
  expect(text).toMatch(/pwhash = "\$BALLOON-SHA256\$/);
});

test("a broken hand edit is reported with its line, the running settings stay, and the API does not overwrite it", async () => {
  const sid = await login(moat, PASSWORD);
  const good = readFileSync(file(), "utf8");
  const broken = good.replace("blockTTL = 9", 'blockTTL = "nine');
  writeFileSync(file(), broken);
  const line = broken.split("\n").findIndex((l) => l.includes('"nine')) + 1;
  await until(async () => moat.output.includes(`line ${line}: not valid TOML`), 5000, "the error in the log");
  const r = await call(moat, "PATCH", "/api/config", { config: { dns: { blockTTL: 3 } } }, sid);
  expect(r.status).toBe(400);
  expect(r.body.error.message).toContain("The config file was changed and cannot be used");
  expect(r.body.error.hint).toContain(`line ${line}`);
  expect(readFileSync(file(), "utf8")).toBe(broken);
  expect(firstAddress(await ask(moat.dnsPort, "hand.shared.test"))).toBe("10.7.7.7");
  writeFileSync(file(), good.replace("blockTTL = 9", "blockTTL = 4"));
  await until(
    async () => (await call(moat, "GET", "/api/config/dns/blockTTL", undefined, sid)).body.config?.dns?.blockTTL === 4,
    5000,
    "the fixed file",
  );
});
