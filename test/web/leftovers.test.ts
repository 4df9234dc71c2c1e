// What a browser walk still found on the dashboard, each checked as a person meets it: the fresh login
// page logs no error, the query log's badges speak words, a list's URL keeps a readable column, a
// 255-character group name leaves Family controls their width, a key the environment sets cannot be
// edited on Settings, and the query log's Pause asks how long before it cuts a device off.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { dig, eventually, launch, logIn, openPage, shot, type Watched } from "./browser.ts";

// The browser's globals, for the functions that run inside the page (the tests have no DOM library).
type InPage = any;
declare const document: InPage, window: InPage, getComputedStyle: InPage;

const PASSWORD = "leftovers correct horse";
const PHONE = { width: 390, height: 844 };
let moat: MoatProcess;
let up: Upstream;
let browser: Browser;
let w: Watched;
let listServer: ReturnType<typeof Bun.serve>;
let sid = "";
const LIST = "/lists/some-rather-long-directory-name/and-another-one/blocklist-with-a-long-name.txt";

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const r = await moat.api(path, {
    method,
    headers: { sid, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return r.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
}

/** whether the page is no wider than its window */
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

beforeAll(async () => {
  up = await startUpstream();
  listServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("0.0.0.0 listed-one.example\n"),
  });
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["${up.address}"]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD, FTLCONF_dns_rateLimit_count: "700" },
  });
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  await api("POST", "/api/lists?type=block", {
    address: `http://127.0.0.1:${listServer.port}${LIST}`,
    comment: "Trackers and advertising for the children's tablets and the living-room television, kept by hand",
  });
  await api("POST", "/api/action/gravity");
  await api("POST", "/api/domains/deny/exact", { domain: "denied.example" });
  for (const name of ["listed-one.example", "denied.example", "www.forwarded.example"])
    await run(["dig", "+short", "+time=2", "+tries=1", "-p", String(moat.dnsPort), "@127.0.0.1", name]);
  browser = await launch();
  w = await openPage(browser);
  await logIn(w, `${moat.base}/admin/`, PASSWORD);
}, 60000);

afterAll(async () => {
  await browser?.close();
  listServer?.stop(true);
  await moat?.dispose();
  await up?.stop();
});

test("a fresh login page logs no error at all in the console (no 401 from asking for the session)", async () => {
  const fresh = await openPage(browser);
  const console: string[] = [];
  fresh.page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") console.push(m.text());
  });
  await fresh.page.goto(`${moat.base}/admin/queries`);
  await fresh.page.waitForSelector("#password");
  await Bun.sleep(300);
  expect(console).toEqual([]);
  // and the login still returns to the page asked for
  await fresh.page.fill("#password", PASSWORD);
  await fresh.page.click("button[type=submit]");
  await fresh.page.waitForSelector("h1:text('Query log')");
  await fresh.ctx.close();
  expect(console).toEqual([]);
  expect(fresh.errors).toEqual([]);
});

test("GET /api/info/login tells the page whether a login is needed and whether it asks for a code", async () => {
  // what the page reads from the public GET /api/info/login
  const info = (await (await moat.api("/api/info/login")).json()) as Record<string, unknown>;
  expect(info).toMatchObject({ dns: true, password: true, totp: false });
});

test("logged in: the session check of a reload still works", async () => {
  await w.page.reload();
  await w.page.waitForSelector("nav.side");
  expect(w.errors).toEqual([]);
});

test("the query log's status badges speak words, with the API's name as the tooltip", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/queries`);
  for (const [domain, words, raw] of [
    ["listed-one.example", "Blocked (list)", "GRAVITY"],
    ["denied.example", "Blocked (deny)", "DENYLIST"],
    ["www.forwarded.example", "Forwarded", "FORWARDED"],
  ]) {
    const badge = page.locator(`tr[data-domain='${domain}'] td[data-label=Status] .badge`).first();
    await badge.waitFor();
    expect(await badge.textContent()).toBe(words!);
    expect(await badge.getAttribute("title")).toBe(raw!);
  }
  const texts = await page.$$eval(".table .badge", (els: InPage[]) => els.map((e) => e.textContent));
  for (const t of texts) expect(t).not.toMatch(/^[A-Z_]+$/);
  expect(w.errors).toEqual([]);
});

test("a list's URL keeps a readable column: a few lines at most, never one word a line", async () => {
  const { page } = w;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${moat.base}/admin/lists`);
  const cell = page.locator("tr[data-key*='blocklist-with-a-long-name'] td[data-label=Address]");
  await cell.waitFor();
  const { width, lines } = await cell.evaluate((td: InPage) => {
    const span = td.querySelector(".url");
    const lineHeight = Number.parseFloat(getComputedStyle(span).lineHeight) || 20;
    return {
      width: td.getBoundingClientRect().width,
      lines: Math.round(span.getBoundingClientRect().height / lineHeight),
    };
  });
  await shot(page, "leftovers-lists-desktop");
  expect(width).toBeGreaterThanOrEqual(190);
  expect(lines).toBeLessThanOrEqual(5);
  expect(await fitsWidth(page)).toBe(true);
  // and the row's buttons stay in view: the table needs no sideways scroll
  const [scroll, client] = await page.$eval(".table-wrap", (t: InPage) => [t.scrollWidth, t.clientWidth]);
  expect(scroll).toBeLessThanOrEqual(client + 1);
  expect(w.errors).toEqual([]);
});

test("a 255-character group name leaves Family controls the window's width (desktop and phone)", async () => {
  const { page } = w;
  const name = "g".repeat(255);
  await api("POST", "/api/groups", { name });
  for (const size of [{ width: 1280, height: 800 }, PHONE]) {
    await page.setViewportSize(size);
    await page.goto(`${moat.base}/admin/family`);
    await page.locator("button", { hasText: "Save" }).first().waitFor();
    // the long name is the group shown (the first) or picked
    await page.selectOption("select[aria-label=group]", name);
    await page.locator("button", { hasText: "Save" }).first().waitFor();
    await shot(page, `leftovers-family-${size.width}`);
    expect(await fitsWidth(page)).toBe(true);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(w.errors).toEqual([]);
});

test("a key the environment sets is read-only on Settings, and saving the card leaves it alone", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  await page.waitForSelector("#s-rl");
  await eventually(async () => await page.isDisabled("#s-rl"), "the rate limit to be read-only");
  expect(await page.inputValue("#s-rl")).toBe("700");
  expect(await page.textContent("#s-rl-hint")).toContain("FTLCONF_dns_rateLimit_count");
  expect(await page.isDisabled("#s-upstreams")).toBe(false);
  // the card's other keys still save: the API refuses a write to the environment's key
  await page.fill("#s-upstreams", `${up.address}\n127.0.0.1#9`);
  await page.click("button:text('Save DNS settings')");
  await eventually(async () => (await page.textContent(".toasts")) === "Saved", "saved");
  expect((await api("GET", "/api/config/dns/upstreams")).config.dns.upstreams).toEqual([up.address, "127.0.0.1#9"]);
  await api("PATCH", "/api/config", { config: { dns: { upstreams: [up.address] } } });
  expect(w.errors).toEqual([]);
});

test("the query log's Pause asks how long; one click cuts nobody off", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/queries?domain=www.forwarded.example`);
  const row = page.locator("tr[data-domain='www.forwarded.example']").first();
  await row.waitFor();
  await row.locator("button:text('Pause')").click();
  const dialog = page.locator("dialog[open] [data-testid=pause-dialog]");
  await dialog.waitFor();
  expect((await api("GET", "/api/pauses")).pauses).toEqual([]);
  const free = await dig(moat.dnsPort, "still-free.example");
  expect(free).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  expect(free).not.toBe("0.0.0.0");
  // Cancel: still nothing paused
  await dialog.locator("button:text('Cancel')").click();
  await page.waitForSelector("dialog[open]", { state: "detached" });
  expect((await api("GET", "/api/pauses")).pauses).toEqual([]);
  // with a duration chosen: paused for that long
  await row.locator("button:text('Pause')").click();
  await dialog.waitFor();
  await page.selectOption("#pause-minutes", "15");
  const before = Date.now() / 1000;
  await dialog.locator("button:text('Pause')").click();
  await page.waitForSelector(".toast:text('127.0.0.1 paused for 15 minutes')");
  const [p] = (await api("GET", "/api/pauses")).pauses as Array<{ client: string; until: number }>;
  expect(p!.client).toBe("127.0.0.1");
  expect(p!.until).toBeGreaterThan(before + 14 * 60);
  expect(p!.until).toBeLessThan(before + 16 * 60);
  await eventually(async () => (await dig(moat.dnsPort, "paused-now.example")) === "0.0.0.0", "the pause");
  await row.locator("button:text('Resume')").click();
  await eventually(async () => (await dig(moat.dnsPort, "free-again.example")) === free, "the resume");
  expect(w.errors).toEqual([]);
});
