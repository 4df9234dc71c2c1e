// The Settings page's Updates card in a real browser against a real Moat and the real rauc (RAUC's service on
// a private D-Bus with slot files and RAUC's U-Boot backend on scratch boot counters, test/update/fixture.ts): a person sees
// the running version and no update yet, uploads a good bundle and watches its progress to 100 % and the
// other slot then holding it; a stranger's bundle is refused with the sentence that says why and changes
// nothing; an https URL installs as an upload does; "Reboot now" asks, leaves the reboot request and waits
// for the restarted Moat; a Moat without RAUC says updates are for the image only and offers no install.
// Desktop and phone, light and dark, with screenshots.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import type { Browser, Page } from "playwright-core";
import { ROOT, startMoat, type MoatProcess } from "../harness/moat.ts";
import type { TestCa } from "../harness/tls-peer.ts";
import { UpdateFixture, hasRauc, serveBundles } from "../update/fixture.ts";
import { eventually, launch, logIn, openPage, shot, type Watched } from "./browser.ts";

const can = hasRauc && Bun.which("dbus-daemon") !== null;
const PASSWORD = "update card password";
// an upstream (never asked here) so the first-run setup does not come first
const BASE_ENV = { FTLCONF_webserver_api_password: PASSWORD, FTLCONF_dns_upstreams: "127.0.0.1#9" };

let fx: UpdateFixture;
let moat: MoatProcess;
let browser: Browser;
let w: Watched;
let ca: TestCa;
let https: Server<unknown>;
const bundles: Record<string, string> = {};

beforeAll(async () => {
  browser = await launch();
  if (!can) return;
  fx = new UpdateFixture();
  fx.systemConf();
  await fx.startService();
  bundles.v2 = fx.bundle("2.0.0");
  bundles.v3 = fx.bundle("3.0.0");
  bundles.stranger = fx.bundle("9.0.0", { keys: fx.stranger });
  // bundles by https URL, from a server Moat trusts through the test authority
  ({ ca, server: https } = serveBundles(bundles));
  moat = await startMoat({
    env: { ...BASE_ENV, FTLCONF_update_system: fx.slots.conf, NODE_EXTRA_CA_CERTS: ca.caFile, ...fx.busEnv },
  });
  w = await openPage(browser, { width: 1280, height: 860 });
}, 60000);

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
  https?.stop(true);
  ca?.dispose();
  await fx?.dispose();
});

type Status = { running: { version: string; slot: string | null }; other: { version: string | null } | null };

async function status(m: MoatProcess): Promise<Status> {
  const auth = await m.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  const { sid } = ((await auth.json()) as { session: { sid: string } }).session;
  try {
    return (await (await m.api("/api/info/update", { headers: { sid } })).json()) as Status;
  } finally {
    await m.api("/api/auth", { method: "DELETE", headers: { sid } });
  }
}

const text = async (page: Page, id: string) => ((await page.textContent(`[data-testid=${id}]`)) ?? "").trim();
const slotB = () => readFileSync(fx.slots.b);

/** a screenshot of the Updates card alone */
async function cardShot(page: Page, name: string): Promise<void> {
  const card = page.locator("section.card", { has: page.locator("[data-testid=update-status]") });
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: join(ROOT, `test-output/screenshots/settings-update-${name}.png`) });
}

/**
 * Records what the card's progress view says each time it changes (its headline and the bar's value), from
 * before the next install starts: the run is over in about a second, too fast to poll.
 */
async function watchProgress(page: Page): Promise<() => Promise<string[]>> {
  // a string, as the test project has no DOM types
  await page.evaluate(`(() => {
    const seen = (window.seen = []);
    new MutationObserver(() => {
      const head = document.querySelector("[data-testid=update-result]")?.textContent ?? "";
      const bar = document.querySelector("[data-testid=update-progress] progress");
      const now = head + " | " + (bar ? bar.value : "-");
      if (head && seen.at(-1) !== now) seen.push(now);
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  })()`);
  return () => page.evaluate<string[]>("window.seen");
}

/** the number of installs started on the page so far */
let runs = 0;

/** presses Install and confirms; returns the confirmation's text once this install's view is up */
async function confirmInstall(page: Page): Promise<string> {
  await page.click("button:text('Install update')");
  const asked = (await page.textContent("dialog[open] #confirm-text")) ?? "";
  await page.click("dialog[open] button:text('Install')");
  await page.waitForSelector(`[data-testid=update-progress][data-run="${++runs}"]`);
  return asked;
}

/** picks the file in the card and installs it */
async function install(page: Page, file: string): Promise<string> {
  await page.setInputFiles("#u-file", file);
  return confirmInstall(page);
}

test.skipIf(!can)(
  "Settings shows the running version and slot, an empty other slot and no update yet",
  async () => {
    const { page } = w;
    await logIn(w, `${moat.base}/admin/settings`, PASSWORD, "[data-testid=update-status]");
    const api = await status(moat);
    expect(await text(page, "update-running")).toBe(`${api.running.version} (slot A)`);
    expect(await text(page, "update-other")).toContain("B: nothing installed by an update yet");
    expect(await text(page, "update-last")).toBe("no update yet");
    expect(await page.isVisible("#u-file")).toBe(true);
    expect(w.errors).toEqual([]);
  },
  30000,
);

test.skipIf(!can)(
  "an uploaded bundle installs with its progress to 100 %, and the other slot then holds it",
  async () => {
    const { page } = w;
    const seen = await watchProgress(page);
    const asked = await install(page, bundles.v2!);
    expect(asked).toContain("into the other slot");
    expect(asked).toContain("a reboot then starts the new version");
    const result = page.locator("[data-testid=update-result]");
    await eventually(
      async () => ((await result.textContent()) ?? "") === "Installed version 2.0.0 into the other slot",
      "the install's end",
      30000,
    );
    expect(await page.getAttribute("[data-testid=update-progress] progress", "value")).toBe("100");
    // what the person saw: the upload to its end, then RAUC's percentages as they came, never going back
    const views = await seen();
    expect(views[0]).toBe("Sending the bundle… 0% | 0");
    expect(views).toContain("Checking the bundle's signature… | 100");
    const bars = views.filter((v) => v.startsWith("Installing…")).map((v) => Number(v.split(" | ")[1]));
    expect(bars[0]).toBe(0);
    expect(bars.at(-1)).toBe(100);
    expect(bars.some((b) => b > 0 && b < 100)).toBe(true);
    expect(bars).toEqual(bars.toSorted((a, b) => a - b));
    expect(views.at(-1)).toBe("Installed version 2.0.0 into the other slot | 100");
    const log = (await page.textContent("[data-testid=update-progress] pre")) ?? "";
    expect(log).toContain("  0% Installing version 2.0.0");
    expect(log).toContain("100% Installing done.");
    expect(await text(page, "update-reboot")).toStartWith("A reboot starts version 2.0.0");
    expect(await text(page, "update-reboot")).toEndWith('"Reboot now" below starts it.');
    // the card reloaded its status: the other slot holds the new version and is tried at the next boot
    await eventually(async () => (await text(page, "update-other")).includes("2.0.0"), "the other slot's new version");
    expect(await text(page, "update-other")).toContain("B: 2.0.0 good the next boot tries it");
    expect(await text(page, "update-last")).toContain("installed 2.0.0 ·");
    expect(await text(page, "update-last")).toContain(
      "Installed version 2.0.0 into the other slot; reboot to start it",
    );
    // and it did happen: slot B holds the bundle's root image
    const root = readFileSync(fx.rootOf.get(bundles.v2!)!);
    expect(slotB().subarray(0, root.length).equals(root)).toBe(true);
    expect((await status(moat)).other?.version).toBe("2.0.0");
    // the reboot that starts it is one button away
    expect(await page.isVisible("button:text('Reboot now')")).toBe(true);
    await cardShot(page, "installed-desktop-light");
    expect(w.errors).toEqual([]);
  },
  60000,
);

test.skipIf(!can)(
  "a stranger's bundle is refused with the sentence that says why, and nothing changes",
  async () => {
    const { page } = w;
    const before = slotB();
    await install(page, bundles.stranger!);
    const result = page.locator("[data-testid=update-result]");
    await eventually(
      async () => ((await result.textContent()) ?? "") === "Refused: nothing was written",
      "the refusal",
      20000,
    );
    const why = "The bundle is not signed by this system's update key: refused.";
    expect(await page.textContent("[data-testid=update-progress] [role=alert]")).toBe(why);
    expect(slotB().equals(before)).toBe(true);
    expect((await status(moat)).other?.version).toBe("2.0.0");
    await eventually(
      async () => (await text(page, "update-last")).includes("failed"),
      "the refusal as the last result",
    );
    expect(await text(page, "update-last")).toContain(why);
    expect(await text(page, "update-other")).toContain("B: 2.0.0");
    // the form is back for the next try
    expect(await page.isVisible("#u-file")).toBe(true);
    await cardShot(page, "refused-desktop-light");
    expect(w.errors).toEqual([]);
  },
  30000,
);

test.skipIf(!can)(
  "a pasted https URL installs too; a plain http one is refused before it is fetched",
  async () => {
    const { page } = w;
    const result = page.locator("[data-testid=update-result]");
    const byUrl = async (url: string) => {
      await page.fill("#u-url", url);
      expect(await confirmInstall(page)).toContain(`Install ${url} into the other slot`);
    };
    await byUrl(`http://127.0.0.1:${https.port}/v3`);
    await eventually(async () => (await result.textContent()) === "Refused: nothing was written", "the refusal");
    expect(await page.textContent("[data-testid=update-progress] [role=alert]")).toBe(
      "An update URL must start with https://.",
    );
    expect((await status(moat)).other?.version).toBe("2.0.0");
    await byUrl(`https://localhost:${https.port}/v3`);
    await eventually(
      async () => (await result.textContent()) === "Installed version 3.0.0 into the other slot",
      "the install's end",
      30000,
    );
    expect(await page.getAttribute("[data-testid=update-progress] progress", "value")).toBe("100");
    await eventually(async () => (await text(page, "update-other")).includes("B: 3.0.0"), "the other slot's version");
    const root = readFileSync(fx.rootOf.get(bundles.v3!)!);
    expect(slotB().subarray(0, root.length).equals(root)).toBe(true);
    // the finished install's view (the log, the reboot note) fits a phone too
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await cardShot(page, "installed-phone-light");
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(w.errors).toEqual([]);
  },
  60000,
);

test.skipIf(!can)(
  "Reboot now asks first, leaves the request for moat-reboot.path, says it is restarting, and shows the version once Moat is back",
  async () => {
    const { page } = w;
    const request = join(moat.dataDir, "reboot-request");
    // a fresh page: GET /api/info/update alone (a trial of 3.0.0 pending) brings the button
    await page.goto(`${moat.base}/admin/settings`);
    await page.waitForSelector("[data-testid=update-status]");
    const button = page.locator("button:text('Reboot now')");
    await button.waitFor();
    // Cancel asks for nothing
    await button.click();
    const asked = (await page.textContent("dialog[open] #confirm-text")) ?? "";
    expect(asked).toBe(
      "Reboot now into version 3.0.0? DNS stops for about a minute while the machine restarts; if the new version " +
        "does not come up healthy, the old one boots again by itself.",
    );
    await page.click("dialog[open] button:text('Cancel')");
    await Bun.sleep(300);
    expect(existsSync(request)).toBe(false);
    expect(await page.locator("[data-testid=update-restarting]").count()).toBe(0);

    await button.click();
    await page.click("dialog[open] button:text('Reboot now')");
    await page.waitForSelector("[data-testid=update-restarting]");
    expect(await text(page, "update-restarting")).toStartWith("Restarting into slot B, once as a trial…");
    expect(JSON.parse(readFileSync(request, "utf8"))).toMatchObject({ slot: "B", tryboot: true });
    // the install form and the button are gone while the machine restarts
    expect(await page.locator("#u-file, button:text('Reboot now')").count()).toBe(0);
    await cardShot(page, "restarting-desktop-light");
    // what moat-reboot.service does, then the restart itself: the real process stopped and started again (the
    // fixture's RAUC stays on slot A, as a plain reboot would)
    rmSync(request);
    const before = await status(moat);
    const seen = w.errors.length;
    await moat.restart();
    await page.waitForSelector("[data-testid=update-back]", { timeout: 20000 });
    // the card asks while the process is away: the browser logs each refused connection of that time as an
    // error (how many depends on how long the restart takes); those are the answer the card waits through
    w.errors.splice(
      seen,
      w.errors.length - seen,
      ...w.errors.slice(seen).filter((e) => !e.endsWith("net::ERR_CONNECTION_REFUSED")),
    );
    expect(await text(page, "update-back")).toBe(`Moat is back: running version ${before.running.version} (slot A).`);
    expect(await page.locator("[data-testid=update-restarting]").count()).toBe(0);
    // the trial is still pending here, so the card offers the reboot again
    await button.waitFor();
    await cardShot(page, "back-desktop-light");
    expect(w.errors).toEqual([]);
  },
  60000,
);

test.skipIf(!can)(
  "screenshots: the card on desktop and phone, light and dark; the phone never scrolls sideways",
  async () => {
    const phone = await openPage(browser, { width: 390, height: 844 });
    await logIn(phone, `${moat.base}/admin/settings`, PASSWORD, "[data-testid=update-status]");
    for (const theme of ["light", "dark"]) {
      for (const [size, v] of [
        ["desktop", w],
        ["phone", phone],
      ] as const) {
        await v.page.evaluate((m) => localStorage.setItem("moat.theme", m), theme);
        await v.page.goto(`${moat.base}/admin/settings`);
        await v.page.waitForSelector("[data-testid=update-status]");
        expect(await v.page.evaluate("document.documentElement.dataset.theme")).toBe(theme);
        await cardShot(v.page, `card-${size}-${theme}`);
        if (size === "phone") {
          expect(await v.page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
          const card = v.page.locator("section.card", { has: v.page.locator("[data-testid=update-status]") });
          const box = (await card.boundingBox())!;
          expect(box.x + box.width).toBeLessThanOrEqual(390);
        }
      }
    }
    await shot(phone.page, "settings-update-phone-dark");
    expect(phone.errors).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(w.outside).toEqual([]);
    await phone.ctx.close();
  },
  90000,
);

test("a Moat without RAUC set up says updates are for the image only and offers no install", async () => {
  // update.system left at its default (/etc/rauc/system.conf), which a development machine lacks
  const env: Record<string, string> = existsSync("/etc/rauc/system.conf")
    ? { FTLCONF_update_system: "/nonexistent/system.conf" }
    : {};
  const bare = await startMoat({ env: { ...BASE_ENV, ...env } });
  const v = await openPage(browser, { width: 390, height: 844 });
  try {
    await logIn(v, `${bare.base}/admin/settings`, PASSWORD, "[data-testid=update-status]");
    expect(await text(v.page, "update-unavailable")).toBe("Updates are available on the Moat image only.");
    expect(await text(v.page, "update-running")).toBe((await status(bare)).running.version);
    expect(await v.page.locator("[data-testid=update-other]").count()).toBe(0);
    expect(await v.page.locator("#u-file, #u-url, button:text('Install update')").count()).toBe(0);
    expect(v.errors).toEqual([]);
  } finally {
    await v.ctx.close();
    await bare.dispose();
  }
}, 30000);
