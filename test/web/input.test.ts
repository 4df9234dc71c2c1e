// The dashboard's forms in a real browser: what the API refuses is shown at the field and never
// "Saved" (an upstream that is no address; a wildcard that is no domain).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { launch, logIn, openPage, type Watched } from "./browser.ts";

const PASSWORD = "input correct horse";
let moat: MoatProcess;
let browser: Browser;
let w: Watched;
let sid = "";

const apiGet = async (path: string) => (await (await moat.api(path, { headers: { sid } })).json()) as any;

beforeAll(async () => {
  moat = await startMoat({
    configToml: '[dns]\n  upstreams = ["192.0.2.53"]\n',
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  browser = await launch();
  w = await openPage(browser);
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  await logIn(w, `${moat.base}/admin/`, PASSWORD);
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
});

test("Settings: an upstream that is no address is reported at the field, not saved", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  await page.waitForSelector("#s-upstreams");
  await page.fill("#s-upstreams", "9.9.9.9\nnot-an-ip");
  await page.click("button:text('Save DNS settings')");
  await page.waitForSelector(".field.invalid .error");
  expect(await page.textContent(".field.invalid")).toContain("not a valid upstream");
  expect(await page.locator(".toast:text('Saved')").count()).toBe(0);
  expect((await apiGet("/api/config/dns/upstreams")).config.dns.upstreams).toEqual(["192.0.2.53"]);
  expect(w.errors).toEqual([]);
});

test("Domains: a wildcard that is no domain is reported at the field, nothing is stored", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/domains`);
  await page.waitForSelector("#d-domain");
  await page.selectOption("#d-kind", "wildcard");
  await page.fill("#d-domain", "exa mple.com");
  await page.click("form >> button:text('Add')");
  await page.waitForSelector(".field.invalid .error");
  expect(await page.textContent(".field.invalid")).toContain("is not a domain");
  expect((await apiGet("/api/domains")).domains).toEqual([]);
  // a good one still goes through, as the regex Pi-hole's interface makes
  await page.fill("#d-domain", "example.com");
  await page.click("form >> button:text('Add')");
  await page.waitForSelector("tr[data-key]");
  expect((await apiGet("/api/domains")).domains.map((d: { domain: string }) => d.domain)).toEqual([
    "(\\.|^)example\\.com$",
  ]);
  expect(w.errors).toEqual([]);
});
