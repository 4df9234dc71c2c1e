// "Block for this client" from the query log, as AdGuard Home's log offers it: the row's button, after a
// confirmation, adds a $client custom rule, so the name is blocked for the client at 127.0.0.2 and not for
// 127.0.0.1; the blocked row's "Unblock for this client" takes the rule out again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { eventually, launch, logIn, openPage, shot, type Watched } from "./browser.ts";

const PASSWORD = "client rule correct horse";
const NAME = "one-client.rule-row.test";
let moat: MoatProcess;
let up: Upstream;
let browser: Browser;
let w: Watched;

/** the first answer to `name`, asked from the source address `from` */
async function digFrom(from: string, name: string): Promise<string> {
  const r = await run([
    "dig",
    "+short",
    "+time=2",
    "+tries=1",
    "-b",
    from,
    "-p",
    String(moat.dnsPort),
    "@127.0.0.1",
    name,
  ]);
  return r.stdout.trim().split("\n")[0] ?? "";
}

async function customRules(): Promise<string> {
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  const sid = ((await r.json()) as { session: { sid: string } }).session.sid;
  const res = await moat.api("/api/rules/custom", { headers: { sid } });
  return ((await res.json()) as { rules: { text: string } }).rules.text;
}

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.24" });
  moat = await startMoat({
    configToml: `[dns]\n  upstreams = ["${up.address}"]\n`,
    env: { FTLCONF_webserver_api_password: PASSWORD },
  });
  browser = await launch();
  w = await openPage(browser);
  await logIn(w, `${moat.base}/admin/queries`, PASSWORD);
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  await up?.stop();
});

test("block a name for one client from its log row, then unblock it from the blocked row", async () => {
  const { page } = w;
  expect(await digFrom("127.0.0.2", NAME)).toBe("192.0.2.24");
  await page.goto(`${moat.base}/admin/queries?client_ip=127.0.0.2&domain=${NAME}`);
  const row = page.locator(`tr[data-domain='${NAME}']`).first();
  await row.waitFor();
  await row.locator("button:text('Block for this client')").click();
  // asked first, with the rule it will add
  const dialog = page.locator("dialog[open]");
  await dialog.waitFor();
  expect(await dialog.textContent()).toContain(`||${NAME}^$client=127.0.0.2`);
  await dialog.locator("button:text-is('Block')").click();
  await page.waitForSelector(`.toast:text('${NAME} blocked for 127.0.0.2')`);
  await eventually(async () => (await digFrom("127.0.0.2", NAME)) === "0.0.0.0", "the block for 127.0.0.2");
  expect(await digFrom("127.0.0.1", NAME)).toBe("192.0.2.24");
  expect(await customRules()).toBe(`||${NAME}^$client=127.0.0.2\n`);

  const blocked = page.locator(`tr.blocked[data-domain='${NAME}']`).first();
  await blocked.waitFor({ timeout: 8000 }); // the live tail brings the blocked query
  await shot(page, "query-log-client-rule");
  await blocked.locator("button:text('Unblock for this client')").click();
  await dialog.waitFor();
  await dialog.locator("button:text-is('Unblock')").click();
  await page.waitForSelector(`.toast:text('${NAME} unblocked for 127.0.0.2')`);
  await eventually(async () => (await digFrom("127.0.0.2", NAME)) === "192.0.2.24", "the unblock for 127.0.0.2");
  expect(await customRules()).toBe("");
  expect(w.errors).toEqual([]);
  expect(w.outside).toEqual([]);
});
