// The dashboard's defects a person met in a real browser, each walked here against a real Moat with
// DNS traffic from seven loopback clients: chart legends and card texts, the sidebar on long pages,
// the query log's Allow/Deny, status filter and phone rows, the lists' entries, counts and update
// result, very long input, the clients' suggestions and names, Settings' toasts and logout, and the
// keyboard (the blocking menu, the confirm dialog, focus after a page change).
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { eventually, launch, logIn, openPage, shot, type Watched } from "./browser.ts";

// The browser's globals, for the functions that run inside the page: the tests' TypeScript has no
// DOM library, and these are only ever called by playwright in the page.
type InPage = any;
declare const document: InPage, window: InPage, Image: InPage, getComputedStyle: InPage, NodeFilter: InPage;

const PASSWORD = "defects correct horse";
/** seven clients, each with a local record so its address has a name (PTR through dns.hosts) */
const CLIENTS = [11, 12, 13, 14, 15, 16, 17].map((n) => ({ ip: `127.0.0.${n}`, name: `device${n}.lan` }));
let moat: MoatProcess;
let up: Upstream;
let browser: Browser;
let w: Watched;
let listServer: ReturnType<typeof Bun.serve>;
let sid = "";
/** every console error (4xx included) and every failed request, which browser.ts lets pass */
const noise: string[] = [];

async function apiGet<T = any>(path: string): Promise<T> {
  const r = await moat.api(path, { headers: { sid } });
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}

async function apiSend(method: string, path: string, body: unknown): Promise<Response> {
  return moat.api(path, { method, headers: { sid, "content-type": "application/json" }, body: JSON.stringify(body) });
}

function watchNoise(page: Page): void {
  page.on("console", (m) => {
    if (m.type() === "error") noise.push(`console: ${m.text()}`);
  });
  page.on("requestfailed", (r) => noise.push(`failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400 && r.status() !== 401) noise.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
}

async function login(): Promise<void> {
  await logIn(w, `${moat.base}/admin/`, PASSWORD);
}

async function digFrom(ip: string, name: string): Promise<void> {
  await run(["dig", "+short", "+time=2", "+tries=1", "-b", ip, "-p", String(moat.dnsPort), "@127.0.0.1", name]);
}

/** whether the page is no wider than its window (nothing pushes it sideways) */
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

beforeAll(async () => {
  up = await startUpstream();
  listServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/hosts/blocklist-with-a-rather-long-name-for-wrapping.txt")
        return new Response("0.0.0.0 listed-one.example\n0.0.0.0 listed-two.example\n");
      if (path === "/abp-only.txt")
        return new Response("||abp-one.example^\n||abp-two.example^\n||abp-three.example^\n");
      return new Response("gone", { status: 404 });
    },
  });
  const hosts = CLIENTS.map((c) => `"${c.ip} ${c.name}"`).join(", ");
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["${up.address}"]\n  hosts = [${hosts}]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  // the lists: one hosts file, one ABP-only, two that fail to download
  const lists = [
    `http://127.0.0.1:${listServer.port}/hosts/blocklist-with-a-rather-long-name-for-wrapping.txt`,
    `http://127.0.0.1:${listServer.port}/abp-only.txt`,
    `http://127.0.0.1:${listServer.port}/missing-one.txt`,
    `http://127.0.0.1:${listServer.port}/missing-two.txt`,
  ];
  for (const address of lists) expect((await apiSend("POST", "/api/lists?type=block", { address })).status).toBe(201);
  await (await moat.api("/api/action/gravity", { method: "POST", headers: { sid } })).text();
  // traffic: every client asks a few names, one of them blocked
  for (const c of CLIENTS)
    for (const name of [`www.site${c.ip.slice(-2)}.example`, "listed-one.example", `cdn${c.ip.slice(-2)}.example`])
      await digFrom(c.ip, name);
  for (let i = 0; i < 40; i++) await digFrom(CLIENTS[i % 7]!.ip, `filler${i}.example`);
  browser = await launch();
  w = await openPage(browser);
  watchNoise(w.page);
  await login();
  // a gravity run, 61 digs and a browser: well past the default 30 s on a loaded machine
}, 120_000);

afterAll(async () => {
  await browser?.close();
  listServer?.stop(true);
  await moat?.dispose();
  await up?.stop();
});

test("Dashboard: every legend shows a number, and the blocked card says what it counts", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/`);
  await page.waitForSelector(".u-legend");
  await eventually(async () => (await page.locator(".u-legend").count()) === 2, "both charts");
  const values = await page.$$eval(".u-legend .u-series .u-value", (els) => els.map((e) => e.textContent ?? ""));
  expect(values.length).toBeGreaterThan(2);
  for (const v of values) expect(v).toMatch(/\d|total/);
  const sub = await page.textContent("[data-testid=stat-blocked] .stat-sub");
  expect(sub).not.toContain("cache");
  expect(sub).toContain("queries");
  await shot(page, "defects-dashboard-desktop");
});

/** the colour of the full-page screenshot at (x, y from the bottom), read through a canvas */
async function pixelNearBottom(page: Page, x: number): Promise<[number, number, number]> {
  const png = (await page.screenshot({ fullPage: true })).toString("base64");
  return page.evaluate(
    async ({ png, x }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${png}`;
      await img.decode();
      const c = document.createElement("canvas");
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext("2d")!;
      g.drawImage(img, 0, 0);
      const d = g.getImageData(x, img.height - 20, 1, 1).data;
      return [d[0]!, d[1]!, d[2]!] as [number, number, number];
    },
    { png, x },
  );
}

test("the sidebar's background reaches the bottom of a long page, light and dark", async () => {
  const { page } = w;
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${moat.base}/admin/queries`);
    await page.waitForSelector("table.queries tbody tr");
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeGreaterThan(1600);
    const panel = await page.evaluate(() => getComputedStyle(document.querySelector("nav.side")!).backgroundColor);
    const [r, g, b] = await pixelNearBottom(page, 60);
    expect(`rgb(${r}, ${g}, ${b})`).toBe(panel);
    // and its border line, at the sidebar's right edge
    const line = await page.evaluate(() => getComputedStyle(document.querySelector("nav.side")!).borderRightColor);
    const edge = await page.evaluate(
      () => Math.round(document.querySelector("nav.side")!.getBoundingClientRect().right) - 1,
    );
    const [r2, g2, b2] = await pixelNearBottom(page, edge);
    expect(`rgb(${r2}, ${g2}, ${b2})`).toBe(line);
    await shot(page, `defects-queries-desktop-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
});

test("Query log: Deny sends no DELETE that fails, and takes the domain off the allow list", async () => {
  const { page } = w;
  const domain = "www.site11.example";
  expect((await apiSend("POST", "/api/domains/allow/exact", { domain })).status).toBe(201);
  const deletes: string[] = [];
  const onReq = (r: { method(): string; url(): string }) => {
    if (r.method() === "DELETE") deletes.push(r.url());
  };
  page.on("request", onReq);
  noise.length = 0;
  await page.goto(`${moat.base}/admin/queries?domain=www.site1*`);
  await page.waitForSelector(`tr[data-domain="${domain}"]`);
  await page.click(`tr[data-domain="${domain}"] >> button:text('Deny')`);
  await page.waitForSelector(`.toast:text('${domain} denied')`);
  // a second one whose allow entry never existed: nothing to take off, so nothing is deleted
  await page.click(`tr[data-domain="www.site12.example"] >> button:text('Deny')`);
  await page.waitForSelector(".toast:text('www.site12.example denied')");
  page.off("request", onReq);
  const deny = (await apiGet("/api/domains/deny/exact")).domains.map((d: { domain: string }) => d.domain);
  expect(deny).toContain(domain);
  expect(deny).toContain("www.site12.example");
  expect((await apiGet("/api/domains/allow/exact")).domains).toEqual([]);
  expect(deletes.length).toBeLessThanOrEqual(1);
  expect(noise).toEqual([]);
  expect(w.errors).toEqual([]);
});

test("Query log: the status filter offers what a person filters by, and filters by it", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/queries`);
  await page.waitForSelector("select[name=status]", { state: "attached" });
  const options = await page.$$eval("select[name=status] option", (els) => els.map((e) => e.textContent ?? ""));
  expect(options.length).toBeLessThan(12);
  for (const raw of ["DBBUSY", "IN_PROGRESS", "RETRIED_DNSSEC", "GRAVITY_CNAME"])
    expect(options.join("|")).not.toContain(raw);
  expect(options.join("|")).toMatch(/Blocked/);
  await page.selectOption("select[name=status]", { label: "Blocked (any reason)" });
  await page.click("#query-filters button[type=submit]");
  await page.waitForURL(/upstream=blocklist/);
  // the rows of the filter before stay no longer than its load takes (a spinner meanwhile), then
  // every row is a blocked query
  const classes = () => page.$$eval("table.queries tbody tr", (els) => els.map((e) => e.className));
  await eventually(async () => (await classes()).length > 0 && !(await page.$("p.loading")), "the filtered rows");
  const rows = await classes();
  expect(rows.length).toBeGreaterThan(0);
  for (const c of rows) expect(c).toContain("blocked");
  // the status select shows the filter in force, also when it came from a link
  expect(await page.$eval("select[name=status]", (e) => (e as InPage).value)).not.toBe("");
  expect(w.errors).toEqual([]);
});

test("Query log on a phone: a row is compact", async () => {
  const phone = await openPage(browser, { width: 390, height: 844 });
  watchNoise(phone.page);
  await logIn(phone, `${moat.base}/admin/queries`, PASSWORD, "table.queries tbody tr");
  const heights = await phone.page.$$eval("table.queries tbody tr", (els) =>
    els.slice(0, 10).map((e) => e.getBoundingClientRect().height),
  );
  for (const h of heights) expect(h).toBeLessThanOrEqual(80);
  expect(await fitsWidth(phone.page)).toBe(true);
  await shot(phone.page, "defects-queries-phone");
  await phone.page.emulateMedia({ colorScheme: "dark" });
  await shot(phone.page, "defects-queries-phone-dark");
  expect(phone.errors).toEqual([]);
  await phone.ctx.close();
});

test("Domains: wildcard and ABP entries show as written, not as the regex stored", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/domains`);
  await page.waitForSelector("tr[data-key]");
  await page.selectOption("#d-kind", "wildcard");
  await page.fill("#d-domain", "wild.example");
  await page.click("form >> button:text('Add')");
  await page.waitForSelector("tr[data-key*='wild']");
  await page.selectOption("#d-kind", "exact");
  await page.fill("#d-domain", "||abp.example^");
  await page.click("form >> button:text('Add')");
  await eventually(async () => (await page.locator("tr[data-key*='abp']").count()) === 1, "the ABP row");
  const text = await page.textContent("table.table tbody");
  expect(text).toContain("*.wild.example");
  expect(text).toContain("*.abp.example");
  expect(text).not.toContain("(\\.|^)");
  expect(text).toContain("wildcard");
  await shot(page, "defects-domains-desktop");
  expect(w.errors).toEqual([]);
});

test("Lists: ABP entries count, a failed update says how many lists failed, URLs wrap between words", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/lists`);
  await page.waitForSelector("tr[data-key*='abp-only']");
  noise.length = 0;
  const abpCount = await page.textContent("tr[data-key*='abp-only'] td[data-label='ABP entries']");
  expect(abpCount).toBe("3");
  // an address wraps only after a separator (/ . - _), never inside a word
  const badBreaks = await page.$eval("tr[data-key*='long-name'] td[data-label=Address]", (td) => {
    const text = td.textContent ?? "";
    const range = document.createRange();
    const bad: string[] = [];
    let lastTop = -1;
    let i = 0;
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (let k = 0; k < (n.textContent ?? "").length; k++, i++) {
        range.setStart(n, k);
        range.setEnd(n, k + 1);
        const top = Math.round(range.getBoundingClientRect().top);
        if (lastTop >= 0 && top > lastTop + 2 && !/[/._-]/.test(text[i - 1] ?? "")) bad.push(text.slice(i - 5, i + 5));
        lastTop = top;
      }
    }
    return bad;
  });
  expect(badBreaks).toEqual([]);
  await page.click("button:text('Update now')");
  await page.waitForSelector("[data-testid=gravity-progress] progress[value='100']", { timeout: 20000 });
  const head = await page.textContent("[data-testid=gravity-progress] strong");
  expect(head).toContain("2 of 4 lists failed");
  await Bun.sleep(300);
  expect(noise).toEqual([]);
  await shot(page, "defects-lists-desktop");
  expect(w.errors).toEqual([]);
});

/** whether the page is no wider than its window and no table needs a sideways scroll */
const tablesFit = (page: Page) =>
  page.evaluate(() => [...document.querySelectorAll(".table-wrap")].every((t) => t.scrollWidth <= t.clientWidth + 1));

test("very long input wraps: the longest group name, comment and domain keep the page and tables their width", async () => {
  const { page } = w;
  // the longest the API takes (src/api/lists/input.ts MAX_LEN), in one unbroken word each
  const name = "g".repeat(255);
  expect((await apiSend("POST", "/api/groups", { name })).status).toBe(201);
  const group = (await apiGet("/api/groups")).groups.find((g: { name: string }) => g.name === name).id;
  const r = await apiSend("POST", "/api/domains/deny/exact", {
    domain: `${"d".repeat(60)}.${"e".repeat(60)}.${"f".repeat(60)}.example`,
    comment: "c".repeat(1024),
    groups: [0, group],
  });
  expect(r.status).toBe(201);
  for (const path of ["/groups", "/domains"]) {
    await page.goto(`${moat.base}/admin${path}`);
    await page.waitForSelector("tr[data-key]");
    expect(await fitsWidth(page)).toBe(true);
    expect(await tablesFit(page)).toBe(true);
  }
  await shot(page, "defects-long-input-desktop");
  // a 12 KB domain typed into the form: the error echoes at most 500 characters of it, wrapped
  await page.fill("#d-domain", `${"a".repeat(12000)}.example`);
  await page.click("form >> button:text('Add')");
  await page.waitForSelector(".field.invalid .error");
  expect(((await page.textContent(".field.invalid .error")) ?? "").length).toBeLessThan(800);
  expect(await fitsWidth(page)).toBe(true);
  expect(w.errors).toEqual([]);
});

test("Clients: the seven clients of the log are suggested, and a client's name is shown", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/clients`);
  await page.waitForSelector(".suggestions .chip");
  const chips = await page.$$eval(".suggestions .chip", (els) => els.map((e) => e.textContent ?? ""));
  expect(chips.length).toBeGreaterThanOrEqual(7);
  expect(chips.join(" ")).toContain("device13.lan");
  await page.click(".suggestions .chip:text('device13.lan')");
  expect(await page.inputValue("#c-client")).toBe("127.0.0.13");
  await page.click("form >> button:text('Add')");
  await page.waitForSelector("tr[data-key='127.0.0.13']");
  expect(await page.textContent("tr[data-key='127.0.0.13'] td[data-label=Name]")).toContain("device13.lan");
  expect((await apiGet("/api/clients")).clients.map((c: { client: string }) => c.client)).toEqual(["127.0.0.13"]);
  await shot(page, "defects-clients-desktop");
  expect(w.errors).toEqual([]);
});

test("Settings: one toast at a time, and an empty upstream list is not just 'Saved'", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  await page.waitForSelector("#s-upstreams");
  for (let i = 0; i < 3; i++) {
    await page.click("button:text('Save DNS settings')");
    await page.waitForSelector(".toast");
  }
  expect(await page.locator(".toast").count()).toBe(1);
  await page.fill("#s-upstreams", "");
  await page.click("button:text('Save DNS settings')");
  await eventually(async () => /fail/i.test((await page.textContent(".toasts")) ?? ""), "the empty-upstream warning");
  expect(await page.textContent(".toasts")).not.toBe("Saved");
  expect((await apiGet("/api/config/dns/upstreams")).config.dns.upstreams).toEqual([]);
  await page.fill("#s-upstreams", up.address);
  await page.click("button:text('Save DNS settings')");
  await eventually(async () => (await page.textContent(".toasts")) === "Saved", "saved again");
  expect(await page.locator(".toast").count()).toBe(1);
  await shot(page, "defects-settings-desktop");
  expect(w.errors).toEqual([]);
});

test("Keyboard: the blocking menu answers arrows and Escape", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/`);
  await page.click("button:text('Disable')");
  await page.waitForSelector(".blocking .menu");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("For 5 minutes");
  await page.keyboard.press("ArrowDown");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("For 1 hour");
  await page.keyboard.press("ArrowUp");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("For 5 minutes");
  await page.keyboard.press("Escape");
  expect(await page.locator(".blocking .menu").count()).toBe(0);
  expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("Disable");
  expect((await apiGet("/api/dns/blocking")).blocking).toBe(true);
});

test("Domains: what is typed in the add form stays while the list under it changes", async () => {
  const { page } = w;
  const victim = "gone-while-typing.example";
  expect((await apiSend("POST", "/api/domains/deny/exact", { domain: victim })).status).toBe(201);
  await page.goto(`${moat.base}/admin/domains`);
  await page.waitForSelector(`tr[data-key*='${victim}'] button:text('Delete')`);
  await page.fill("#d-domain", "typed-not-yet-added.example");
  // a row goes, so the list's length changes under the form: the form keeps what was typed
  await page.click(`tr[data-key*='${victim}'] button:text('Delete')`);
  await page.click("dialog[open] >> button:text('Delete')");
  await eventually(async () => (await page.locator(`tr[data-key*='${victim}']`).count()) === 0, "the row gone");
  expect(await page.inputValue("#d-domain")).toBe("typed-not-yet-added.example");
  // after a successful add the form starts empty again
  await page.click("form >> button:text('Add')");
  await page.waitForSelector("tr[data-key*='typed-not-yet-added']");
  await eventually(async () => (await page.inputValue("#d-domain")) === "", "the form emptied after the add");
  expect(w.errors).toEqual([]);
});

test("Keyboard: the confirm dialog focuses Cancel, so Enter deletes nothing", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/domains`);
  await page.waitForSelector("tr[data-key] button:text('Delete')");
  const before = (await apiGet("/api/domains")).domains.length;
  await page.click("tr[data-key] >> nth=0 >> button:text('Delete')");
  await page.waitForSelector("dialog[open]");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
  await page.keyboard.press("Enter");
  expect(await page.locator("dialog[open]").count()).toBe(0);
  expect((await apiGet("/api/domains")).domains.length).toBe(before);
});

test("Keyboard: after a page change focus is on the new page's heading", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/`);
  await page.waitForSelector("nav.side");
  await page.focus("nav.side a:text('Groups')");
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/groups$/);
  await eventually(async () => (await page.evaluate(() => document.activeElement?.tagName)) === "H1", "focus on H1");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Groups");
});

/**
 * Pages a test opened beside the shared one: closed after it, also after it timed out, so its body (which
 * bun leaves running) fails on a closed page instead of driving a browser the next test uses.
 */
const ownPages: Watched[] = [];
afterEach(async () => {
  for (const p of ownPages.splice(0)) await p.ctx.close().catch(() => {});
});

/** 28 page loads and screenshots: on a loaded machine past the default 30 s */
const SCREENSHOTS_MS = 120_000;

test(
  "the pages these fixes touch, on a desktop and a phone, light and dark: screenshots, no errors",
  async () => {
    const pages = ["/", "/queries", "/domains", "/lists", "/groups", "/clients", "/settings"];
    for (const [size, viewport, ready] of [
      ["desktop", { width: 1280, height: 860 }, "nav.side"],
      ["phone", { width: 390, height: 844 }, "header.top"],
    ] as const) {
      const who = await openPage(browser, viewport);
      ownPages.push(who);
      await logIn(who, `${moat.base}/admin/`, PASSWORD, ready);
      for (const scheme of ["light", "dark"] as const) {
        // a reload per scheme: the charts take their colours from the page's style when drawn
        await who.page.emulateMedia({ colorScheme: scheme });
        for (const path of pages) {
          await who.page.goto(`${moat.base}/admin${path}`);
          await who.page.waitForSelector("h1.page-title");
          await who.page.waitForLoadState("networkidle");
          expect(await fitsWidth(who.page)).toBe(true);
          await shot(who.page, `defects-page${path === "/" ? "-dashboard" : path.replace("/", "-")}-${size}-${scheme}`);
        }
      }
      expect([size, who.errors]).toEqual([size, []]);
    }
  },
  SCREENSHOTS_MS,
);

test("Log out leaves no console error and no aborted request", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  await page.waitForSelector("#s-upstreams");
  await Bun.sleep(300);
  noise.length = 0;
  w.expected401 = true;
  await page.click("button.top-logout");
  await page.waitForSelector("#password");
  await Bun.sleep(500);
  expect(noise).toEqual([]);
  expect(w.errors).toEqual([]);
});
