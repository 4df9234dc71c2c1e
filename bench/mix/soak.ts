// The soak: Moat and unbound side by side at one constant rate each for --minutes, on the mix's
// lists and queries, with Moat's window (webserver.api.maxHistory) short enough to be full early,
// so what a full day looks like in memory is reached within the run. RSS + tmpfs of both are sampled
// every --sample seconds (10); the report gives each server's spread once Moat's window is full (the bar:
// flat within ±10%) and the CPU each used per query.
// Usage: bun bench/mix/soak.ts [--minutes 30] [--qps 2000] [--history 600] [--list 100000]
//   [--queries 300000] [--sample 10] (seconds between samples) [--rows 30] (timeline lines) [--moat-env KEY=VALUE,...]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { makeMix } from "./data.ts";
import { cpuSeconds, dnsperf, rssMb, tmpfsMb } from "./measure.ts";
import {
  loadMoatLists,
  moatBenchEnv,
  Processes,
  unboundCommand,
  upstreamCommand,
  waitAnswer,
  writeUnboundConfig,
} from "./servers.ts";

const ROOT = resolve(import.meta.dir, "../..");
const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const MINUTES = Number(arg("minutes", "30"));
const QPS = Number(arg("qps", "2000"));
const HISTORY = Number(arg("history", "600"));
const SAMPLE_S = Number(arg("sample", "10"));
const UPSTREAM = 25820,
  MOAT = 25821,
  UNBOUND = 25822,
  HTTP = 25830;
const dir = mkdtempSync(join(tmpdir(), "moat-soak-"));

const mix = makeMix(dir, {
  list: Number(arg("list", "100000")),
  queries: Number(arg("queries", "300000")),
  popular: Number(arg("popular", "30000")),
  hostsPool: Number(arg("hosts-pool", "30000")),
  abpPool: Number(arg("abp-pool", "12000")),
});
writeUnboundConfig(join(dir, "unbound.conf"), dir, mix, { port: UNBOUND, upstreamPort: UPSTREAM });
const procs = new Processes(ROOT);
const spawn = (cmd: string[], env?: Record<string, string>) => procs.spawn(cmd, env);
try {
  spawn(upstreamCommand(UPSTREAM));
  await waitAnswer(UPSTREAM, "up.soak.test", /^192\.0\.2\.1$/, 10);
  const moat = spawn([process.execPath, join(ROOT, "src/main.ts"), "serve", "--data-dir", join(dir, "moat")], {
    ...moatBenchEnv({ port: MOAT, upstreamPort: UPSTREAM, httpPort: HTTP }),
    FTLCONF_webserver_api_maxHistory: String(HISTORY),
    ...Object.fromEntries(
      arg("moat-env", "")
        .split(",")
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    ),
  });
  await waitAnswer(MOAT, mix.probeForwarded, /^192\.0\.2\.1$/m, 60);
  console.log(`moat gravity: ${await loadMoatLists(HTTP, mix)}`);
  const unbound = spawn(unboundCommand(join(dir, "unbound.conf")));
  for (const port of [MOAT, UNBOUND]) await waitAnswer(port, mix.probeBlocked, /^0\.0\.0\.0$/m);

  const servers = { moat: moat.pid, unbound: unbound.pid };
  const samples: Array<{ t: number; moat: number; unbound: number; moatTmpfs: number }> = [];
  const cpu0 = { moat: cpuSeconds(moat.pid), unbound: cpuSeconds(unbound.pid) };
  const t0 = performance.now();
  const sample = () => {
    const tmpfs = tmpfsMb(servers.moat);
    samples.push({
      t: (performance.now() - t0) / 1000,
      moat: rssMb(servers.moat) + tmpfs,
      unbound: rssMb(servers.unbound),
      moatTmpfs: tmpfs,
    });
  };
  sample();
  const timer = setInterval(sample, SAMPLE_S * 1000);
  console.log(`soak: ${MINUTES} min at ${QPS} QPS each, Moat's window ${HISTORY} s (webserver.api.maxHistory)`);
  const seconds = String(MINUTES * 60);
  const [m, u] = await Promise.all([
    dnsperf(MOAT, mix.queryFile, join(dir, "moat.out"), ["-l", seconds, "-Q", String(QPS), "-q", "200"]),
    dnsperf(UNBOUND, mix.queryFile, join(dir, "unbound.out"), ["-l", seconds, "-Q", String(QPS), "-q", "200"]),
  ]);
  clearInterval(timer);
  sample();

  const report = (name: "moat" | "unbound", answered: number, lost: number) => {
    // once Moat's window is full (its span plus a minute for the log's prune), memory should stay level
    const steady = samples.filter((s) => s.t >= HISTORY + 60).map((s) => s[name]);
    const mean = steady.reduce((a, b) => a + b, 0) / Math.max(1, steady.length);
    const spread = steady.length ? Math.max(...steady.map((v) => Math.abs(v - mean) / mean)) * 100 : NaN;
    const cpu = cpuSeconds(servers[name]) - cpu0[name];
    console.log(
      `${name.padEnd(8)} answered ${answered} lost ${lost}; RSS${name === "moat" ? "+tmpfs" : ""} once full: mean ${mean.toFixed(0)} MiB, min ${Math.min(...steady).toFixed(0)}, max ${Math.max(...steady).toFixed(0)}, largest deviation ${spread.toFixed(1)}% (${steady.length} samples); CPU ${((cpu / Math.max(1, answered)) * 1e6).toFixed(1)} µs/query`,
    );
    return { mean, cpu: cpu / Math.max(1, answered) };
  };
  const rm = report("moat", m.answered, m.lost);
  const ru = report("unbound", u.answered, u.lost);
  console.log(`moat/unbound: memory ${(rm.mean / ru.mean).toFixed(2)}, CPU per query ${(rm.cpu / ru.cpu).toFixed(2)}`);
  console.log("\n     t   moat RSS+tmpfs (tmpfs)   unbound RSS, MiB");
  const step = Math.max(1, Math.floor(samples.length / Number(arg("rows", "30"))));
  for (const [i, s] of samples.entries())
    if (i % step === 0 || i === samples.length - 1)
      console.log(
        `${s.t.toFixed(0).padStart(6)}s ${s.moat.toFixed(0).padStart(8)} (${s.moatTmpfs.toFixed(0).padStart(3)}) ${s.unbound.toFixed(0).padStart(16)}`,
      );
} finally {
  await procs.stop();
  rmSync(dir, { recursive: true, force: true });
}
