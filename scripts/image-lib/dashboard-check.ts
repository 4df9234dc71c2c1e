// The image's dashboard in headless Chromium (Debian's, driven by playwright-core), reached as a browser on
// the owner's network reaches it: http://moat/, the name mapped to qemu's forwarded HTTP port. Checks that
// / leads to the login, the settings-file password opens the dashboard, and its numbers and charts render,
// with no script error and no request to anything but the appliance. Run by scripts/image-lib/checks.sh:
//   bun scripts/image-lib/dashboard-check.ts <forwarded-http-port> <password> <screenshot.png>
import { chromium } from "playwright-core";

const [port, password, screenshot] = process.argv.slice(2);
if (!port || !password || !screenshot) throw new Error("usage: dashboard-check.ts <port> <password> <screenshot.png>");

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--host-resolver-rules=MAP moat 127.0.0.1:${port}`,
  ],
});
const problems: string[] = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  // an emulated arm64 serves slowly: generous steps, still well inside the check's own limit
  page.setDefaultTimeout(60000);
  page.on("pageerror", (e) => problems.push(`script error: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 500) problems.push(`${r.status()} from ${r.url()}`);
  });
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.protocol.startsWith("http") && u.hostname !== "moat") problems.push(`request off the appliance: ${r.url()}`);
  });
  await page.goto("http://moat/", { timeout: 120000 });
  await page.waitForSelector("#password");
  const loginAt = new URL(page.url()).pathname;
  await page.fill("#password", password);
  await page.click("button[type=submit]");
  await page.waitForSelector("nav.side");
  await page.waitForSelector("[data-testid=stat-total] .stat-value");
  const title = (await page.textContent("h1.page-title"))?.trim();
  const total = (await page.textContent("[data-testid=stat-total] .stat-value"))?.trim() ?? "";
  await page.locator(".chart canvas").nth(1).waitFor();
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`  dashboard: login at ${loginAt}, then "${title}", total queries shown: ${total}`);
  if (!loginAt.startsWith("/admin")) problems.push(`http://moat/ led to ${loginAt}, not the dashboard's login`);
  if (title !== "Dashboard") problems.push(`page title "${title}", not "Dashboard"`);
  if (!/^[\d,.\s]+$/.test(total)) problems.push(`total queries shows "${total}", not a number`);
} catch (e) {
  problems.push(e instanceof Error ? e.message.split("\n")[0]! : String(e));
} finally {
  await browser.close();
}
for (const p of problems) console.log(`  ${p}`);
process.exit(problems.length ? 1 : 0);
