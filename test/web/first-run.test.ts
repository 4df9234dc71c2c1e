// The dashboard with no password and no upstream: the first-run setup (password, upstream from a
// preset or typed, first block list), then two-factor enrolment with the QR code and a login
// with password and code. A real browser against a real Moat.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { totpAt } from "../../src/auth/totp.ts";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { dig, eventually, launch, openPage, shot, type Watched } from "./browser.ts";

let moat: MoatProcess;
let up: Upstream;
let browser: Browser;
let w: Watched;
// the browser's globals, for the functions that run inside the page
declare const document: any;
const PASSWORD = "h15 first run";

function base32Decode(s: string): Uint8Array {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const ch of s.replace(/=+$/, "")) bits += alphabet.indexOf(ch).toString(2).padStart(5, "0");
  return new Uint8Array(Math.floor(bits.length / 8)).map((_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2));
}

beforeAll(async () => {
  up = await startUpstream();
  moat = await startMoat({ configToml: "" });
  browser = await launch();
  w = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  await up?.stop();
});

test("no password: no login; the first-run setup sets the password and the upstream", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/`);
  await page.waitForSelector("h1:text('Welcome to Moat')");
  expect(new URL(page.url()).pathname).toBe("/admin/");
  // the language comes first: the setup's first field, every language by its own name
  expect(await page.evaluate(() => document.querySelector("form.setup-card select, form.setup-card input")?.id)).toBe(
    "setup-language",
  );
  expect(await page.locator("#setup-language option").allTextContents()).toEqual(
    expect.arrayContaining(["English", "Deutsch"]),
  );
  await shot(page, "setup-desktop");
  // the presets are offered; this network's upstream is typed in instead
  expect(await page.locator(".presets label").allTextContents()).toEqual(
    expect.arrayContaining([
      expect.stringContaining("Quad9"),
      expect.stringContaining("Cloudflare"),
      expect.stringContaining("Google"),
    ]),
  );
  await page.uncheck("label:has-text('Quad9') input");
  await page.fill("#setup-pw", PASSWORD);
  await page.fill("#setup-pw2", "something else");
  await page.fill("#setup-custom", up.address);
  await page.uncheck("label:has-text('StevenBlack') input"); // no download from outside in a test
  await page.click("button:text('Save and start')");
  expect(await page.textContent(".field.invalid")).toContain("The passwords differ");
  await page.fill("#setup-pw2", PASSWORD);
  await page.click("button:text('Save and start')");
  await page.waitForSelector("h1.page-title:text('Dashboard')");
  const cfg = (await (
    await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) })
  ).json()) as { session: { sid: string } };
  const upstreams = (await (
    await moat.api("/api/config/dns/upstreams", { headers: { sid: cfg.session.sid } })
  ).json()) as { config: { dns: { upstreams: string[] } } };
  expect(upstreams.config.dns.upstreams).toEqual([up.address]);
  await eventually(
    async () => (await dig(moat.dnsPort, "first-run.example")) === "192.0.2.1",
    "an answer through the new upstream",
  );
  // the password is in force: a new browser must log in
  const other = await openPage(browser);
  await other.page.goto(`${moat.base}/admin/`);
  await other.page.waitForSelector("#password");
  await other.ctx.close();
});

test("two-factor enrolment with a QR code, then login with password and code", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  await page.click("button:text('Set up two-factor authentication')");
  await page.waitForSelector("svg.qr");
  await shot(page, "totp-enrol-desktop");
  const secret = (await page.textContent("[data-testid=totp-secret]"))!.trim();
  const key = base32Decode(secret);
  // a wrong code is refused next to the field and nothing is stored
  await page.fill(
    "#s-totp",
    "000000" === String(totpAt(key, Date.now() / 1000)).padStart(6, "0") ? "111111" : "000000",
  );
  await page.click("button:text('Turn on')");
  await page.waitForSelector(".field.invalid .error");
  await page.fill("#s-totp", String(totpAt(key, Date.now() / 1000)).padStart(6, "0"));
  await page.click("button:text('Turn on')");
  await page.waitForSelector("#totp"); // every session ended: the login now asks for the code
  await shot(page, "login-totp-desktop");
  // (a wrong code at login would make the server refuse codes for a while: FTL's rule, kept)
  await page.fill("#password", PASSWORD);
  await page.fill("#totp", String(totpAt(key, Date.now() / 1000)).padStart(6, "0"));
  await page.click("button[type=submit]");
  await page.waitForSelector("h1.page-title");
  expect(new URL(page.url()).pathname).toBe("/admin/settings");
  await page.click("button.top-logout");
  await page.waitForSelector("#password");
  expect(w.errors.filter((e) => !/401/.test(e))).toEqual([]);
  expect(w.outside).toEqual([]);
});
