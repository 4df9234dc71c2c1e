// The dashboard in other languages, in a real browser: the pseudo-locale (en-XA, for tests: every text
// that went through the translation layer is wrapped in ⟦…⟧) shows any text on a page that did not, and
// German and Arabic (right to left) walk the pages in both themes and at both sizes with no text wider
// than the screen and no console error; screenshots go to test-output/screenshots/i18n-*.png.
// The language follows the browser's, is chosen in the header and remembered, and its catalogue is
// fetched only when it is spoken.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { launch, logIn, openPage, shot, type Watched } from "./browser.ts";

type InPage = any;
declare const document: InPage, window: InPage, NodeFilter: InPage;

const PASSWORD = "i18n correct horse";
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const THEMES = ["light", "dark"] as const;
/**
 * The pages walked in every language (path, and the text every language's heading must differ from
 * English by).
 */
const PAGES = [
  "/",
  "/queries",
  "/longterm",
  "/domains",
  "/lists",
  "/rules",
  "/groups",
  "/clients",
  "/family",
  "/network",
  "/dns",
  "/dhcp",
  "/guide",
  "/search",
  "/settings",
  "/settings/all",
  "/messages",
  "/tools",
  "/no-such-page",
];
let moat: MoatProcess;
let up: Upstream;
let browser: Browser;
let loggedIn: Awaited<ReturnType<Watched["ctx"]["storageState"]>>;

beforeAll(async () => {
  up = await startUpstream();
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["${up.address}"]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  const sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  await moat.api("/api/domains/deny/exact", {
    method: "POST",
    headers: { sid },
    body: JSON.stringify({ domain: "denied.example", comment: "no" }),
  });
  for (const name of ["www.site.example", "denied.example"])
    await run(["dig", "+short", "+time=2", "+tries=1", "-p", String(moat.dnsPort), "@127.0.0.1", name]);
  browser = await launch();
  const w = await openPage(browser);
  await logIn(w, `${moat.base}/admin/`, PASSWORD);
  await w.page.evaluate(() => window.localStorage.setItem("moat.setup.done", "1"));
  loggedIn = await w.ctx.storageState();
  await w.ctx.close();
}, 60000);

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  await up?.stop();
});

/** a context logged in, speaking `language` (its stored choice) */
async function openIn(
  language: string | null,
  viewport = SIZES.desktop,
  theme: (typeof THEMES)[number] = "light",
): Promise<Watched> {
  const w = await openPage(browser, viewport, { colorScheme: theme, storageState: loggedIn });
  if (language) await w.ctx.addInitScript((tag: string) => window.localStorage.setItem("moat.language", tag), language);
  return w;
}

/** opens a page and waits until it has drawn its data */
async function visit(page: Page, path: string): Promise<void> {
  await page.goto(`${moat.base}/admin${path === "/" ? "/" : path}`);
  // a page's first load fetches its catalogue and its data: room for a busy CI machine
  // a page without its heading (the login form, a blank page) says what it shows instead
  await page.waitForSelector("h1.page-title", { timeout: 20000 }).catch(async (e: Error) => {
    const seen = await page.evaluate(() => ({
      url: window.location.href,
      // biome-ignore lint/performance/useDomNodeTextContent: the words a person sees, not the page's script text
      text: document.body.innerText.slice(0, 300),
      storage: Object.keys(window.localStorage).join(","),
    }));
    throw new Error(`${e.message}\nthe page shows instead: ${JSON.stringify(seen)}`);
  });
  await page.waitForFunction(() => !document.querySelector(".loading, .spinner"), null, { timeout: 20000 });
}

/**
 * The visible text of the page that the translation layer did not make: each text node outside an
 * element marked `data-raw` (data: domains, addresses, names, the server's own words) and outside
 * ⟦…⟧, split into words, less the words shaped as data (numbers and times, anything with a dot, colon,
 * slash, # or @ in it: domains, addresses, versions; all capitals: record types, acronyms).
 */
async function untranslated(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest("[data-raw], script, style, noscript")) continue;
      if (el.tagName !== "OPTION" && !el.checkVisibility({ visibilityProperty: true })) continue;
      const outside = String(n.textContent).replace(/⟦[^⟧]*⟧/g, " ");
      for (const word of outside.split(/\s+/)) {
        if (!/\p{L}{2,}/u.test(word)) continue;
        if (/[.:/#@]/.test(word) || /^[\p{Lu}\d_-]+$/u.test(word)) continue;
        found.push(`${word} (in “${String(n.textContent).trim().slice(0, 60)}” of <${el.tagName.toLowerCase()}>)`);
      }
    }
    return found;
  });
}

test("the pseudo-locale: every text on every page went through the translation layer", async () => {
  const w = await openIn("en-XA");
  const found: string[] = [];
  for (const path of PAGES) {
    await visit(w.page, path);
    // the walk sees the page as drawn: the marked heading says the layer ran
    expect(await w.page.textContent("h1.page-title")).toMatch(/^⟦.*⟧$/);
    found.push(...(await untranslated(w.page)).map((f) => `${path}: ${f}`));
  }
  // the query log's "Why?" dialog too
  await visit(w.page, "/queries");
  await w.page.click("tr[data-domain='denied.example'] button:has-text('Why?')");
  await w.page.waitForSelector("[data-testid=why-details]");
  found.push(...(await untranslated(w.page)).map((f) => `why: ${f}`));
  expect(found).toEqual([]);
  expect(w.errors).toEqual([]);
  await w.ctx.close();
}, 90000);

test("the walk sees text that skipped the layer", async () => {
  const w = await openIn("en-XA");
  await visit(w.page, "/");
  expect(await untranslated(w.page)).toEqual([]);
  // a text written past t(), as a page that forgot it would show it
  await w.page.evaluate(() => {
    const p = document.createElement("p");
    p.textContent = "Forgotten words";
    document.querySelector("main")?.append(p);
  });
  expect((await untranslated(w.page)).length).toBeGreaterThan(0);
  await w.ctx.close();
}, 30000);

for (const language of ["de", "fr", "ar"])
  test(`${language}: every page in both themes and at both sizes, nothing wider than the screen, no error`, async () => {
    const problems: string[] = [];
    for (const theme of THEMES)
      for (const [size, viewport] of Object.entries(SIZES)) {
        const w = await openIn(language, viewport, theme);
        for (const path of PAGES) {
          await visit(w.page, path);
          const state = await w.page.evaluate(() => ({
            lang: document.documentElement.lang,
            dir: document.documentElement.dir,
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            title: document.querySelector("h1.page-title")?.textContent,
          }));
          expect(state.lang).toBe(language);
          expect(state.dir).toBe(language === "ar" ? "rtl" : "ltr");
          if (state.overflow > 1) problems.push(`${path} ${theme} ${size}: ${state.overflow}px wider than the screen`);
          await shot(
            w.page,
            `i18n-${language}-${path.replace(/\W+/g, "-").replace(/^-|-$/g, "") || "dashboard"}-${theme}-${size}`,
            // the visible part: 144 whole-page shots (All settings alone is 2.7 MB each) take longer than the
            // walk; the overflow is measured above for the whole page
            false,
          );
        }
        problems.push(...w.errors.map((e) => `${theme} ${size}: ${e}`));
        await w.ctx.close();
      }
    expect(problems).toEqual([]);
  }, 240000);

test("German: the menu speaks it, numbers are written its way, and only its catalogue is fetched", async () => {
  const w = await openIn("de");
  const fetched: string[] = [];
  w.page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
  await visit(w.page, "/");
  expect(await w.page.textContent("nav.side")).toContain("Anfragenprotokoll");
  expect(await w.page.textContent("h1.page-title")).toBe("Übersicht");
  expect(fetched.filter((p) => /\/i18n-/.test(p))).toEqual([
    expect.stringMatching(/\/admin\/assets\/i18n-de-\w+\.json$/),
  ]);
  // 12345 as German writes it (Intl in the chosen language)
  expect(await w.page.evaluate(() => new Intl.NumberFormat(document.documentElement.lang).format(12345))).toBe(
    "12.345",
  );
  await w.ctx.close();
}, 30000);

test("the language follows the browser's, the picker changes it at once and it is remembered", async () => {
  // a browser that prefers Austrian German, with no choice stored: German
  const w = await openPage(browser, SIZES.desktop, { storageState: loggedIn, locale: "de-AT" });
  const english: string[] = [];
  w.page.on("request", (r) => english.push(new URL(r.url()).pathname));
  await visit(w.page, "/");
  expect(await w.page.textContent("h1.page-title")).toBe("Übersicht");
  // the page drawn anew in Arabic asks nothing about the session again: a check still on its way when
  // the page is left could end it (a cut-short reply read as "logged out" dropped the CSRF token)
  const asked: string[] = [];
  w.page.on("request", (r) => asked.push(new URL(r.url()).pathname));
  // the pages' own data is asked in the same drawing as any session check would be
  const redrawn = w.page.waitForRequest((r) => new URL(r.url()).pathname === "/api/stats/summary");
  await w.page.selectOption("header .lang-pick", "ar");
  await w.page.waitForFunction(() => document.documentElement.dir === "rtl");
  await redrawn;
  expect(await w.page.textContent("h1.page-title")).toBe("لوحة التحكم");
  expect(asked.filter((p) => p === "/api/auth")).toEqual([]);
  // a new visit: the choice is remembered in this browser
  await visit(w.page, "/");
  expect(await w.page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([
    "ar",
    "rtl",
  ]);
  await w.page.selectOption("header .lang-pick", "en");
  await w.page.waitForFunction(() => document.querySelector("h1.page-title")?.textContent === "Dashboard");
  await w.ctx.close();
  // English fetches no catalogue at all
  const en = await openPage(browser, SIZES.desktop, { storageState: loggedIn, locale: "en-US" });
  const fetched: string[] = [];
  en.page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
  await visit(en.page, "/");
  expect(fetched.filter((p) => /\/i18n-/.test(p))).toEqual([]);
  await en.ctx.close();
}, 60000);

test("a catalogue that does not come: the page speaks English, and the picker says so", async () => {
  const w = await openIn("de");
  // the German catalogue never answers (a connection that stalls): the first picture comes in English
  await w.page.route(/\/admin\/assets\/i18n-de-\w+\.json$/, () => undefined);
  await visit(w.page, "/");
  expect(await w.page.textContent("h1.page-title")).toBe("Dashboard");
  expect(await w.page.evaluate(() => document.documentElement.lang)).toBe("en");
  // French is not found (a page kept from an older version names a catalogue no longer served): the
  // picker says so and stays on the language the page speaks
  await w.page.route(/\/admin\/assets\/i18n-fr-\w+\.json$/, (r) => r.fulfill({ status: 404, body: "" }));
  await w.page.selectOption("header .lang-pick", "fr");
  await w.page.waitForSelector(".toast.error:has-text('The language could not be loaded')");
  expect(await w.page.inputValue("header .lang-pick")).toBe("en");
  expect(await w.page.textContent("h1.page-title")).toBe("Dashboard");
  expect(w.errors).toEqual([]);
  await w.ctx.close();
}, 60000);
