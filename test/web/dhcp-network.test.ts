// The DHCP and Network pages and the not-found page in a real browser against a real Moat: DHCP
// settings saved (checked in /api/config), the warning about a rival DHCP server before the switch is
// saved, a seeded lease made static and another deleted, devices listed after dig traffic, one added
// as a client (checked in /api/clients) and one forgotten; desktop, phone and dark theme.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { canMakeNamespaces, startRogueServer, TestLan } from "../dhcp/lan.ts";
import { run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { eventually, launch, logIn, openPage, shot, type Watched } from "./browser.ts";

const PASSWORD = "dhcp page password";
const RIVAL =
  "Another DHCP server answers on eth9: 192.168.50.1. Two DHCP servers on one network hand out conflicting addresses: switch one of them off.";
/** IEEE OUI 3C:22:FB is Apple's */
const OLD_MAC = "3c:22:fb:12:34:56";
let moat: MoatProcess;
let up: Upstream;
let browser: Browser;
let w: Watched;
let dataDir = "";
let sid = "";

async function apiGet<T = any>(path: string): Promise<T> {
  const r = await moat.api(path, { headers: { sid } });
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}
const config = async () => (await apiGet<{ config: any }>("/api/config")).config;

beforeAll(async () => {
  up = await startUpstream();
  // src/dhcp/leases.ts's format (dnsmasq's): <expiry> <mac> <ip> <hostname|*> <client-id|*>; loaded while DHCP is off
  dataDir = mkdtempSync(join(tmpdir(), "moat-dhcp-ui-"));
  const inAnHour = Math.floor(Date.now() / 1000) + 3600;
  writeFileSync(
    join(dataDir, "dhcp.leases"),
    `${inAnHour} 3c:22:fb:00:00:01 192.168.50.10 laptop *\n0 b8:27:eb:00:00:02 192.168.50.11 * *\n`,
  );
  moat = await startMoat({
    dataDir,
    configToml: `[dns]\n  upstreams = ["${up.address}"]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  // what src/dhcp/service.ts raises when its start-up probe gets an offer from another server
  const db = new Database(join(dataDir, "pihole-FTL.db"));
  db.query("INSERT INTO message (timestamp, type, message, blob1, blob2) VALUES (?,?,?,?,?)").run(
    Math.floor(Date.now() / 1000) - 600,
    "DNSMASQ_WARN",
    RIVAL,
    "eth9",
    "192.168.50.1",
  );
  // a device seen two days ago (an Apple prefix): out of the 24 h window, so a forgotten one stays gone
  const twoDaysAgo = Math.floor(Date.now() / 1000) - 2 * 86400;
  db.query(
    "INSERT INTO network (id, hwaddr, interface, firstSeen, lastQuery, numQueries, macVendor) VALUES (100,?,?,?,?,?,NULL)",
  ).run(OLD_MAC, "eth0", twoDaysAgo - 86400, twoDaysAgo, 42);
  db.query("INSERT INTO network_addresses (network_id, ip, lastSeen, name) VALUES (100, ?, ?, ?)").run(
    "192.168.50.77",
    twoDaysAgo,
    "old-phone",
  );
  db.close();
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  browser = await launch();
  w = await openPage(browser, { width: 1280, height: 800 });
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  await up?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function login(path: string, ww = w): Promise<void> {
  await logIn(ww, `${moat.base}/admin${path}`, PASSWORD);
}

test("DHCP: settings saved with field errors, the rival warning before turning on, on and off again", async () => {
  const { page } = w;
  await login("/dhcp");
  await page.waitForSelector("h1.page-title:text('DHCP')");
  await page.waitForSelector("[data-testid=dhcp-rival]:has-text('Moat last found another DHCP server')");
  expect(await page.textContent("[data-testid=dhcp-rival]")).toContain("eth9: 192.168.50.1");

  await page.fill("#d-dhcp\\.start", "192.168.50.200");
  await page.fill("#d-dhcp\\.end", "192.168.50.100");
  await page.fill("#d-dhcp\\.leaseTime", "two days");
  await page.click("button:text('Save DHCP settings')");
  await page.waitForSelector(".field.invalid:has(#d-dhcp\\.end) .error:text('the range ends before it starts')");
  await page.waitForSelector(".field.invalid:has(#d-dhcp\\.leaseTime) .error");
  // the page checks what the API checks: the same value is refused there too
  const refused = await moat.api("/api/config", {
    method: "PATCH",
    headers: { sid },
    body: JSON.stringify({ config: { dhcp: { leaseTime: "two days" } } }),
  });
  expect(refused.status).toBe(400);
  expect(JSON.stringify(await refused.json())).toContain("dhcp.leaseTime");
  // a netmask the page leaves to the server: its error comes back in the envelope and lands at the field
  await page.fill("#d-dhcp\\.start", "192.168.50.100");
  await page.fill("#d-dhcp\\.end", "192.168.50.200");
  await page.fill("#d-dhcp\\.leaseTime", "2d");
  await page.fill("#d-dhcp\\.netmask", "255.0.255.0");
  await page.click("button:text('Save DHCP settings')");
  await page.waitForSelector(".field.invalid:has(#d-dhcp\\.netmask) .error");
  expect((await config()).dhcp.start).toBe("");

  await page.fill("#d-dhcp\\.netmask", "");
  await page.check("#d-active");
  // the warning turns into an alert while the switch is on but not yet saved
  await page.waitForSelector("[data-testid=dhcp-rival][role=alert]");
  await page.check("#d-rapid");
  await shot(page, "dhcp-turning-on-desktop-light");
  await page.click("button:text('Save DHCP settings')");
  const dialog = page.locator("dialog.dialog[open]");
  await dialog.waitFor();
  expect(await dialog.textContent()).toContain("192.168.50.1");
  await dialog.locator("button:text('Turn on DHCP')").click();
  await page.waitForSelector(".toast:text('Saved')");
  await eventually(async () => (await config()).dhcp.active === true, "dhcp.active on");
  const on = (await config()).dhcp;
  expect([on.start, on.end, on.leaseTime, on.rapidCommit, on.ipv6]).toEqual([
    "192.168.50.100",
    "192.168.50.200",
    "2d",
    true,
    false,
  ]);

  await page.waitForSelector("#d-active:checked");
  await page.uncheck("#d-active");
  await page.click("button:text('Save DHCP settings')");
  await eventually(async () => (await config()).dhcp.active === false, "dhcp.active off");
  expect((await config()).dhcp.start).toBe("192.168.50.100");
  expect(w.errors).toEqual([]);
}, 60000);

test.skipIf(!canMakeNamespaces())(
  "DHCP: turning on first asks the range's network, and names the router's DHCP server found there",
  async () => {
    const { page } = w;
    const lan = new TestLan().up();
    try {
      await startRogueServer(lan, "02:00:00:00:27:01");
      await page.reload();
      await page.fill("#d-dhcp\\.start", `${lan.prefix}.100`);
      await page.fill("#d-dhcp\\.end", `${lan.prefix}.120`);
      await page.check("#d-active");
      await page.click("button:text('Save DHCP settings')");
      const dialog = page.locator("dialog.dialog[open]");
      await dialog.waitFor({ timeout: 15000 });
      expect(await dialog.textContent()).toContain(`Another DHCP server answers: ${lan.prefix}.2 on ${lan.bridge}.`);
      await shot(page, "dhcp-rival-found-desktop-light");
      await dialog.locator("button:text('Cancel')").click();
      expect(await page.textContent("[data-testid=dhcp-check]")).toContain(`${lan.prefix}.2`);
      const c = await config();
      expect([c.dhcp.active, c.dhcp.start]).toEqual([false, "192.168.50.100"]);
      expect(w.errors).toEqual([]);
    } finally {
      await lan.dispose();
    }
  },
  60000,
);

test("DHCP: a lease made static, another deleted, a static lease added and removed", async () => {
  const { page } = w;
  const leases = page.locator("[data-testid=leases]");
  await leases.locator("tr[data-key='192.168.50.10']").waitFor();
  await page.click("button[aria-label='Make the lease of 192.168.50.10 static']");
  await leases.locator("tr[data-key='192.168.50.10'] .badge:text('static')").waitFor();
  expect((await config()).dhcp.hosts).toEqual(["3c:22:fb:00:00:01,192.168.50.10,laptop"]);

  await page.click("button[aria-label='Delete lease 192.168.50.11']");
  await page.locator("dialog.dialog[open] button:text('Delete')").click();
  await leases.locator("tr[data-key='192.168.50.11']").waitFor({ state: "detached" });
  const left = (await apiGet<{ leases: Array<{ ip: string }> }>("/api/dhcp/leases")).leases.map((l) => l.ip);
  expect(left).toEqual(["192.168.50.10"]);

  await page.fill("#r-mac", "not-a-mac");
  await page.click("button:text('Add static lease')");
  await page.waitForSelector(".field.invalid:has(#r-mac) .error");
  await page.fill("#r-mac", "B8-27-EB-00-00-02");
  await page.fill("#r-ip", "192.168.50.10");
  await page.click("button:text('Add static lease')");
  await page.waitForSelector(".field.invalid:has(#r-ip) .error:text('another device has this address')");
  await page.fill("#r-ip", "192.168.50.12");
  await page.fill("#r-name", "pi");
  await page.click("button:text('Add static lease')");
  await page.locator("[data-testid=reservations] tr[data-key='b8:27:eb:00:00:02']").waitFor();
  expect((await config()).dhcp.hosts).toEqual([
    "3c:22:fb:00:00:01,192.168.50.10,laptop",
    "b8:27:eb:00:00:02,192.168.50.12,pi",
  ]);
  await shot(page, "dhcp-desktop-light");
  await page.click("button[aria-label='Delete static lease 3c:22:fb:00:00:01']");
  await page.locator("dialog.dialog[open] button:text('Delete')").click();
  await page.locator("[data-testid=reservations] tr[data-key='3c:22:fb:00:00:01']").waitFor({ state: "detached" });
  expect((await config()).dhcp.hosts).toEqual(["b8:27:eb:00:00:02,192.168.50.12,pi"]);
  expect(w.errors).toEqual([]);
}, 60000);

type Device = { hwaddr: string; macVendor: string | null };
const devices = async () =>
  (await apiGet<{ devices: Device[] }>("/api/network/devices?max_devices=100&max_addresses=5")).devices;

test("Network: devices after dig traffic, one added as a client, one forgotten", async () => {
  const { page } = w;
  for (const from of ["127.0.0.1", "127.0.0.2"]) {
    const r = await run([
      "dig",
      "+time=2",
      "+tries=1",
      "-b",
      from,
      "-p",
      String(moat.dnsPort),
      "@127.0.0.1",
      "a.example",
    ]);
    expect(r.stdout).toContain("status: NOERROR");
  }
  await eventually(async () => (await devices()).length >= 3, "three devices");
  await page.click("nav.side >> text=Network");
  await page.waitForSelector("h1.page-title:text('Network')");
  const table = page.locator("[data-testid=devices]");
  await table.locator("tr[data-key='ip-127.0.0.2']").waitFor();
  expect(await table.locator("tr[data-key='ip-127.0.0.1']").textContent()).toContain("127.0.0.1");

  await page.click("button[aria-label='Add as client: 127.0.0.1']");
  await table.locator("tr[data-key='ip-127.0.0.1'] .badge:text('client')").waitFor();
  const clients = (await apiGet<{ clients: Array<{ client: string }> }>("/api/clients")).clients;
  expect(clients.map((c) => c.client)).toEqual(["127.0.0.1"]);

  expect((await devices()).find((d) => d.hwaddr === OLD_MAC)?.macVendor).toBe("Apple");
  const old = table.locator(`tr[data-key='${OLD_MAC}']`);
  // the vendor comes from the API's OUI table
  expect(await old.textContent()).toContain("Apple");
  expect(await old.textContent()).toContain("old-phone");
  await shot(page, "network-desktop-light");
  await page.click(`button[aria-label='Forget ${OLD_MAC}']`);
  await page.locator("dialog.dialog[open] button:text('Forget')").click();
  await old.waitFor({ state: "detached" });
  expect((await devices()).map((d) => d.hwaddr)).not.toContain(OLD_MAC);
  expect(w.errors).toEqual([]);
}, 60000);

test("a route that does not exist is a not-found page, not the dashboard", async () => {
  const { page } = w;
  await page.goto(`${moat.base}/admin/nope`);
  await page.waitForSelector("h1.page-title:text('Page not found')");
  expect(await page.textContent("[data-testid=not-found]")).toContain("/admin/nope");
  expect(await page.locator("nav.side a.active").count()).toBe(0);
  expect(await page.title()).toBe("Page not found · Moat");
  await shot(page, "not-found-desktop-light");
  await page.click("main a:text('Go to the dashboard')");
  await page.waitForSelector("h1.page-title:text('Dashboard')");
  expect(w.errors).toEqual([]);
}, 30000);

test("phone and dark theme: the three pages at 390x844 and 1280x800", async () => {
  for (const [size, viewport] of [
    ["phone", { width: 390, height: 844 }],
    ["desktop", { width: 1280, height: 800 }],
  ] as const) {
    const ww = await openPage(browser, viewport);
    await ww.page.emulateMedia({ colorScheme: "dark" });
    await login("/dhcp", ww);
    for (const [path, name, ready] of [
      ["/dhcp", "dhcp", "[data-testid=leases]"],
      ["/network", "network", "[data-testid=devices]"],
      ["/nope", "not-found", "[data-testid=not-found]"],
    ] as const) {
      await ww.page.goto(`${moat.base}/admin${path}`);
      await ww.page.waitForSelector(ready);
      // nothing wider than the screen
      expect(await ww.page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
        viewport.width,
      );
      await shot(ww.page, `${name}-${size}-dark`);
      if (size === "phone") {
        await ww.page.emulateMedia({ colorScheme: "light" });
        await shot(ww.page, `${name}-phone-light`);
        await ww.page.emulateMedia({ colorScheme: "dark" });
      }
    }
    expect(ww.errors).toEqual([]);
    await ww.ctx.close();
  }
}, 90000);
