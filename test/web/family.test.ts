// Family controls from the dashboard in a real browser, checked with real DNS (dig from 127.0.0.1, a client
// entry of the "kids" group): block a service and enforce safe search for the group, pause the device and
// resume it, and "Why?" in the query log names the service.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { run } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { dig, eventually, launch, logIn, openPage, shot, type Watched } from "./browser.ts";

const PASSWORD = "family correct horse";
let moat: MoatProcess;
let up: Upstream;
let up2: Upstream;
let browser: Browser;
let w: Watched;

async function apiCall(method: string, path: string, body: unknown): Promise<void> {
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  const sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  const res = await moat.api(path, { method, headers: { sid }, body: JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
}

beforeAll(async () => {
  [up, up2] = await Promise.all([startUpstream({ addr: "192.0.2.44" }), startUpstream({ addr: "192.0.2.45" })]);
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["${up.address}"]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  await apiCall("POST", "/api/groups", { name: "kids" });
  await apiCall("POST", "/api/clients", { client: "127.0.0.1", groups: [1] });
  browser = await launch();
  w = await openPage(browser);
  await logIn(w, `${moat.base}/admin/family`, PASSWORD);
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  await Promise.all([up?.stop(), up2?.stop()]);
});

test("a group's blocked service and safe search set on the family page apply to DNS", async () => {
  const { page } = w;
  expect(await dig(moat.dnsPort, "www.tiktok.com")).toBe("192.0.2.44");
  await page.selectOption("select[aria-label=group]", "kids");
  await page.locator("[data-testid=services-social] input[value=tiktok]").check();
  await page.locator("[data-testid=safesearch] input[value=google]").check();
  await page.click("button:text('Save kids')");
  await page.waitForSelector(".toast:text('kids saved')");
  await eventually(async () => (await dig(moat.dnsPort, "www.tiktok.com")) === "0.0.0.0", "TikTok to be blocked");
  const google = await run([
    "dig",
    "+short",
    "+time=2",
    "+tries=1",
    "-p",
    String(moat.dnsPort),
    "@127.0.0.1",
    "www.google.com",
  ]);
  expect(google.stdout.trim().split("\n")).toEqual(["forcesafesearch.google.com.", "192.0.2.44"]);
  await shot(page, "family-desktop");
});

test("a schedule window set on the family page blocks its service while it is open", async () => {
  const { page } = w;
  const hhmm = (ms: number) => {
    const d = new Date(ms);
    return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  };
  const now = Date.now();
  expect(await dig(moat.dnsPort, "www.reddit.com")).toBe("192.0.2.44");
  await page.click("button:text('Add a window')");
  const win = page.locator("[data-testid=window]").first();
  const today = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][new Date(now - 60000).getDay()]!;
  await win.locator(`label:has-text('${today}') input`).check();
  await win.locator("input[aria-label=from]").fill(hhmm(now - 60000));
  await win.locator("input[aria-label=until]").fill(hhmm(now + 5 * 60000));
  await page.locator("[data-testid=scheduled-services] input[value=reddit]").check();
  await page.click("button:text('Save kids')");
  await eventually(async () => (await dig(moat.dnsPort, "www.reddit.com")) === "0.0.0.0", "Reddit to be blocked");
});

test("a group's own upstream set on the family page gets its queries", async () => {
  const { page } = w;
  await page.fill("#f-upstreams", up2.address);
  await page.click("button:text('Save kids')");
  await eventually(
    async () => (await dig(moat.dnsPort, "own-upstream.example")) === "192.0.2.45",
    "the group's upstream",
  );
  // once in force, a new name reaches the group's upstream only
  expect(await dig(moat.dnsPort, "own-upstream-new.example")).toBe("192.0.2.45");
  expect(up.count("own-upstream-new.example")).toBe(0);
  await page.fill("#f-upstreams", "");
  await page.click("button:text('Save kids')");
  await eventually(
    async () => (await dig(moat.dnsPort, "own-upstream2.example")) === "192.0.2.44",
    "dns.upstreams again",
  );
});

test("'Why?' in the query log names the blocked service", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/queries?domain=www.tiktok.com`);
  const blocked = page.locator("tr.blocked[data-domain='www.tiktok.com']").first();
  await blocked.waitFor({ timeout: 8000 });
  await blocked.locator("button:text('Why?')").click();
  await page.waitForSelector("[data-testid=why-family]");
  expect(await page.textContent("[data-testid=why-family]")).toContain("Blocked service: TikTok");
  await page.keyboard.press("Escape");
});

test("pause the device from the family page, then resume it", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/family`);
  await page.fill("#p-client", "127.0.0.1");
  await page.selectOption("#p-minutes", "15");
  await page.click("form button:text('Pause')");
  await page.waitForSelector("[data-testid=pauses] li:has-text('127.0.0.1')");
  await eventually(async () => (await dig(moat.dnsPort, "homework.example")) === "0.0.0.0", "the device to be paused");
  await page.click("[data-testid=pauses] button:text('Resume')");
  await page.waitForSelector("text=No device is paused.");
  await eventually(
    async () => (await dig(moat.dnsPort, "homework2.example")) === "192.0.2.44",
    "the device to be resumed",
  );
  expect(w.errors).toEqual([]);
  expect(w.outside).toEqual([]);
});

test("pause and resume the device from the clients page and from the query log", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/clients`);
  const row = page.locator("tr[data-key='127.0.0.1']");
  await row.locator("button:text('Pause')").click();
  // it asks how long (an hour unless chosen otherwise) before it cuts the device off
  await page.locator("dialog[open] [data-testid=pause-dialog] button:text('Pause')").click();
  await page.waitForSelector(".toast:text('127.0.0.1 paused for 1 hour')");
  await eventually(async () => (await dig(moat.dnsPort, "clients-page.example")) === "0.0.0.0", "the pause");
  await row.locator("button:text('Resume')").click();
  await eventually(async () => (await dig(moat.dnsPort, "clients-page2.example")) === "192.0.2.44", "the resume");

  await page.goto(`${moat.base}/admin/queries?domain=clients-page2.example`);
  const q = page.locator("tr[data-domain='clients-page2.example']").first();
  await q.waitFor({ timeout: 8000 });
  await q.locator("button:text('Pause')").click();
  await page.locator("dialog[open] [data-testid=pause-dialog] button:text('Pause')").click();
  await eventually(async () => (await dig(moat.dnsPort, "querylog.example")) === "0.0.0.0", "the pause from the log");
  await q.locator("button:text('Resume')").click();
  await eventually(
    async () => (await dig(moat.dnsPort, "querylog2.example")) === "192.0.2.44",
    "the resume from the log",
  );
  expect(w.errors).toEqual([]);
});
