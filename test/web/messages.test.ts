// Problems Moat knows of are shown where people look: an upstream list emptied in the Settings page
// is saved (the person may mean it), and from then on every page carries a banner saying that
// names get SERVFAIL, as /api/info/messages does, until upstreams are set again; DNSSEC validation
// over an upstream that strips DNSSEC records is a banner too. A real browser against a real Moat.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { launch, logIn, openPage, shot, type Watched } from "./browser.ts";

const PASSWORD = "banner password";
let moat: MoatProcess;
let up: Upstream;
let browser: Browser;
let w: Watched;

beforeAll(async () => {
  up = await startUpstream();
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["${up.address}"]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  browser = await launch();
  w = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  await up?.stop();
});

async function listMessages(): Promise<Array<{ type: string; plain: string }>> {
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  const sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  const m = await moat.api("/api/info/messages", { headers: { sid } });
  const list = ((await m.json()) as { messages: Array<{ type: string; plain: string }> }).messages;
  await moat.api("/api/auth", { method: "DELETE", headers: { sid } });
  return list;
}

async function noUpstreamMessages(): Promise<number> {
  return (await listMessages()).filter((x) => x.type === "DNSMASQ_WARN" && x.plain === "no upstream servers configured")
    .length;
}

test("an emptied upstream list is a banner on every page until upstreams are set again", async () => {
  const { page } = w;
  // the page asks for its session before the login: that 401 is expected
  await logIn(w, `${moat.base}/admin/settings`, PASSWORD, "#s-upstreams");
  expect(await page.locator(".banner").count()).toBe(0);

  await page.fill("#s-upstreams", "");
  await page.click("button:text('Save DNS settings')");
  await page.waitForSelector(".toast:text('Saved')");
  // the banner comes at once, not at the next poll
  const banner = page.locator(".banner:has-text('No upstream DNS servers are set')");
  await banner.waitFor({ timeout: 5000 });
  expect(await banner.textContent()).toContain("SERVFAIL");
  expect(await noUpstreamMessages()).toBe(1);
  await shot(page, "no-upstream-banner");
  // on another page too, and it links to where it is fixed
  await page.click("nav.side >> text=Query log");
  await page.waitForSelector("h1.page-title:text('Query log')");
  await banner.waitFor({ timeout: 5000 });
  await banner.locator("a").click();
  await page.waitForSelector("#s-upstreams");

  await page.fill("#s-upstreams", up.address);
  await page.click("button:text('Save DNS settings')");
  await banner.waitFor({ state: "detached", timeout: 5000 });
  expect(await noUpstreamMessages()).toBe(0);
  expect(w.errors).toEqual([]);
}, 60000);

test("DNSSEC validation over an upstream that strips DNSSEC records: the setting says Moat validates, a banner says what to do", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  await page.waitForSelector("#s-dnssec");
  expect(await page.locator("label[for=s-dnssec]").textContent()).toContain("Moat checks the signatures itself");
  const banner = page.locator(".banner:has-text('without signatures (RRSIG)')");
  expect(await banner.count()).toBe(0);

  await page.check("#s-dnssec");
  await page.click("button:text('Save listening and domain')");
  await page.waitForSelector(".toast:text('Saved')");
  // the check asks the upstream after the save: the banner is there once the message is
  for (let i = 0; i < 100 && !(await listMessages()).some((m) => m.type === "DNSSEC"); i++) await Bun.sleep(50);
  await page.reload();
  await banner.waitFor({ timeout: 5000 });
  expect(await banner.textContent()).toContain(
    "Pick an upstream that passes DNSSEC records, or turn DNSSEC validation off.",
  );
  await shot(page, "dnssec-stripped-banner");

  await page.uncheck("#s-dnssec");
  await page.click("button:text('Save listening and domain')");
  await page.waitForSelector(".toast:text('Saved')");
  for (let i = 0; i < 100 && (await listMessages()).some((m) => m.type === "DNSSEC"); i++) await Bun.sleep(50);
  await page.reload();
  await page.waitForSelector("#s-dnssec");
  expect(await banner.count()).toBe(0);
  expect(w.errors).toEqual([]);
}, 60000);
