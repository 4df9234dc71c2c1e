// Where a tail comes from, one path at a time, at a fixed rate (dnsperf -Q): answers from the cache
// (1,000 names asked again and again) and answers forwarded (names never asked before, each once),
// for Moat (as shipped, no lists) and unbound, both forwarding to the same loopback upstream, and for
// the floor: a bare Bun UDP server (echo-floor.ts) that shows what the runtime and the machine give
// before any of Moat's work. The servers take turns round by round, so the machine's noise weighs on
// all of them alike; each figure is the median of the rounds. bench/mix/run.ts measures the realistic
// mix, whose tail mixes both paths in the share its cache leaves (Moat keeps Pi-hole's 10,000 answers,
// unbound 48 MiB). Beside each tail, the server's CPU per query in that run: at a fixed rate each query
// is a wake of its own, and the floor's figure is what one wake costs in the runtime and the kernel.
// Usage: bun bench/mix/paths.ts [--qps 10000] [--seconds 6] [--rounds 3] [--ports 25820] [--root DIR]
// (--ports: the first of the five ports it uses; --root: the checkout whose Moat runs, for an A/B in turns)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cpuSeconds, dnsperf, pct } from "./measure.ts";
import { moatBenchEnv, Processes, unboundCommand, upstreamCommand, waitAnswer, writeUnboundConfig } from "./servers.ts";

const ROOT = resolve(import.meta.dir, "../..");
const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const QPS = Number(arg("qps", "10000"));
const SECONDS = Number(arg("seconds", "6"));
const ROUNDS = Number(arg("rounds", "3"));
const BASE = Number(arg("ports", "25820"));
const UPSTREAM = BASE,
  HTTP = BASE + 4;
const PORTS = { moat: BASE + 1, unbound: BASE + 2, floor: BASE + 3 } as const;
type Server = keyof typeof PORTS;
const HITS = 1000;

const dir = mkdtempSync(join(tmpdir(), "moat-paths-"));
const procs = new Processes(ROOT);
const spawn = (cmd: string[], env?: Record<string, string>) => procs.spawn(cmd, env);
const out = join(dir, "dnsperf.out");

/** A query file of `n` names under `prefix` (each line one A query). */
function names(file: string, prefix: string, n: number): string {
  writeFileSync(file, Array.from({ length: n }, (_, i) => `${prefix}${i}.paths.test A\n`).join(""));
  return file;
}

try {
  spawn(upstreamCommand(UPSTREAM));
  await waitAnswer(UPSTREAM, "up.paths.test", /^192\.0\.2\.1$/, 10);
  const unboundConf = join(dir, "unbound.conf");
  writeUnboundConfig(
    unboundConf,
    dir,
    { hostsNames: [], abpNames: [] },
    { port: PORTS.unbound, upstreamPort: UPSTREAM },
  );
  const pids: Record<Server, number> = {
    unbound: spawn(unboundCommand(unboundConf)).pid,
    moat: spawn(
      [process.execPath, join(arg("root", ROOT), "src/main.ts"), "serve", "--data-dir", join(dir, "moat")],
      moatBenchEnv({ port: PORTS.moat, upstreamPort: UPSTREAM, httpPort: HTTP }),
    ).pid,
    floor: spawn([process.execPath, join(import.meta.dir, "echo-floor.ts"), String(PORTS.floor)]).pid,
  };
  for (const port of Object.values(PORTS)) await waitAnswer(port, "probe.paths.test", /^(192\.0\.2\.1)?$/, 60);

  const hits = names(join(dir, "hits.txt"), "hit", HITS);
  const fresh = (s: Server, round: string) => names(join(dir, `fresh-${s}.txt`), `new-${round}-`, QPS * SECONDS * 1.2);
  // warm every path: the cache holds the hit names, the JIT has compiled both paths
  for (const s of Object.keys(PORTS) as Server[]) {
    await dnsperf(PORTS[s], hits, out, ["-l", "3", "-q", "100"]);
    await dnsperf(PORTS[s], fresh(s, "warm"), out, ["-l", "2", "-Q", String(QPS)]);
  }

  const figures: Record<string, number[][]> = {};
  const cpu: Record<string, number[]> = {};
  // one run at the rate: its tail, and the server's CPU µs per answered query
  const measure = async (s: Server, key: string, file: string) => {
    const c0 = cpuSeconds(pids[s]);
    const r = await dnsperf(PORTS[s], file, out, rate);
    (cpu[key] ??= []).push(((cpuSeconds(pids[s]) - c0) / Math.max(1, r.answered)) * 1e6);
    (figures[key] ??= []).push([pct(r.lat, 0.5), pct(r.lat, 0.99), pct(r.lat, 0.999)]);
  };
  const rate = ["-l", String(SECONDS), "-Q", String(QPS), "-q", "500", "-v"];
  for (let r = 0; r < ROUNDS; r++)
    for (const s of Object.keys(PORTS) as Server[]) {
      // the forwarded runs fill Moat's 10,000 answers and push the first names out (oldest first): ask
      // the hit names once again, so the run measures answers from the cache alone
      await dnsperf(PORTS[s], hits, out, ["-n", "1", "-q", "100"]);
      await measure(s, `${s} cache`, hits);
      // the floor answers every name itself: its "forwarded" run is the same path with names it never saw
      await measure(s, `${s} forwarded`, fresh(s, `r${r}`));
    }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `\nlatency by path at ${QPS} QPS, ${SECONDS} s a run, median of ${ROUNDS} rounds (ms): p50 / p99 / p99.9`,
  );
  console.log(
    `${"path".padEnd(20)} ${"moat".padEnd(22)} ${"unbound".padEnd(22)} ${"bun floor".padEnd(22)} moat/unbound p99`,
  );
  for (const path of ["cache", "forwarded"]) {
    const cell = (s: Server) => [0, 1, 2].map((k) => median(figures[`${s} ${path}`]!.map((f) => f[k]!)));
    const [m, u, f] = [cell("moat"), cell("unbound"), cell("floor")];
    const fmt = (x: number[]) => x.map((v) => v.toFixed(3)).join(" / ");
    console.log(
      `${path.padEnd(20)} ${fmt(m).padEnd(22)} ${fmt(u).padEnd(22)} ${fmt(f).padEnd(22)} ${(m[1]! / u[1]!).toFixed(2)}`,
    );
  }
  console.log(`\nCPU µs per query at ${QPS} QPS (median of ${ROUNDS} rounds; the process, every thread)`);
  console.log(
    `${"path".padEnd(20)} ${"moat".padEnd(10)} ${"unbound".padEnd(10)} ${"bun floor".padEnd(10)} moat/unbound`,
  );
  for (const path of ["cache", "forwarded"]) {
    const [m, u, f] = (["moat", "unbound", "floor"] as const).map((s) => median(cpu[`${s} ${path}`]!));
    console.log(
      `${path.padEnd(20)} ${m!.toFixed(1).padEnd(10)} ${u!.toFixed(1).padEnd(10)} ${f!.toFixed(1).padEnd(10)} ${(m! / u!).toFixed(2)}`,
    );
  }
  console.log("\nevery round (p99 ms):");
  for (const [k, v] of Object.entries(figures))
    console.log(`  ${k.padEnd(20)} ${v.map((f) => f[1]!.toFixed(3)).join("  ")}`);
} finally {
  await procs.stop();
  rmSync(dir, { recursive: true, force: true });
}
