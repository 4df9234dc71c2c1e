// The Messages, Long-term data and Tools pages in a real browser against a real Moat: a message
// raised by an emptied upstream list (and one stored as Moat's DHCP check stores a rival server)
// shows on the page and in the header's count, and is dismissed one by one and all at once; queries
// sent with dig reach the long-term database (database.DBinterval = 1) and the page shows their
// totals and the stored rows; the log tail shows a line an action wrote and holds still while paused.
// Every result is checked through the API as well; desktop, phone and dark screenshots of each page.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { dig, eventually, launch, logIn, openPage, shot, type Watched } from "./browser.ts";

const PASSWORD = "data pages password";
const PAGES = [
  ["/messages", "Messages"],
  ["/longterm", "Long-term data"],
  ["/tools", "Tools"],
] as const;
let moat: MoatProcess;
let up: Upstream;
let browser: Browser;
let w: Watched;
let sid = "";

async function api<T = any>(path: string, init: RequestInit = {}): Promise<T> {
  const r = await moat.api(path, { ...init, headers: { sid, ...(init.headers ?? {}) } });
  expect(r.status).toBeLessThan(300);
  return (r.status === 204 ? {} : await r.json()) as T;
}

type Msg = { id: number; type: string; plain: string; blobs?: unknown[] };
const messages = async () => (await api<{ messages: Msg[] }>("/api/info/messages")).messages;

/** a message as Moat's DHCP check stores one (src/dhcp/service.ts): a rival server is hard to stage */
function storeMessage(text: string, ...blobs: string[]): void {
  const db = new Database(join(moat.dataDir, "pihole-FTL.db"));
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.query("INSERT INTO message (timestamp, type, message, blob1, blob2) VALUES (?, 'DNSMASQ_WARN', ?, ?, ?)").run(
      Date.now() / 1000,
      text,
      blobs[0] ?? null,
      blobs[1] ?? null,
    );
  } finally {
    db.close();
  }
}

async function login(x: Watched, path: string): Promise<void> {
  await logIn(x, `${moat.base}/admin${path}`, PASSWORD, "header.top");
}

beforeAll(async () => {
  up = await startUpstream();
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["${up.address}"]\n[database]\n  DBinterval = 1\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  browser = await launch();
  w = await openPage(browser);
  await login(w, "/messages");
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  await up?.stop();
});

test("Messages: an emptied upstream list shows on the page and in the badge; dismiss one, then all", async () => {
  const { page } = w;
  await page.waitForSelector("h1.page-title:text('Messages')");
  await page.waitForSelector("text=No messages");
  expect(await page.locator("[data-testid=message-count]").count()).toBe(0);

  await api("/api/config", { method: "PATCH", body: JSON.stringify({ config: { dns: { upstreams: [] } } }) });
  storeMessage("Another DHCP server answers on eth9: 192.0.2.67.", "eth9", "192.0.2.67");
  // the values stored beside the text are served where a message has any
  expect((await messages()).map((m) => [m.plain, m.blobs])).toEqual([
    ["no upstream servers configured", undefined],
    ["Another DHCP server answers on eth9: 192.0.2.67.", ["eth9", "192.0.2.67", null, null, null]],
  ]);
  // the poll runs every 30 s; opening the page looks at once (a reload would show the first-run
  // setup, which an empty upstream list brings back)
  await page.click("nav.side >> text=Dashboard");
  await page.click("nav.side >> text=Messages");
  await page.waitForSelector(".msg:has-text('no upstream servers configured')");
  const rival = page.locator(".msg:has-text('Another DHCP server answers on eth9')");
  await rival.waitFor();
  // the blobs beside the text, named
  expect(await rival.locator(".msg-blobs dt").allTextContents()).toEqual(["Interface", "Other DHCP servers"]);
  expect(await rival.locator(".msg-blobs dd").allTextContents()).toEqual(["eth9", "192.0.2.67"]);
  expect((await page.locator("[data-testid=message-count]").textContent())?.replace(/\D/g, "")).toBe("2");
  // the banners above the page would repeat the list: not on this page
  expect(await page.locator(".banner").count()).toBe(0);
  await shot(page, "messages-desktop");

  await rival.locator("button:text('Dismiss')").click();
  await rival.waitFor({ state: "detached" });
  const left = await messages();
  expect(left.map((m) => m.plain)).toEqual(["no upstream servers configured"]);
  await eventually(
    async () => (await page.locator("[data-testid=message-count]").textContent())?.replace(/\D/g, "") === "1",
    "badge shows 1",
  );

  storeMessage("Another DHCP server answers on eth8: 192.0.2.68.", "eth8", "192.0.2.68");
  await page.click("nav.side >> text=Dashboard");
  await page.click("nav.side >> text=Messages");
  await page.waitForSelector(".msg:has-text('eth8')");
  await page.click("button:text('Dismiss all')");
  // the confirmation's own button
  await page.click("dialog button:text('Dismiss all')");
  await page.waitForSelector("text=No messages");
  expect(await messages()).toEqual([]);
  expect(await page.locator("[data-testid=message-count]").count()).toBe(0);

  await api("/api/config", {
    method: "PATCH",
    body: JSON.stringify({ config: { dns: { upstreams: [up.address] } } }),
  });
  expect(w.errors).toEqual([]);
}, 60000);

test("Long-term data: totals, charts, tops and the stored query log of what dig sent", async () => {
  const { page } = w;
  const names = ["lt-one.example", "lt-one.example", "lt-one.example", "lt-two.example"];
  for (const n of names) expect(await dig(moat.dnsPort, n)).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  // DBinterval = 1: the writer moves them to pihole-FTL.db within a few seconds
  const now = () => Math.floor(Date.now() / 1000);
  await eventually(async () => {
    const r = await api<{ recordsFiltered: number }>(
      `/api/queries?disk=true&domain=lt-*&from=${now() - 3600}&until=${now() + 60}`,
    );
    return r.recordsFiltered >= names.length;
  }, "queries in the long-term database");

  const diskLog = page.waitForResponse((r) => /\/api\/queries\?.*disk=true/.test(r.url()) && r.ok());
  const pageSum = page.waitForResponse((r) => r.url().includes("/api/stats/database/summary") && r.ok());
  await page.click("nav.side >> text=Long-term data");
  await page.waitForSelector("h1.page-title:text('Long-term data')");
  expect(new URL((await diskLog).url()).searchParams.get("disk")).toBe("true");
  // the page's range is the last 24 h up to now, the current second included
  const asked = new URL((await pageSum).url()).searchParams;
  expect(Number(asked.get("until"))).toBeGreaterThanOrEqual(Date.now() / 1000 - 5);
  expect(Number(asked.get("until")) - Number(asked.get("from"))).toBe(86400);
  const sum = await api<{ sum_queries: number }>(`/api/stats/database/summary?${asked}`);
  expect(sum.sum_queries).toBeGreaterThanOrEqual(names.length);
  await eventually(
    async () =>
      Number((await page.locator("[data-testid=lt-total] .stat-value").textContent())?.replace(/\D/g, "")) ===
      sum.sum_queries,
    "total queries from the database",
  );
  await page.waitForSelector(".bars li:has-text('lt-one.example')");
  const rows = page.locator(".disk-queries tbody tr");
  await page.locator(".disk-queries tr[data-domain='lt-two.example']").waitFor();

  // the Query log page's filters, here over the database
  const filtered = page.waitForResponse(
    (r) => /\/api\/queries\?.*disk=true/.test(r.url()) && r.url().includes("domain=lt-two.example"),
  );
  if (await page.locator("button.filters-toggle").isVisible()) await page.click("button.filters-toggle");
  await page.fill("#query-filters input[name=domain]", "lt-two.example");
  await page.click("#query-filters button[type=submit]");
  await filtered;
  await eventually(async () => (await rows.count()) === 1, "one stored row of lt-two.example");
  expect(await rows.first().getAttribute("data-domain")).toBe("lt-two.example");
  await shot(page, "longterm-desktop");

  // another range asks the database for that range
  const week = page.waitForResponse((r) => r.url().includes("/api/stats/database/summary"));
  const weekChart = page.waitForResponse((r) => r.url().includes("/api/history/database?"));
  await page.click("label:text('Last 7 days')");
  const u = new URL((await week).url());
  const span = Number(u.searchParams.get("until")) - Number(u.searchParams.get("from"));
  expect(span).toBe(7 * 86400);
  // a week in ~300 points (40 minutes each) rather than 1,008 ten-minute slots, none of the queries lost
  const chart = await weekChart;
  expect(new URL(chart.url()).searchParams.get("interval")).toBe("2400");
  const points = ((await chart.json()) as { history: Array<{ timestamp: number; total: number }> }).history;
  expect(points.length).toBeLessThanOrEqual(300);
  expect(points.every((p) => p.timestamp % 2400 === 0)).toBe(true);
  const fine = await api<{ history: Array<{ total: number }> }>(
    `/api/history/database?from=${u.searchParams.get("from")}&until=${u.searchParams.get("until")}`,
  );
  expect(fine.history.length).toBeGreaterThan(1000);
  const total = (h: Array<{ total: number }>) => h.reduce((n, p) => n + p.total, 0);
  expect(total(points)).toBe(total(fine.history));
  expect(total(points)).toBeGreaterThanOrEqual(names.length);

  // a custom range: from-until as typed (local time, to the minute)
  await page.click("label:text('Custom')");
  const from = new Date(Date.now() - 2 * 3600_000);
  from.setSeconds(0, 0);
  const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  await page.fill("input[name=range-from]", local(from));
  await page.fill("input[name=range-until]", local(new Date(from.getTime() + 3600_000)));
  const custom = page.waitForResponse((r) => r.url().includes("/api/stats/database/summary"));
  await page.click("form.range-picker button[type=submit]");
  const cu = new URL((await custom).url());
  expect(Number(cu.searchParams.get("from"))).toBe(from.getTime() / 1000);
  expect(Number(cu.searchParams.get("until"))).toBe(from.getTime() / 1000 + 3600);
  expect(w.errors).toEqual([]);
}, 60000);

test("Tools: the log tail shows a new line after an action and holds still while paused", async () => {
  const { page } = w;
  await page.click("nav.side >> text=Tools");
  await page.waitForSelector("h1.page-title:text('Tools')");
  // the tabs switch logs (with the arrow keys too), each asking its own route
  const dns = page.waitForResponse((r) => r.url().includes("/api/logs/dnsmasq?nextID=0"));
  await page.click("[role=tab]:text('DNS')");
  await dns;
  await page.keyboard.press("ArrowLeft");
  await page.waitForSelector("[role=tab][aria-selected=true]:text('Moat (FTL)')");
  // Moat's start-up lines are there: the first poll has answered
  await page.locator(".log-tail .log-line").first().waitFor();
  const lines = page.locator(".log-tail .log-line:has-text('restartdns: reloading')");
  const before = await lines.count();

  await api("/api/action/restartdns", { method: "POST" });
  await eventually(async () => (await lines.count()) === before + 1, "the restartdns line in the tail");

  await page.click("label.switch:has(#log-live)");
  await page.waitForSelector("label[for=log-live]:text('Paused')");
  await api("/api/action/restartdns", { method: "POST" });
  // the server has the line; the paused page does not ask for it (it polls every second when live)
  const log = await api<{ log: Array<{ message: string }> }>("/api/logs/ftl");
  expect(log.log.filter((l) => l.message.includes("restartdns: reloading")).length).toBe(before + 2);
  await Bun.sleep(2500);
  expect(await lines.count()).toBe(before + 1);

  await page.click("label.switch:has(#log-live)");
  await eventually(async () => (await lines.count()) === before + 2, "the line held back while paused");

  // the filter keeps only lines with the text
  await page.fill("input[name=log-filter]", "restartdns: reloading");
  await eventually(
    async () => (await page.locator(".log-tail .log-line").count()) === before + 2,
    "only the matching lines",
  );
  expect(await page.locator("[data-testid=log-count]").textContent()).toContain(`${before + 2} of`);
  await shot(page, "tools-desktop");

  // the menu leads to gravity and the Teleporter
  await page.click("a:text('Update lists on the Lists page')");
  await page.waitForSelector("h1.page-title:text('Lists')");
  expect(w.errors).toEqual([]);
}, 60000);

test("each page on a phone and in the dark theme, without console errors", async () => {
  storeMessage("Another DHCP server answers on eth7: 192.0.2.69.", "eth7", "192.0.2.69");
  for (const [name, viewport] of [
    ["desktop", { width: 1280, height: 800 }],
    ["phone", { width: 390, height: 844 }],
  ] as const) {
    const x = await openPage(browser, viewport);
    await login(x, "/messages");
    for (const scheme of ["light", "dark"] as const) {
      await x.page.emulateMedia({ colorScheme: scheme });
      for (const [p, title] of PAGES) {
        await x.page.goto(`${moat.base}/admin${p}`);
        await x.page.waitForSelector(`h1.page-title:text-is('${title}')`);
        await x.page.waitForLoadState("networkidle");
        // nothing wider than the screen
        const wide = Number(await x.page.evaluate("document.documentElement.scrollWidth"));
        expect(wide).toBeLessThanOrEqual(viewport.width);
        await shot(x.page, `${p.slice(1)}-${name}-${scheme}`);
      }
    }
    expect(x.errors).toEqual([]);
    await x.ctx.close();
  }
}, 90000);
