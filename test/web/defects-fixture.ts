// The shared fixture of the dashboard's defect tests (test/web/defects-*.test.ts): a real Moat with DNS
// traffic from seven loopback clients, four lists (one hosts file, one ABP-only, two that fail to download)
// after a gravity run, and a logged-in browser page. Each test file calls `useDefectsFixture()` once.
import { afterAll, beforeAll, expect } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { launch, logIn, openPage, type Watched } from "./browser.ts";

// The browser's globals, for the functions that run inside the page: the tests' TypeScript has no
// DOM library, and these are only ever called by playwright in the page.
export type InPage = any;
declare const document: InPage, window: InPage;

export const PASSWORD = "defects correct horse";
/** seven clients, each with a local record so its address has a name (PTR through dns.hosts) */
const CLIENTS = [11, 12, 13, 14, 15, 16, 17].map((n) => ({ ip: `127.0.0.${n}`, name: `device${n}.lan` }));
export let moat: MoatProcess;
export let up: Upstream;
export let browser: Browser;
export let w: Watched;
let listServer: ReturnType<typeof Bun.serve>;
let sid = "";
/** every console error (4xx included) and every failed request, which browser.ts lets pass */
export const noise: string[] = [];

export async function apiGet<T = any>(path: string): Promise<T> {
  const r = await moat.api(path, { headers: { sid } });
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}

export async function apiSend(method: string, path: string, body: unknown): Promise<Response> {
  return moat.api(path, { method, headers: { sid, "content-type": "application/json" }, body: JSON.stringify(body) });
}

export function watchNoise(page: Page): void {
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
export const fitsWidth = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

/** Starts the Moat, the lists, the traffic and the browser before the file's tests, and stops them after. */
export function useDefectsFixture(): void {
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
}
