// DNS throughput with and without an open dashboard: Moat (from source) with the test upstream,
// dnsperf on cached names for SECONDS, first with no browser, then with headless chromium showing
// the dashboard (which polls as a person's browser would), then the query log with its live tail.
// Prints QPS and Moat's CPU time per query (from /proc, robust to a shared machine). Loopback only.
// Usage: bun bench/dashboard/run.ts [--seconds 10]
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startMoat } from "../../test/harness/moat.ts";
import { startUpstream } from "../../test/harness/upstream.ts";

const i = process.argv.indexOf("--seconds");
const SECONDS = i > 0 ? Number(process.argv[i + 1]) : 10;
const dir = mkdtempSync(join(tmpdir(), "moat-bench-dash-"));
const names = Array.from({ length: 1000 }, (_, k) => `cached-${k}.example A`).join("\n");
writeFileSync(join(dir, "q.txt"), `${names}\n`);

const cpu = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in seconds (USER_HZ = 100)
};

async function dnsperf(port: number, seconds: number): Promise<number> {
  const p = Bun.spawn(
    [
      "dnsperf",
      "-s",
      "127.0.0.1",
      "-p",
      String(port),
      "-d",
      join(dir, "q.txt"),
      "-l",
      String(seconds),
      "-c",
      "4",
      "-q",
      "200",
    ],
    { stdout: "pipe", stderr: "ignore" },
  );
  const out = await new Response(p.stdout).text();
  return Number(/Queries completed:\s+(\d+)/.exec(out)?.[1] ?? 0);
}

const up = await startUpstream({ ttl: 86400 });
const moat = await startMoat({ configToml: `[dns]\n  upstreams = ["${up.address}"]\n` });
const pid = moat.proc!.pid;
await dnsperf(moat.dnsPort, 2); // warm the cache

async function measure(label: string): Promise<void> {
  const c0 = cpu(pid);
  const n = await dnsperf(moat.dnsPort, SECONDS);
  const c1 = cpu(pid);
  console.log(
    `${label.padEnd(28)} ${(n / SECONDS).toFixed(0).padStart(8)} QPS   ${(((c1 - c0) / n) * 1e6).toFixed(2)} µs CPU/query`,
  );
}

try {
  await measure("no browser");
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
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const t0 = performance.now();
  await page.goto(`${moat.base}/admin/`);
  await page.evaluate("localStorage.setItem('moat.setup.done', '1')");
  await page.reload();
  await page.waitForSelector("[data-testid=stat-total]");
  console.log(`dashboard rendered in ${(performance.now() - t0).toFixed(0)} ms (with a reload)`);
  await measure("dashboard open");
  await page.goto(`${moat.base}/admin/queries`);
  await page.waitForSelector("h1.page-title");
  await measure("query log live tail open");
  await browser.close();
  await measure("browser closed again");
} finally {
  await moat.dispose();
  await up.stop();
}
