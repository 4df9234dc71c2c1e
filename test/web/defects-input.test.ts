// The dashboard's defects a person met in a real browser, part 2 (the fixture: defects-fixture.ts): very
// long input, the clients' suggestions and names, Settings' toasts, the keyboard (the blocking menu, the add
// form, the confirm dialog, focus after a page change), the pages on a desktop and a phone, and logout.
import { afterEach, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { eventually, logIn, openPage, shot, type Watched } from "./browser.ts";
import {
  apiGet,
  apiSend,
  browser,
  fitsWidth,
  moat,
  noise,
  PASSWORD,
  up,
  useDefectsFixture,
  w,
  type InPage,
} from "./defects-fixture.ts";

declare const document: InPage, window: InPage;

useDefectsFixture();

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
