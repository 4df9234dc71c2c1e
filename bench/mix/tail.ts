// The tail with a full day, alone: Moat as the mix starts it (bench/mix/run.ts), a fill of --fill queries
// kept in the window, then fixed-rate runs (dnsperf -Q, -c 16) and their p99 / p99.9, with the CPU of each
// of Moat's threads meanwhile. Its ports differ from the mix's (no lock needed). Moat's standard error goes
// to --log FILE: with --env BUN_JSC_logGC=1 its collections (bench/mix/gclog.ts), and with --lag the
// main thread's stalls (lag-probe.ts, preloaded): each "LAG" line follows the collection that made it.
// Usage: bun bench/mix/tail.ts [--list 1000000] [--queries 1000000] [--fill 1000000] [--seconds 10]
//   [--rates 10000,1000] [--env KEY=VALUE,...] [--lag] [--log FILE] [--bun-flags A,B] [--port-base 26500]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { makeMix } from "./data.ts";
import { dnsperf, pct, rssMb, settle, threadCpu, threadShare } from "./measure.ts";
import { tailReport } from "./tail-report.ts";
import { loadMoatLists, moatBenchEnv, Processes, upstreamCommand, waitAnswer } from "./servers.ts";

const ROOT = resolve(import.meta.dir, "../..");
const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const BASE = Number(arg("port-base", "26500"));
const [UPSTREAM, DNS, HTTP] = [BASE, BASE + 1, BASE + 10];
const SECONDS = arg("seconds", "10");
const FILL = Number(arg("fill", "1000000"));
const LOG = arg("log", "") || "/dev/null";
const dir = mkdtempSync(join(tmpdir(), "moat-tail-"));
const mix = makeMix(dir, {
  list: Number(arg("list", "1000000")),
  queries: Number(arg("queries", "1000000")),
  popular: 100000,
  hostsPool: 150000,
  abpPool: 60000,
});
const procs = new Processes(ROOT);
procs.spawn(upstreamCommand(UPSTREAM));
await waitAnswer(UPSTREAM, "up.bench.test", /^192\.0\.2\.1$/, 10);
const env = {
  ...(process.env as Record<string, string>),
  ...moatBenchEnv({ port: DNS, upstreamPort: UPSTREAM, httpPort: HTTP }),
  FTLCONF_gravity_maxListSize: "1024",
  ...Object.fromEntries(
    arg("env", "")
      .split(",")
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  ),
};
const preload = process.argv.includes("--lag") ? ["--preload", join(import.meta.dir, "lag-probe.ts")] : [];
// --bun-flags A,B: Bun's own flags for Moat's process (another --preload, say)
const bunFlags = arg("bun-flags", "").split(",").filter(Boolean);
const moat = Bun.spawn(
  [process.execPath, ...preload, ...bunFlags, join(ROOT, "src/main.ts"), "serve", "--data-dir", join(dir, "moat")],
  {
    env,
    stdout: "ignore",
    stderr: Bun.file(LOG),
    cwd: ROOT,
  },
);
try {
  await waitAnswer(DNS, mix.probeForwarded, /^192\.0\.2\.1$/m, 60);
  console.log(`gravity: ${await loadMoatLists(HTTP, mix)}`);
  await waitAnswer(DNS, mix.probeBlocked, /^0\.0\.0\.0$/m);
  const out = join(dir, "dnsperf.out");
  await dnsperf(DNS, mix.queryFile, out, ["-l", "2", "-q", "100"]); // warm caches and the heap
  if (FILL > 0)
    await dnsperf(DNS, mix.queryFile, out, [
      "-n",
      String(Math.ceil(FILL / Number(arg("queries", "1000000")))),
      "-q",
      "200",
    ]);
  console.log(`filled; settle ${await settle(moat.pid)} s; RSS ${rssMb(moat.pid).toFixed(0)} MiB`);
  for (const qps of arg("rates", "10000,1000").split(",")) {
    const t0 = threadCpu(moat.pid),
      from = Date.now();
    const r = await dnsperf(DNS, mix.queryFile, out, ["-Q", qps, "-l", SECONDS, "-c", "16", "-q", "500", "-v"]);
    console.log(
      `${qps} QPS: p50 ${pct(r.lat, 0.5).toFixed(3)} p99 ${pct(r.lat, 0.99).toFixed(3)} p99.9 ${pct(r.lat, 0.999).toFixed(3)} ms, answered ${r.answered}, lost ${r.lost}; CPU µs/query by thread: ${threadShare(t0, threadCpu(moat.pid), r.answered)}`,
    );
    if (LOG !== "/dev/null") {
      await Bun.sleep(1100); // the probe's next MARK closes the window
      const rep = tailReport(readFileSync(LOG, "utf8"), from, Date.now() - 1100);
      console.log(`  main heap's collections: ${JSON.stringify(rep.collections)}`);
      console.log(`  main thread's stalls: ${JSON.stringify(rep.stalls)}; worst: ${rep.worst.join("; ")}`);
    }
    await settle(moat.pid);
  }
  const s = (await (await fetch(`http://127.0.0.1:${HTTP}/api/stats/summary`)).json()) as {
    queries: { total: number };
  };
  console.log(`kept ${s.queries.total}; RSS ${rssMb(moat.pid).toFixed(0)} MiB`);
} finally {
  moat.kill();
  await moat.exited;
  await procs.stop();
  rmSync(dir, { recursive: true, force: true });
}
