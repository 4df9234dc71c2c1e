// The setup guide in a real browser: Moat's real addresses filled in, and the live check. A device
// whose address Moat has had no query from is told how to fix it; once a real query (dig) comes from
// the browser's address, the page says the device uses Moat.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import type { Browser } from "playwright-core";
import { canMakeNamespaces, type Device, TestLan } from "../dhcp/lan.ts";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startTlsMoat } from "../tls/helpers.ts";
import { dig, launch, logIn, openPage, shot, type Watched } from "./browser.ts";

const PASSWORD = "guide password";
let moat: MoatProcess;
let browser: Browser;
let w: Watched;

beforeAll(async () => {
  moat = await startMoat({ env: { FTLCONF_webserver_api_password: PASSWORD } });
  browser = await launch();
  w = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await moat?.dispose();
});

const ownV4 = () =>
  Object.values(networkInterfaces())
    .flatMap((l) => l ?? [])
    .filter((a) => !a.internal && a.family === "IPv4")
    .map((a) => a.address);

test("with no query from the browser's address the check says how to fix it; after one, 'using Moat'", async () => {
  const { page } = w;
  // no upstream yet: the first-run setup comes first, with the guide's step last
  await logIn(w, `${moat.base}/admin/guide`, PASSWORD, ".setup [data-testid=live-check]");
  expect(await page.textContent(".setup .guide-step legend")).toBe("3. Point your devices at Moat");
  expect(await page.textContent(".setup [data-testid=check-verdict]")).toBe("This device is not using Moat");
  await shot(page, "setup-guide-step");
  await page.click("button:text('Skip for now')");
  await page.waitForSelector("nav.side a:text('Setup guide')");
  await page.waitForSelector("[data-testid=live-check]");
  expect(await page.textContent("[data-testid=check-verdict]")).toBe("This device is not using Moat");
  const fix = await page.textContent("[data-testid=check-fix]");
  expect(fix).toContain("no query from this device (127.0.0.1)");
  expect(fix).toContain("Set its DNS server to Moat's address");
  expect(await page.textContent("h1")).toBe("Setup guide");

  // Moat's own addresses, in the facts and in the commands
  // (other tests on this machine add and remove test networks meanwhile: the first is the machine's own)
  if (ownV4().length) {
    const first = (await page.textContent("[data-testid=guide-v4]"))!.split(", ")[0]!;
    expect(ownV4()).toContain(first);
    expect(await page.textContent(".guide-linux")).toContain(`DNS=${first}`);
    expect(await page.textContent(".guide-windows")).toContain(`-ServerAddresses ${first}`);
    expect(await page.textContent(".guide-router")).toContain(`set the DNS server handed to devices to ${first}.`);
  }
  // the test's DNS port is not 53: the guide says so, as no device would reach it
  expect(await page.textContent("[data-testid=guide-port]")).toContain(`port ${moat.dnsPort}`);
  await shot(page, "guide-not-using");

  // a real query from the browser's address (both are 127.0.0.1 here)
  await dig(moat.dnsPort, "example.invalid");
  await page.reload();
  await page.waitForSelector("[data-testid=live-check]");
  expect(await page.textContent("[data-testid=check-verdict]")).toBe("This device is using Moat");
  expect(await page.textContent("[data-testid=live-check]")).toContain(
    "Moat answered 1 query from this device (127.0.0.1) in the last ten minutes.",
  );
  expect(await page.locator("[data-testid=check-fix]").count()).toBe(0);
  await shot(page, "guide-using");
  expect(w.errors).toEqual([]);
  expect(w.outside).toEqual([]);
});

// This browser's own lookups: chromium runs in a network namespace of the test's own (a device on a
// test LAN), whose resolv.conf names Moat's address on that LAN; the device's port 53 is sent on to
// Moat's DNS port (a NAT rule inside the namespace). "Check this browser" makes chromium look up a
// fresh probe name there, so Moat sees it from the device's address. With the rule gone the lookups
// go nowhere Moat sees, and the page says how to fix it.
describe.skipIf(!canMakeNamespaces())("from a device on a test LAN", () => {
  let lan: TestLan;
  let lanMoat: MoatProcess;
  let nsBrowser: Browser;
  let device: Device;
  const deviceIp = () => `${lan.prefix}.10`;

  beforeAll(async () => {
    lan = new TestLan().up();
    device = lan.addDevice("02:00:00:00:49:01");
    device.exec(["ip", "addr", "add", `${deviceIp()}/24`, "dev", "eth0"]);
    // ip netns exec puts /etc/netns/<ns>/resolv.conf in place of /etc/resolv.conf
    mkdirSync(`/etc/netns/${device.ns}`, { recursive: true });
    writeFileSync(`/etc/netns/${device.ns}/resolv.conf`, `nameserver ${lan.hostIp}\noptions timeout:1 attempts:1\n`);
    lanMoat = await startMoat({
      httpHost: "0.0.0.0",
      configToml: `[dns]\n  upstreams = ["127.0.0.1#9"]\n`,
      env: { FTLCONF_webserver_api_password: PASSWORD },
    });
    nsBrowser = await launch(lan.script("chromium", `exec ip netns exec ${device.ns} /usr/bin/chromium "$@"`));
  });

  afterAll(async () => {
    await nsBrowser?.close();
    await lanMoat?.dispose();
    await lan?.dispose();
    rmSync(`/etc/netns/${device?.ns}`, { recursive: true, force: true });
  });

  const nat = (op: "-A" | "-D") => {
    for (const proto of ["udp", "tcp"])
      device.exec([
        "iptables",
        "-t",
        "nat",
        op,
        "OUTPUT",
        "-p",
        proto,
        "-d",
        lan.hostIp,
        "--dport",
        "53",
        "-j",
        "DNAT",
        "--to-destination",
        `${lan.hostIp}:${lanMoat.dnsPort}`,
      ]);
  };

  test("a lookup of the browser's probe that reaches Moat shows 'using Moat'; none shows the fix", async () => {
    const d = await openPage(nsBrowser);
    const base = `http://${lan.hostIp}:${lanMoat.httpPort}`;
    await logIn(d, `${base}/admin/guide`, PASSWORD, "[data-testid=live-check]");
    nat("-A");
    await d.page.click("button:text('Check this browser')");
    await d.page.waitForSelector("button:text('Check again'):not([disabled])");
    expect(await d.page.textContent("[data-testid=check-verdict]")).toBe("This device is using Moat");
    expect(await d.page.textContent("[data-testid=live-check]")).toContain("This browser's lookups reach Moat.");
    await shot(d.page, "guide-browser-using");

    nat("-D");
    await d.page.click("button:text('Check again')");
    await d.page.waitForSelector("[data-testid=check-fix]");
    expect(await d.page.textContent("[data-testid=check-verdict]")).toBe("This device is not using Moat");
    const fix = await d.page.textContent("[data-testid=check-fix]");
    expect(fix).toContain("This browser's lookups do not reach Moat.");
    // the device asked Moat before (the first probe), so the browser's own DNS is the suspect
    expect(fix).toContain(`Other programs on this device (${deviceIp()}) ask Moat`);
    expect(fix).toContain("Use secure DNS");
    await shot(d.page, "guide-browser-not-using");
    // the failed lookups of the probe names are the only errors
    expect(d.errors.filter((e) => !/ERR_NAME_NOT_RESOLVED/.test(e))).toEqual([]);
    await d.ctx.close();
  });
});

test("with DoT and DoH on: the DoT name for Android, the DoH address, the Linux DoT line and the Apple profile", async () => {
  const tls = await startTlsMoat({ FTLCONF_webserver_api_password: PASSWORD });
  const d = await openPage(browser, { width: 390, height: 844 });
  try {
    const r = await tls.moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
    const sid = ((await r.json()) as { session: { sid: string } }).session.sid;
    const info = (await (await tls.moat.api("/api/tls", { headers: { sid } })).json()) as { tls: { name: string } };
    const name = info.tls.name;
    await logIn(d, `${tls.moat.base}/admin/guide`, PASSWORD, ".setup");
    await d.page.click("button:text('Skip for now')");
    await d.page.waitForSelector(".guide-android");
    expect(await d.page.textContent("[data-testid=guide-dot]")).toBe(name);
    expect(await d.page.textContent("[data-testid=guide-doh]")).toBe(`https://${name}:${tls.httpsPort}/dns-query`);
    expect(await d.page.textContent(".guide-android")).toContain(`Private DNS provider hostname and enter ${name};`);
    expect(await d.page.locator(".guide-android svg[aria-label='QR code of the DNS over TLS name']").count()).toBe(1);
    // a DoT port other than 853 is said, and written where systemd-resolved takes one
    expect(await d.page.textContent(".guide-android")).toContain("Android asks port 853 only");
    const first = (await d.page.textContent("[data-testid=guide-v4]"))!.split(", ")[0]!;
    expect(await d.page.textContent(".guide-linux")).toContain(`DNS=${first}:${tls.dotPort}#${name}`);

    const download = d.page.waitForEvent("download");
    await d.page.click(".guide-ios button:text('Profile (DNS over HTTPS)')");
    const file = await download;
    expect(file.suggestedFilename()).toBe("moat-doh.mobileconfig");
    const xml = await Bun.file((await file.path())!).text();
    expect(xml).toContain(`https://${name}:${tls.httpsPort}/dns-query`);
    await shot(d.page, "guide-phone-encrypted");
    expect(d.errors).toEqual([]);
  } finally {
    await d.ctx.close();
    await tls.moat.dispose();
  }
});
