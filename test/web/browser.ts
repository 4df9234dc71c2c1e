// A real browser for the dashboard tests: Debian's chromium driven by playwright-core. One browser
// per test file; every page records console errors and any request that leaves 127.0.0.1, and
// screenshots go to test-output/screenshots/ (not committed) for people to look at.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { ROOT, run } from "../harness/moat.ts";

const CHROMIUM = "/usr/bin/chromium";
const SHOTS = join(ROOT, "test-output/screenshots");

/**
 * playwright gives each launch a fresh profile directory of its own (it refuses --user-data-dir);
 * `executable` runs chromium another way (a script that starts it in a network namespace)
 */
export async function launch(executable = CHROMIUM): Promise<Browser> {
  return chromium.launch({
    executablePath: executable,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface Watched {
  ctx: BrowserContext;
  page: Page;
  /** console errors and uncaught exceptions */
  errors: string[];
  /** requests to anything but 127.0.0.1 */
  outside: string[];
  /** whether a 401 is expected now (logged out, or the session was ended) */
  expected401: boolean;
}

export async function openPage(
  browser: Browser,
  viewport = { width: 1280, height: 860 },
  /** more of the context: a colour scheme, a logged-in session's storage state */
  more: BrowserContextOptions = {},
): Promise<Watched> {
  const ctx = await browser.newContext({ viewport, acceptDownloads: true, ...more });
  const page = await ctx.newPage();
  // fail a step well before the test's own limit, which would end the shared browser
  page.setDefaultTimeout(10000);
  const w: Watched = { ctx, page, errors: [], outside: [], expected401: false };
  page.on("console", (m) => {
    // the browser logs every 4xx answer of the API as a console error; those are answers the page
    // handles (a 401 after the session ended, 410 of a logout, a field error), so only 5xx count
    if (m.type() === "error" && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()))
      w.errors.push(m.text());
  });
  page.on("response", (r) => {
    if (r.status() >= 500) w.errors.push(`${r.status()} from ${r.url()}`);
    if (r.status() === 401 && !w.expected401) w.errors.push(`unexpected 401 from ${r.url()}`);
  });
  page.on("pageerror", (e) => w.errors.push(e.message));
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.protocol !== "data:" && u.protocol !== "blob:" && u.hostname !== "127.0.0.1") w.outside.push(r.url());
  });
  return w;
}

/**
 * Opens `url` and logs in on the form it shows, then waits for `ready`; the 401 the page meets before
 * the login is the one expected.
 */
export async function logIn(w: Watched, url: string, password: string, ready = "nav.side"): Promise<void> {
  w.expected401 = true;
  await w.page.goto(url);
  await w.page.fill("#password", password);
  await w.page.click("button[type=submit]");
  await w.page.waitForSelector(ready);
  w.expected401 = false;
}

/** A screenshot into test-output/screenshots; the whole page unless `fullPage` is false (the visible part). */
export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
}

/** the first address dig gets for name (A), or the status when there is none */
export async function dig(port: number, name: string): Promise<string> {
  const r = await run(["dig", "+short", "+time=2", "+tries=1", "-p", String(port), "@127.0.0.1", name]);
  return r.stdout.trim().split("\n")[0] ?? "";
}

export async function eventually(fn: () => Promise<boolean>, what: string, ms = 10000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await fn()) return;
    await Bun.sleep(150);
  }
  throw new Error(`timed out waiting for ${what}`);
}
