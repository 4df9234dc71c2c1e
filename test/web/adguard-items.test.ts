// What AdGuard Home users look for, in a real browser against a real Moat and real upstream processes:
// the DNS card's "Test upstreams" asks the servers typed (a per-domain one for its own domain) before
// they are saved and shows each answer; the upstream mode and the per-domain upstream are saved and in
// force through DNS. Settings → Import: an AdGuardHome.yaml uploaded, the dry run's report read, then
// merged in and in force through DNS; a path that is not there is refused in words.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { adguardInstall } from "../migrate/adguard-fixtures.ts";
import { dig, launch, logIn, openPage, shot, type Watched } from "./browser.ts";
import { runDig } from "../dns/helpers.ts";

const PASSWORD = "adguard items password";
let moat: MoatProcess;
let up: Upstream;
let corp: Upstream;
let browser: Browser;
let w: Watched;

beforeAll(async () => {
  [up, corp] = await Promise.all([startUpstream({ addr: "192.0.2.7" }), startUpstream({ addr: "10.9.9.9" })]);
  // the upstream in the file (not the environment), so the page may change it
  moat = await startMoat({
    env: { FTLCONF_webserver_api_password: PASSWORD },
    configToml: `[dns]\nupstreams = ["${up.address}"]\n`,
  });
  browser = await launch();
  w = await openPage(browser, { width: 1280, height: 900 });
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  await Promise.all([up?.stop(), corp?.stop()]);
});

test("Test upstreams shows each server's answer before saving; the mode and a per-domain upstream are saved", async () => {
  const { page } = w;
  await logIn(w, `${moat.base}/admin/settings`, PASSWORD, "#s-upstreams");
  await page.fill("#s-upstreams", `${up.address}\n[/corp.test/]${corp.address}`);
  await page.click("button:text('Test upstreams')");
  const table = page.locator("table[aria-label='Upstream test results']");
  await table.waitFor();
  const rows = await table.locator("tbody tr").allInnerTexts();
  expect(rows).toHaveLength(2);
  expect(rows[0]).toContain(up.address);
  expect(rows[0]).toContain("NOERROR · A 192.0.2.7");
  expect(rows[1]).toContain("corp.test");
  expect(rows[1]).toContain("A 10.9.9.9");
  expect(rows[0]).toMatch(/\d ms/);
  expect(corp.count("corp.test")).toBe(1);
  // not saved yet: DNS still sends corp.test's names to the general upstream
  expect(await dig(moat.dnsPort, "before.corp.test")).toBe("192.0.2.7");
  await shot(page, "adguard-upstream-test");

  await page.selectOption("#s-upmode", "PARALLEL");
  await page.click("button:text('Save DNS settings')");
  await page.waitForSelector(".toast:text('Saved')");
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  const sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  const cfg = (await (await moat.api("/api/config/dns", { headers: { sid } })).json()) as {
    config: { dns: { upstreams: string[]; upstreamMode: string } };
  };
  expect(cfg.config.dns.upstreams).toEqual([up.address, `[/corp.test/]${corp.address}`]);
  expect(cfg.config.dns.upstreamMode).toBe("PARALLEL");
  expect(await dig(moat.dnsPort, "after.corp.test")).toBe("10.9.9.9");
  expect(w.errors).toEqual([]);
  expect(w.outside).toEqual([]);
}, 60_000);

test("Import: an AdGuardHome.yaml's dry run is reported, then merged in and in force", async () => {
  const { page } = w;
  const yaml = adguardInstall(29, up.address, corp.address);
  await page.reload();
  await page.waitForSelector("#s-migrate-file");
  // a path that is not there
  await page.fill("#s-migrate-path", "/nowhere/AdGuardHome.yaml");
  await page.click("button:text('Check (dry run)')");
  await page.waitForSelector("#import .note.error:has-text('Nothing at /nowhere/AdGuardHome.yaml')");
  await page.fill("#s-migrate-path", "");

  await page.setInputFiles("#s-migrate-file", yaml);
  // this Moat has settings already: refused until merge or replace is chosen
  await page.click("button:text('Check (dry run)')");
  await page.waitForSelector("#import .note.error:has-text('already has data')");
  await page.selectOption("#s-migrate-mode", "merge");
  await page.click("button:text('Check (dry run)')");
  await page.waitForSelector("[data-testid=migrate-report]:has-text('Dry run of')");
  const carried = await page.locator("[data-testid=migrate-carried] li").allInnerTexts();
  expect(carried).toContain("2 persistent clients (each a group of its own)");
  expect(carried).toContain("1 per-domain upstream");
  const notCarried = await page.locator("[data-testid=migrate-not-carried] li").allInnerTexts();
  expect(notCarried.some((l) => l.startsWith("upstream quic://dns.adguard-dns.com: quic upstreams"))).toBe(true);
  // nothing changed yet
  expect(await dig(moat.dnsPort, "nas.lan")).not.toBe("192.168.1.10");
  await shot(page, "adguard-import-dry-run");

  await page.click("#import button:text-is('Import')");
  await page.click("dialog[open] button:text-is('Import')");
  await page.waitForSelector("[data-testid=migrate-report]:has-text('Imported from')");
  expect(await dig(moat.dnsPort, "nas.lan")).toBe("192.168.1.10");
  expect(await dig(moat.dnsPort, "tv.wild.lan")).toBe("192.168.1.20");
  expect(w.errors).toEqual([]);
}, 90_000);

test("Settings → Client access: a bad entry is refused in words; a disallowed client gets REFUSED and the log says why", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  await page.waitForSelector("#s-access-disallowed");
  await page.fill("#s-access-allowed", "");
  await page.fill("#s-access-disallowed", "127.0.0.8\nNot An Id");
  await page.click("button:text('Save client access')");
  await page.waitForSelector(
    "form:has(#s-access-disallowed) :text('not an IP address, a CIDR network or a client ID')",
  );
  expect(await digStatus("127.0.0.8")).toBe("NOERROR");

  await page.fill("#s-access-disallowed", "127.0.0.8");
  await page.click("button:text('Save client access')");
  await page.waitForSelector(".toast:text('Saved')");
  expect(await digStatus("127.0.0.8")).toBe("REFUSED");
  expect(await digStatus("127.0.0.4")).toBe("NOERROR");
  await shot(page, "adguard-client-access");

  await page.goto(`${moat.base}/admin/queries`);
  await page.waitForSelector("tr.blocked[data-domain='refused.test']:has-text('Refused (client not allowed)')");
  expect(w.errors).toEqual([]);
}, 60_000);

async function digStatus(from: string): Promise<string> {
  const out = await runDig([
    "@127.0.0.1",
    "-p",
    String(moat.dnsPort),
    "-b",
    from,
    "+tries=1",
    "+time=3",
    "refused.test",
  ]);
  return /status: (\w+)/.exec(out)?.[1] ?? out;
}
