// The dashboard in a real browser against a real Moat with a real upstream and DNS traffic from dig:
// login and the way back after an expired session, the numbers, the query log's deny and "why",
// a list with live gravity progress, an upstream change, Teleporter, the blocking timer, a phone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { dig, eventually, launch, openPage, shot, type Watched } from "./browser.ts";

const PASSWORD = "h15 correct horse";
const PAGES = ["/", "/queries", "/domains", "/lists", "/groups", "/clients", "/dns", "/search", "/settings"];
let moat: MoatProcess;
let up1: Upstream;
let up2: Upstream;
let browser: Browser;
let w: Watched;
let listServer: ReturnType<typeof Bun.serve>;
let sid = "";

async function apiGet<T = any>(path: string): Promise<T> {
  const r = await moat.api(path, { headers: { sid } });
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}

async function login(page = w.page): Promise<void> {
  await page.fill("#password", PASSWORD);
  await page.click("button[type=submit]");
  await page.waitForSelector("nav.side");
}

beforeAll(async () => {
  [up1, up2] = await Promise.all([startUpstream(), startUpstream({ addr: "192.0.2.2" })]);
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["${up1.address}"]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  listServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("0.0.0.0 listed-one.example\n0.0.0.0 listed-two.example\n||listed-abp.example^\n"),
  });
  browser = await launch();
  w = await openPage(browser);
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  sid = ((await r.json()) as { session: { sid: string } }).session.sid;
});

afterAll(async () => {
  await browser?.close();
  listServer?.stop(true);
  await moat?.dispose();
  await Promise.all([up1?.stop(), up2?.stop()]);
});

test("/ and /admin redirect to /admin/, which answers for Pi-hole clients' liveness check", async () => {
  for (const p of ["/", "/admin"]) {
    const r = await moat.api(p, { redirect: "manual" });
    expect(r.status).toBe(308);
    expect(r.headers.get("location")).toBe("/admin/");
  }
  const page = await moat.api("/admin/", { headers: { "accept-encoding": "gzip" } });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  expect(await page.text()).toContain('<div id="app">');
  expect((await moat.api("/admin/assets/nothing-here.js")).status).toBe(404);
});

test("login with the password, and back to the same page after the session expired", async () => {
  const { page } = w;
  w.expected401 = true; // logged out: the page's first look at /api/auth is a 401
  await page.goto(`${moat.base}/admin/`);
  await page.fill("#password", "wrong");
  await page.click("button[type=submit]");
  await page.waitForSelector(".field .error");
  expect(await page.textContent(".field .error")).toContain("Wrong password");
  await shot(page, "login-desktop");
  await login();
  expect(await page.textContent("h1.page-title")).toBe("Dashboard");
  w.expected401 = false;

  await page.goto(`${moat.base}/admin/domains`);
  await page.waitForSelector("h1.page-title");
  // the session ends on the server (as when it times out); the next request brings the login
  const sessions = await apiGet<{ sessions: Array<{ id: number; current_session: boolean }> }>("/api/auth/sessions");
  w.expected401 = true;
  for (const s of sessions.sessions.filter((x) => !x.current_session))
    await moat.api(`/api/auth/session/${s.id}`, { method: "DELETE", headers: { sid } });
  await page
    .locator("nav.side >> text=Groups")
    .click({ timeout: 2000 })
    .catch(() => undefined);
  await page.waitForSelector("#password");
  expect(await page.textContent(".login .note")).toContain("expired");
  const where = new URL(page.url()).pathname;
  expect(["/admin/domains", "/admin/groups"]).toContain(where);
  await login();
  expect(new URL(page.url()).pathname).toBe(where);
  expect(await page.textContent("h1.page-title")).toBe(where.endsWith("groups") ? "Groups" : "Domains");
  // opened from a bookmark while logged out: the login, then that page
  await page.click("button.top-logout");
  await page.waitForSelector("#password");
  await page.goto(`${moat.base}/admin/dns`);
  await login();
  expect(new URL(page.url()).pathname).toBe("/admin/dns");
  w.expected401 = false;
});

test("the dashboard shows what the API counts after known traffic", async () => {
  for (let i = 0; i < 5; i++) expect(await dig(moat.dnsPort, `count-${i}.example`)).toBe("192.0.2.1");
  await w.page.goto(`${moat.base}/admin/`);
  await w.page.waitForSelector("[data-testid=stat-total] .stat-value");
  const summary = await apiGet<{ queries: { total: number; blocked: number } }>("/api/stats/summary");
  expect(summary.queries.total).toBeGreaterThanOrEqual(5);
  const shown = async () =>
    Number((await w.page.textContent("[data-testid=stat-total] .stat-value"))!.replace(/\D/g, ""));
  expect(await shown()).toBe(summary.queries.total);
  expect(Number((await w.page.textContent("[data-testid=stat-blocked] .stat-value"))!.replace(/\D/g, ""))).toBe(
    summary.queries.blocked,
  );
  const top = await w.page.textContent(".card:has(h2:text('Top clients'))");
  expect(top).toContain("127.0.0.1");
  // both charts are drawn (each from its own request, so the second may come a moment later)
  await eventually(async () => (await w.page.locator(".chart canvas").count()) === 2, "both charts to be drawn");
});

test("deny a domain from the query log: dig is blocked, and 'why' names the rule", async () => {
  expect(await dig(moat.dnsPort, "deny-me.example")).toBe("192.0.2.1");
  const { page } = w;
  await page.goto(`${moat.base}/admin/queries?domain=deny-me.example`);
  const row = page.locator("tr[data-domain='deny-me.example']").first();
  await row.waitFor();
  await row.locator("button:text('Deny')").click();
  await page.waitForSelector(".toast:text('deny-me.example denied')");
  await eventually(async () => (await dig(moat.dnsPort, "deny-me.example")) === "0.0.0.0", "dig to be blocked");
  const blocked = page.locator("tr.blocked[data-domain='deny-me.example']").first();
  await blocked.waitFor({ timeout: 8000 }); // the live tail brings the blocked query
  await blocked.locator("button:text('Why?')").click();
  await page.waitForSelector("[data-testid=why-details]");
  expect(await page.textContent("[data-testid=why-status]")).toContain("deny list");
  // the answer records the client got (Moat-only field of /api/queries)
  expect(await page.textContent("[data-testid=why-answers]")).toContain("A 0.0.0.0");
  expect(await page.textContent("[data-testid=why-details] li.hit")).toContain("deny-me.example");
  await shot(page, "why-desktop");
  await page.keyboard.press("Escape");
  // the query log's filters are the API's, wildcard included
  await page.goto(`${moat.base}/admin/queries?domain=*-me.example&upstream=blocklist`);
  await page.waitForSelector("tr[data-domain='deny-me.example']");
  expect(await page.locator("tbody tr").count()).toBe(1);
});

// before any list has gravity rows: importing over those is a known defect of the import (500)
test("Teleporter: download a backup, change something, restore it", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("button:text('Download backup')")]);
  const file = join(moat.dataDir, "backup.zip");
  await download.saveAs(file);
  expect(readFileSync(file).subarray(0, 2).toString()).toBe("PK");
  const add = await moat.api("/api/domains/deny/exact", {
    method: "POST",
    headers: { sid },
    body: JSON.stringify({ domain: "after-backup.example" }),
  });
  expect(add.status).toBe(201);
  await page.setInputFiles("#s-import", file);
  await page.click("form >> button:text('Restore')");
  await page.click("dialog >> button:text('Restore')");
  await page.waitForSelector("[data-testid=import-result]", { timeout: 20000 });
  expect(await page.textContent("[data-testid=import-result]")).toContain("gravity.db");
  const d = await apiGet<{ domains: Array<{ domain: string }> }>("/api/domains");
  expect(d.domains.map((x) => x.domain)).not.toContain("after-backup.example");
  expect(d.domains.map((x) => x.domain)).toContain("deny-me.example");
  rmSync(file);
});

test("change the upstream in the settings and see it used", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  await page.waitForSelector("#s-upstreams");
  // a wrong value is reported next to the field, with the API's message
  await page.fill("#s-upstreams", "not an address");
  await page.click("button:text('Save DNS settings')");
  await page.waitForSelector(".field.invalid .error");
  expect(await page.textContent(".field.invalid")).toContain("Upstream");
  await page.fill("#s-upstreams", up2.address);
  await page.click("button:text('Save DNS settings')");
  await page.waitForSelector(".toast:text('Saved')");
  const cfg = await apiGet<{ config: { dns: { upstreams: string[] } } }>("/api/config/dns/upstreams");
  expect(cfg.config.dns.upstreams).toEqual([up2.address]);
  await eventually(
    async () => (await dig(moat.dnsPort, "via-second.example")) === "192.0.2.2",
    "an answer from the second upstream",
  );
  expect(up2.count("via-second.example")).toBeGreaterThan(0);
  expect(up1.count("via-second.example")).toBe(0);
});

test("add a list and watch gravity's progress to the end", async () => {
  const { page } = w;
  const url = `http://127.0.0.1:${listServer.port}/hosts.txt`;
  await page.goto(`${moat.base}/admin/lists`);
  await page.fill("#l-address", url);
  await page.click("form >> button:text('Add')");
  await page.waitForSelector(`tr[data-key='${url}']`);
  await page.click(".card-head >> button:text('Update now')");
  await page.waitForSelector("[data-testid=gravity-progress]");
  await page.waitForSelector("text=Update finished", { timeout: 30000 });
  expect(await page.textContent("[data-testid=gravity-progress] .log")).toContain("Number of gravity domains: 3");
  await shot(page, "gravity-desktop");
  const lists = await apiGet<{ lists: Array<{ number: number; status: number }> }>("/api/lists");
  expect(lists.lists[0]!.number).toBeGreaterThan(0);
  await eventually(
    async () =>
      (await page.textContent(`tr[data-key='${url}'] td[data-label=Domains]`)) === String(lists.lists[0]!.number),
    "the list's count",
  );
  expect(await page.textContent(`tr[data-key='${url}'] td[data-label=Status]`)).toBe("updated");
  await eventually(
    async () => (await dig(moat.dnsPort, "listed-one.example")) === "0.0.0.0",
    "a listed name to be blocked",
  );
});

test("the blocking switch in the header: off for 5 minutes, then on again", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/lists`);
  await page.click(".blocking button:text('Disable')");
  await page.click("role=menuitem[name='For 5 minutes']");
  await page.waitForSelector("[data-testid=blocking-state]:text('Not blocking')");
  // the state flips with the POST's answer; the time left follows from the next read of the timer
  await eventually(
    async () => /4m 5\ds|5m 00s/.test((await page.textContent("[data-testid=blocking-state]")) ?? ""),
    "the time left to show",
  );
  const b = await apiGet<{ blocking: boolean; timer: number }>("/api/dns/blocking");
  expect(b.blocking).toBe(false);
  expect(b.timer).toBeGreaterThan(280);
  await eventually(
    async () => /^192\.0\.2\./.test(await dig(moat.dnsPort, "deny-me.example")),
    "a denied name to resolve while off",
  );
  await shot(page, "blocking-off-desktop");
  await page.click(".blocking button:text('Enable')");
  await page.waitForSelector("[data-testid=blocking-state]:text('Blocking')");
  expect((await apiGet<{ blocking: boolean }>("/api/dns/blocking")).blocking).toBe(true);
  // a custom time
  await page.click(".blocking button:text('Disable')");
  await page.fill(".menu-custom input", "2");
  await page.click(".menu-custom button");
  await page.waitForSelector("[data-testid=blocking-state]:text('Not blocking')");
  expect((await apiGet<{ timer: number }>("/api/dns/blocking")).timer).toBeLessThanOrEqual(120);
  await page.click(".blocking button:text('Enable')");
  await page.waitForSelector("[data-testid=blocking-state]:text('Blocking')");
});

test("every page, on a desktop and on a phone: no errors, nothing fetched from outside 127.0.0.1", async () => {
  const phone = await openPage(browser, { width: 360, height: 740 });
  phone.expected401 = true; // the first look at /api/auth, before the login
  await phone.page.goto(`${moat.base}/admin/`);
  await login(phone.page);
  phone.expected401 = false;
  for (const [name, v] of [
    ["desktop", w],
    ["phone", phone],
  ] as const) {
    for (const p of PAGES) {
      await v.page.goto(`${moat.base}/admin${p}`);
      await v.page.waitForSelector("h1.page-title");
      await v.page.waitForLoadState("networkidle");
      await v.page.waitForSelector(".loading", { state: "detached" });
      await shot(v.page, `page${p === "/" ? "-dashboard" : p.replace("/", "-")}-${name}`);
      if (name === "phone") {
        const width = await v.page.evaluate("document.documentElement.scrollWidth");
        expect(width, `page ${p} is wider than the phone`).toBeLessThanOrEqual(360);
      }
    }
  }
  // the menu opens from the header on a phone
  await phone.page.click("button[aria-label=Menu]");
  await phone.page.click("nav.side >> text=Query log");
  await phone.page.waitForSelector("h1.page-title:text('Query log')");
  // its filters are folded on a phone, so the log is in view, and open on request
  expect(await phone.page.isVisible("#query-filters")).toBe(false);
  await phone.page.click("button.filters-toggle");
  expect(await phone.page.isVisible("#query-filters input[name=domain]")).toBe(true);
  await w.page.goto(`${moat.base}/admin/queries`);
  await w.page.waitForSelector("#query-filters input[name=domain]");
  expect(await w.page.isVisible("button.filters-toggle")).toBe(false); // a desktop shows them unasked
  await phone.page.reload();
  await phone.page.waitForSelector("h1.page-title");
  await phone.page.keyboard.press("Tab"); // keyboard: the skip link comes first
  expect(await phone.page.evaluate('document.activeElement?.textContent ?? ""')).toContain("Skip to content");
  expect(phone.errors).toEqual([]);
  expect(phone.outside).toEqual([]);
  expect(w.errors).toEqual([]);
  expect(w.outside).toEqual([]);
  await phone.ctx.close();
}, 60000);
