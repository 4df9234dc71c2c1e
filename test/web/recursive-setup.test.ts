// Resolving from the root (dns.recursive) in the dashboard, a real browser against a real Moat: the
// first-run setup's "Resolve myself (private)" turns it on without an upstream, the query log says
// that an answer was resolved from the root servers (with its time), and the DNS settings card turns
// it off again. The root hints name 127.0.0.9, where no server listens: the answer is SERVFAIL, but
// it is resolved (tried) by Moat itself, which is what the log must say.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { eventually, launch, openPage, shot, type Watched } from "./browser.ts";

const PASSWORD = "h18 resolve myself";
let dir: string;
let moat: MoatProcess;
let browser: Browser;
let w: Watched;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "moat-recursive-setup-"));
  writeFileSync(join(dir, "root.hints"), ".  3600000 NS a.root.\na.root. 3600000 A 127.0.0.9\n");
  moat = await startMoat({ configToml: "", env: { FTLCONF_dns_recursive_rootHints: join(dir, "root.hints") } });
  browser = await launch();
  w = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Dns = { upstreams: string[]; dnssec: boolean; recursive: { active: boolean } };

async function dnsConfig(): Promise<Dns> {
  const auth = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  const sid = ((await auth.json()) as { session: { sid: string } }).session.sid;
  const r = await moat.api("/api/config/dns", { headers: { sid } });
  return ((await r.json()) as { config: { dns: Dns } }).config.dns;
}

test("the first-run setup's 'Resolve myself (private)' needs no upstream and turns dns.recursive and DNSSEC on", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/`);
  await page.waitForSelector("h1:text('Welcome to Moat')");
  await page.check("label:has-text('Resolve myself (private)') input");
  await page.uncheck("label:has-text('Quad9') input");
  await page.fill("#setup-pw", PASSWORD);
  await page.fill("#setup-pw2", PASSWORD);
  await page.uncheck("label:has-text('StevenBlack') input"); // no download from outside in a test
  await shot(page, "setup-recursive");
  await page.click("button:text('Save and start')");
  await page.waitForSelector("h1.page-title:text('Dashboard')");
  const dns = await dnsConfig();
  expect(dns.recursive.active).toBe(true);
  expect(dns.dnssec).toBe(true);
  expect(dns.upstreams).toEqual([]);
  expect(w.errors).toEqual([]);
});

test("the query log says an answer was resolved from the root servers, with its time", async () => {
  const { page } = w;
  await Bun.spawn(["dig", "+time=6", "+tries=1", "-p", String(moat.dnsPort), "@127.0.0.1", "www.resolved.example"])
    .exited;
  await page.goto(`${moat.base}/admin/queries`);
  const row = page.locator("tr[data-domain='www.resolved.example']");
  await eventually(async () => (await row.count()) > 0, "the query in the log");
  expect(await row.locator("td[data-label='Status']").textContent()).toContain("resolved from the root servers");
  // the time as Intl writes it in English: a lookup the unreachable root servers slow down reads "3,548.1 ms"
  expect(await row.locator("td[data-label='Reply']").textContent()).toMatch(/SERVFAIL\s*[\d.,]+ ms/);
  expect(w.errors).toEqual([]);
});

test("the DNS settings card shows the mode and turns it off", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  const box = page.locator("#s-recursive");
  await box.waitFor();
  expect(await box.isChecked()).toBe(true);
  await shot(page, "settings-recursive");
  await box.uncheck();
  await page.click("button:text('Save DNS settings')");
  await eventually(async () => !(await dnsConfig()).recursive.active, "dns.recursive.active off");
  expect(w.errors).toEqual([]);
});
