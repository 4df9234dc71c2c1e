// The custom-rules editor in a real browser, checked with real DNS: rules typed in AdGuard Home's syntax are
// saved and block, allow and rewrite at once; a rule with a modifier Moat does not apply is named beside the
// editor, and a block list's such rules are counted and named on the same page.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { dig, eventually, launch, logIn, openPage, shot, type Watched } from "./browser.ts";

const PASSWORD = "rules correct horse";
const LIST = "||listed.rules-page.test^\n||app.rules-page.test^$app=com.example\n||img.rules-page.test^$image\n";
let moat: MoatProcess;
let up: Upstream;
let lists: ReturnType<typeof Bun.serve>;
let browser: Browser;
let w: Watched;

async function apiCall(method: string, path: string, body?: unknown): Promise<void> {
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  const sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  const res = await moat.api(path, {
    method,
    headers: { sid },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  await res.text();
}

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.46" });
  lists = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(LIST) });
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["${up.address}"]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  await apiCall("POST", "/api/lists?type=block", { address: `http://127.0.0.1:${lists.port}/ag.txt` });
  await apiCall("POST", "/api/action/gravity");
  browser = await launch();
  w = await openPage(browser);
  await logIn(w, `${moat.base}/admin/rules`, PASSWORD);
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  lists?.stop(true);
  await up?.stop();
});

test("rules typed in the editor apply to DNS, and what Moat does not apply is named", async () => {
  const { page } = w;
  expect(await dig(moat.dnsPort, "www.typed.rules-page.test")).toBe("192.0.2.46");
  expect(await dig(moat.dnsPort, "listed.rules-page.test")).toBe("0.0.0.0");
  // the list's rules that are not applied, named
  const listCard = page.locator(".list-rules").first();
  await listCard.waitFor();
  await expect(listCard.textContent()).resolves.toContain("2 not applied");
  await expect(listCard.textContent()).resolves.toContain("the modifier $app is not supported");
  await page.fill(
    "#custom-rules",
    [
      "! typed in the browser",
      "||typed.rules-page.test^",
      "@@||listed.rules-page.test^",
      "||rw.rules-page.test^$dnsrewrite=10.7.7.7",
      "||later.rules-page.test^$redirect=noopjs",
    ].join("\n"),
  );
  await page.click("button:text('Save')");
  await page.waitForSelector(".toast:text('Custom rules saved')");
  await page.waitForSelector("text=3 rules applied, 1 not applied");
  await expect(page.locator(".rule-problems").first().textContent()).resolves.toContain(
    "||later.rules-page.test^$redirect=noopjs: the modifier $redirect is not supported",
  );
  await eventually(async () => (await dig(moat.dnsPort, "www.typed.rules-page.test")) === "0.0.0.0", "the block");
  expect(await dig(moat.dnsPort, "listed.rules-page.test")).toBe("192.0.2.46");
  expect(await dig(moat.dnsPort, "rw.rules-page.test")).toBe("10.7.7.7");
  // what was saved is what the page shows after a reload
  await page.reload();
  await expect(page.locator("#custom-rules").inputValue()).resolves.toContain("@@||listed.rules-page.test^");
  await shot(page, "custom-rules");
  expect(w.errors).toEqual([]);
  expect(w.outside).toEqual([]);
});
