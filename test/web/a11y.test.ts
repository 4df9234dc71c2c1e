// axe-core (Deque's accessibility engine, https://github.com/dequelabs/axe-core) over every page of
// the dashboard, in the light and the dark theme, at desktop and phone width: no serious or critical
// finding. The pages are the navigation's links, which the dashboard draws from its own route table
// (PAGES in src/web/ui/app.tsx), plus the login and a path that is no page. Each failure names the
// rule, the element and what to fix.
import { afterAll, beforeAll, expect, test } from "bun:test";
import axe from "axe-core";
import type { Browser, Page } from "playwright-core";
import { run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { launch, logIn, openPage, type Watched } from "./browser.ts";

// The browser's globals, for the functions that run inside the page (the tests have no DOM library).
type InPage = any;
declare const document: InPage, window: InPage;

/** axe's script, evaluated through the debugging protocol: the dashboard's CSP (default-src 'self')
 * refuses an injected <script> tag, and the check must see the page as Moat serves it */
const AXE: string = axe.source;
const PASSWORD = "a11y correct horse";
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const THEMES = ["light", "dark"] as const;
let moat: MoatProcess;
let up: Upstream;
let browser: Browser;
let listServer: ReturnType<typeof Bun.serve>;
/** the logged-in session's cookie and local storage, shared by every context */
let loggedIn: Awaited<ReturnType<Watched["ctx"]["storageState"]>>;
/** the navigation's links, and a path that is no page */
let pages: Array<{ path: string; title: string }> = [];

async function apiSend(sid: string, method: string, path: string, body?: unknown): Promise<void> {
  const r = await moat.api(path, {
    method,
    headers: { sid, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status}`);
}

beforeAll(async () => {
  up = await startUpstream();
  listServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("0.0.0.0 listed-one.example\n0.0.0.0 listed-two.example\n"),
  });
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["${up.address}"]\n  hosts = ["127.0.0.21 printer.lan"]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  const sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  // a little of everything, so tables and charts are not empty
  await apiSend(sid, "POST", "/api/lists?type=block", {
    address: `http://127.0.0.1:${listServer.port}/hosts/a-block-list.txt`,
    comment: "a block list",
  });
  await apiSend(sid, "POST", "/api/action/gravity");
  await apiSend(sid, "POST", "/api/domains/deny/exact", { domain: "denied.example", comment: "no" });
  await apiSend(sid, "POST", "/api/groups", { name: "kids", comment: "the children's devices" });
  await apiSend(sid, "POST", "/api/clients", { client: "127.0.0.21", comment: "printer" });
  for (const name of ["www.site.example", "listed-one.example", "denied.example", "cdn.example"])
    await run(["dig", "+short", "+time=2", "+tries=1", "-p", String(moat.dnsPort), "@127.0.0.1", name]);
  browser = await launch();
  const w = await openPage(browser);
  await logIn(w, `${moat.base}/admin/`, PASSWORD);
  // the setup is for a fresh Moat; this one is set up
  await w.page.evaluate(() => window.localStorage.setItem("moat.setup.done", "1"));
  pages = await w.page.$$eval("nav.side a", (as: InPage[]) =>
    as.map((a) => ({ path: new URL(a.href).pathname, title: a.textContent })),
  );
  expect(pages.length).toBeGreaterThan(10);
  pages.push({ path: "/admin/no-such-page", title: "Page not found" });
  loggedIn = await w.ctx.storageState();
  await w.ctx.close();
}, 60000);

afterAll(async () => {
  await browser?.close();
  listServer?.stop(true);
  await moat?.dispose();
  await up?.stop();
});

type Finding = {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; summary: string }>;
};

/** axe's serious and critical findings on the page as it is now, one line each */
async function axeFindings(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const found: Finding[] = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v: InPage) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n: InPage) => ({ target: n.target, summary: n.failureSummary ?? "" })),
    }));
  });
  return found
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) =>
      v.nodes.map(
        (n) => `${v.impact} ${v.id} (${v.help}) at ${JSON.stringify(n.target)}: ${n.summary.replace(/\s+/g, " ")}`,
      ),
    );
}

/**
 * Goes to a page as the browser's back and forward buttons do (the dashboard routes in the browser,
 * so axe stays loaded), and waits until the page shows its title and has drawn its data.
 */
async function show(page: Page, to: { path: string; title: string }): Promise<void> {
  await page.evaluate((path: string) => {
    window.history.pushState(null, "", path);
    window.dispatchEvent(new window.PopStateEvent("popstate"));
  }, to.path);
  await page.waitForFunction(
    (title: string) =>
      document.querySelector("h1.page-title")?.textContent === title && !document.querySelector(".loading"),
    to.title,
    { timeout: 10000 },
  );
}

for (const theme of THEMES)
  for (const [size, viewport] of Object.entries(SIZES))
    test(`axe: no serious or critical finding on any page, ${theme} theme, ${size}`, async () => {
      const findings: string[] = [];
      // the login, as a person who is not logged in sees it
      const out = await openPage(browser, viewport, { colorScheme: theme });
      await out.page.goto(`${moat.base}/admin/`);
      await out.page.waitForSelector("#password");
      findings.push(...(await axeFindings(out.page)).map((f) => `login: ${f}`));
      await out.ctx.close();

      const w = await openPage(browser, viewport, { colorScheme: theme, storageState: loggedIn });
      await w.page.goto(`${moat.base}/admin/`);
      await w.page.waitForSelector("nav.side");
      for (const to of pages) {
        await show(w.page, to);
        findings.push(...(await axeFindings(w.page)).map((f) => `${to.path}: ${f}`));
      }
      await w.ctx.close();
      expect(findings).toEqual([]);
      expect([...out.errors, ...w.errors]).toEqual([]);
    }, 150000);
