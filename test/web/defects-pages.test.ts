// The dashboard's defects a person met in a real browser, part 1 (the fixture, a real Moat with seven
// clients' traffic: defects-fixture.ts): chart legends and card texts, the sidebar on long pages, the query
// log's Allow/Deny, status filter and phone rows, the domains' entries, the lists' counts and update result.
import { expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { eventually, logIn, openPage, shot } from "./browser.ts";
import {
  apiGet,
  apiSend,
  browser,
  fitsWidth,
  moat,
  noise,
  PASSWORD,
  useDefectsFixture,
  w,
  watchNoise,
  type InPage,
} from "./defects-fixture.ts";

declare const document: InPage, Image: InPage, getComputedStyle: InPage, NodeFilter: InPage;

useDefectsFixture();

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
  await page.goto(`${moat.base}/admin/queries?domain=www.site1*`);
  await page.waitForSelector(`tr[data-domain="${domain}"]`);
  // from here on: the previous test's page may have had a query-log read in flight, which the browser
  // aborts (ERR_ABORTED) when this navigation leaves it
  noise.length = 0;
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
