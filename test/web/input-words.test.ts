// What the dashboard's forms say about input that cannot work, in a real browser against a real Moat:
// a deny regex that matches everything (taken, with a warning), list addresses that are no download,
// an empty group name, a schedule window without a day, a DHCP range across networks and a lease of
// 99,999,999 days, and a shell command as the interface name. Each says what to change, in words.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { launch, logIn, openPage, type Watched } from "./browser.ts";

const PASSWORD = "input words correct horse";
let moat: MoatProcess;
let browser: Browser;
let w: Watched;

beforeAll(async () => {
  // an upstream set, so the dashboard opens rather than its first-run setup (nothing is forwarded)
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["127.0.0.1#9"]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  browser = await launch();
  w = await openPage(browser);
  await logIn(w, `${moat.base}/admin/`, PASSWORD);
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
});

afterEach(() => {
  expect(w.errors).toEqual([]);
  expect(w.outside).toEqual([]);
});

/** the error shown under the field `id` */
const fieldError = (id: string) => w.page.locator(`.field:has(#${id.replace(/\./g, "\\.")}) small.error`).textContent();

test("Domains: a deny regex matching everything is added, with a warning that says what it does", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/domains`);
  await page.fill("#d-domain", ".*");
  await page.selectOption("#d-kind", "regex");
  await page.selectOption("#d-type", "deny");
  await page.click("form:has(#d-domain) button[type=submit]");
  const toast = await page.waitForSelector(".toast:text('matches every domain')");
  expect(await toast.textContent()).toContain('".*" matches every domain: it blocks all queries');
});

test("Lists: a file and a host name with a leading hyphen are refused in words", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/lists`);
  await page.fill("#l-address", "file:///etc/passwd");
  await page.click("form:has(#l-address) button[type=submit]");
  expect(await fieldError("l-address")).toBe("Lists are downloaded: use an http:// or https:// address, not file://");
  await page.fill("#l-address", "https://-bad.example/list");
  await page.click("form:has(#l-address) button[type=submit]");
  await page.waitForSelector(".field:has(#l-address) small.error:text('is not a host name')");
  expect(await fieldError("l-address")).toContain('"-bad.example" is not a host name');
});

test("Groups: a name of spaces says to enter a name", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/groups`);
  await page.fill("#g-name", "   ");
  await page.click("form:has(#g-name) button[type=submit]");
  await page.waitForSelector(".field:has(#g-name) small.error");
  expect(await fieldError("g-name")).toBe("Enter a name for the group: it cannot be empty");
});

test("Family: a schedule window without a day says to choose one", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/family`);
  await page.click("button:text('Add a window')");
  const checked = page.locator("[data-testid=window] input[type=checkbox]:checked");
  for (let i = 0; i < 7 && (await checked.count()) > 0; i++) await checked.first().uncheck();
  expect(await checked.count()).toBe(0);
  await page.click("button:text('Save Default')");
  const toast = await page.waitForSelector(".toast:text('choose at least one')");
  expect(await toast.textContent()).toContain("window 1, days: choose at least one");
  expect(await toast.textContent()).not.toContain("has to be of type");
});

test("DHCP: a range across two networks and a lease of 99,999,999 days are refused under their fields", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/dhcp`);
  await page.fill("#d-dhcp\\.start", "10.0.0.100");
  await page.fill("#d-dhcp\\.end", "192.168.1.150");
  await page.click("button:text('Save DHCP settings')");
  await page.waitForSelector(".field:has(#d-dhcp\\.end) small.error");
  expect(await fieldError("d-dhcp.end")).toContain("192.168.1.150 is not in the network of dhcp.start 10.0.0.100");
  await page.fill("#d-dhcp\\.end", "10.0.0.150");
  await page.fill("#d-dhcp\\.leaseTime", "99999999d");
  await page.click("button:text('Save DHCP settings')");
  await page.waitForSelector(".field:has(#d-dhcp\\.leaseTime) small.error");
  expect(await fieldError("d-dhcp.leaseTime")).toContain("longer than a year");
});

test("Settings: a shell command as the interface name is refused under the field", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/settings`);
  await page.fill("#s-iface", "eth0; rm -rf /");
  await page.click("button:text('Save listening and domain')");
  await page.waitForSelector(".field:has(#s-iface) small.error");
  expect(await fieldError("s-iface")).toContain("not an interface name");
});
