// The Settings additions in a real browser against a real Moat with HTTPS and DoT on: a session
// ended from the list is gone from the API, the listening mode is saved, a regenerated certificate
// shows its new fingerprint, the Apple profile downloads and parses, the fleet card says this node
// runs alone, and "All settings" saves a number, shows the API's range error at the key and keeps an
// environment-forced key read-only. Desktop and phone, light and dark, with screenshots.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { startTlsMoat, type TlsMoat } from "../tls/helpers.ts";
import { eventually, launch, logIn, openPage, shot, type Watched } from "./browser.ts";

const PASSWORD = "settings more password";
let t: TlsMoat;
let browser: Browser;
let w: Watched;

beforeAll(async () => {
  // dns.rateLimit.count is set by startTlsMoat's environment: the read-only key of the last test
  // an upstream (never asked here) so the first-run setup does not come first
  t = await startTlsMoat({ FTLCONF_webserver_api_password: PASSWORD, FTLCONF_dns_upstreams: "127.0.0.1#9" });
  browser = await launch();
  w = await openPage(browser, { width: 1280, height: 800 });
});

afterAll(async () => {
  await browser?.close();
  await t?.moat.dispose();
});

async function newSid(): Promise<string> {
  const r = await t.moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  return ((await r.json()) as { session: { sid: string } }).session.sid;
}

async function apiGet<T>(path: string, sid: string): Promise<T> {
  const r = await t.moat.api(path, { headers: { sid } });
  if (!r.ok) throw new Error(`${path}: ${r.status}`);
  return (await r.json()) as T;
}

type Sessions = { sessions: Array<{ id: number; current_session: boolean }> };

async function login(v: Watched, path: string): Promise<void> {
  await logIn(v, `${t.moat.base}/admin${path}`, PASSWORD, "h1.page-title");
}

async function settled(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  await page.waitForSelector(".loading", { state: "detached" });
}

async function confirm(page: Page, action: string): Promise<void> {
  await page.click(`dialog[open] button:text('${action}')`);
}

test("a session ended from the list is gone from the API", async () => {
  const { page } = w;
  await login(w, "/settings");
  const other = await newSid();
  const otherId = (await apiGet<Sessions>("/api/auth/sessions", other)).sessions.find((s) => s.current_session)!.id;
  // slots are reused: the observer logs in before the end, so it cannot take the freed slot
  const observer = await newSid();
  await page.reload();
  await page.waitForSelector(`[data-testid=sessions] tr[data-session="${otherId}"]`);
  await page.click(`tr[data-session="${otherId}"] button:text('End')`);
  await confirm(page, "End session");
  await page.waitForSelector(`tr[data-session="${otherId}"]`, { state: "detached" });
  expect((await t.moat.api("/api/auth/sessions", { headers: { sid: other } })).status).toBe(401);
  const ids = (await apiGet<Sessions>("/api/auth/sessions", observer)).sessions.map((s) => s.id);
  expect(ids).not.toContain(otherId);
  await t.moat.api("/api/auth", { method: "DELETE", headers: { sid: observer } });
  expect(w.errors).toEqual([]);
}, 30000);

test("the listening mode is saved", async () => {
  const { page } = w;
  await page.selectOption("#s-listen", "ALL");
  await page.click("button:text('Save listening and domain')");
  await page.waitForSelector(".toast:text('Saved')");
  const sid = await newSid();
  const r = await apiGet<{ config: { dns: { listeningMode: string } } }>("/api/config/dns/listeningMode", sid);
  expect(r.config.dns.listeningMode).toBe("ALL");
  expect(w.errors).toEqual([]);
}, 30000);

test("regenerating the certificate shows the new fingerprint, the one the API reports", async () => {
  const { page } = w;
  const fp = page.locator("[data-testid=cert-fingerprint]");
  const before = (await fp.textContent())!.trim();
  expect(before).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  await page.click("button:text('Regenerate')");
  await confirm(page, "Regenerate");
  // polled from here: the page's CSP refuses the string functions of waitForFunction
  await eventually(async () => (await fp.textContent())!.trim() !== before, "the new fingerprint");
  const sid = await newSid();
  const api = await apiGet<{ tls: { certificate: { fingerprint: string } } }>("/api/tls", sid);
  expect((await fp.textContent())!.trim()).toBe(api.tls.certificate.fingerprint);
  expect(await page.textContent("[data-testid=cert-expiry]")).toMatch(/days left/);
  expect(w.errors).toEqual([]);
}, 30000);

test("the Apple profile for a client ID downloads and parses; DoT name and DoH URL are shown", async () => {
  const { page } = w;
  await page.fill("#s-cid", "kid");
  expect(await page.textContent("[data-testid=dot-name]")).toBe("kid.pi.hole");
  expect(await page.textContent("[data-testid=doh-url]")).toBe(`https://pi.hole:${t.httpsPort}/dns-query/kid`);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.click("button:text('Apple profile (DoH)')"),
  ]);
  expect(download.suggestedFilename()).toBe("moat-doh-kid.mobileconfig");
  const xml = readFileSync((await download.path())!, "utf8");
  const p = Bun.spawn(
    [
      "python3",
      "-c",
      "import sys,json,plistlib;d=plistlib.loads(sys.stdin.buffer.read());" +
        "print(json.dumps([x.get('DNSSettings') for x in d['PayloadContent']]))",
    ],
    { stdin: new TextEncoder().encode(xml), stdout: "pipe", stderr: "pipe" },
  );
  const out = await new Response(p.stdout).text();
  expect(await p.exited).toBe(0);
  const settings = (JSON.parse(out) as Array<Record<string, unknown> | null>).find(Boolean)!;
  expect(settings.DNSProtocol).toBe("HTTPS");
  expect(settings.ServerURL).toBe(`https://pi.hole:${t.httpsPort}/dns-query/kid`);
  expect(w.errors).toEqual([]);
}, 30000);

test("the fleet card says this node runs alone", async () => {
  const { page } = w;
  expect(await page.textContent("[data-testid=fleet-none]")).toContain("Not in a fleet");
  expect(w.errors).toEqual([]);
});

test("All settings saves a number, shows the API's range error at the key, and keeps an env-forced key read-only", async () => {
  const { page } = w;
  await page.click("nav.side >> text=All settings");
  await page.waitForSelector("h1.page-title:text('All settings')");
  await settled(page);
  await page.fill("#all-filter", "blockTTL");
  const row = page.locator("form[data-key='dns.blockTTL']");
  await page.fill("#all-dns-blockTTL", "100000");
  await row.locator("button:text('Save')").click();
  const err = row.locator(".error");
  await err.waitFor();
  expect(await err.textContent()).toContain("86400");
  const sid = await newSid();
  const ttl = async () =>
    (await apiGet<{ config: { dns: { blockTTL: number } } }>("/api/config/dns/blockTTL", sid)).config.dns.blockTTL;
  expect(await ttl()).toBe(2);
  await page.fill("#all-dns-blockTTL", "7");
  await row.locator("button:text('Save')").click();
  await page.waitForSelector(".toast:text('Saved dns.blockTTL')");
  expect(await ttl()).toBe(7);

  await page.fill("#all-filter", "rateLimit.count");
  expect(await page.isDisabled("#all-dns-rateLimit-count")).toBe(true);
  expect(await page.textContent("form[data-key='dns.rateLimit.count']")).toContain("FTLCONF_dns_rateLimit_count");
  await page.fill("#all-filter", "");
  expect(w.errors).toEqual([]);
}, 30000);

test("screenshots: Settings and All settings, desktop and phone, light and dark; the phone never scrolls sideways", async () => {
  const phone = await openPage(browser, { width: 390, height: 844 });
  await login(phone, "/settings");
  for (const theme of ["light", "dark"]) {
    for (const [size, v] of [
      ["desktop", w],
      ["phone", phone],
    ] as const) {
      await v.page.evaluate((m) => localStorage.setItem("moat.theme", m), theme);
      for (const path of ["/settings", "/settings/all"]) {
        await v.page.goto(`${t.moat.base}/admin${path}`);
        await v.page.waitForSelector("h1.page-title");
        await settled(v.page);
        expect(await v.page.evaluate("document.documentElement.dataset.theme")).toBe(theme);
        await shot(v.page, `${path.slice(1).replace("/", "-")}-${size}-${theme}`);
        if (size === "phone")
          expect(await v.page.evaluate<number>("document.documentElement.scrollWidth"), path).toBeLessThanOrEqual(390);
      }
    }
  }
  expect(phone.errors).toEqual([]);
  expect(w.errors).toEqual([]);
  expect(w.outside).toEqual([]);
  await phone.ctx.close();
}, 90000);

test("log out everywhere ends every session, this one too, and shows the login", async () => {
  const { page } = w;
  const other = await newSid();
  await page.goto(`${t.moat.base}/admin/settings`);
  await page.waitForSelector("[data-testid=sessions]");
  await settled(page);
  w.expected401 = true; // the page's own session ends: its next look is a 401
  await page.click("button:text('Log out everywhere')");
  await confirm(page, "Log out everywhere");
  await page.waitForSelector("#password");
  expect((await t.moat.api("/api/auth/sessions", { headers: { sid: other } })).status).toBe(401);
  const observer = await newSid();
  const left = (await apiGet<Sessions>("/api/auth/sessions", observer)).sessions;
  expect(left.map((s) => s.current_session)).toEqual([true]);
  expect(w.errors).toEqual([]);
}, 30000);
