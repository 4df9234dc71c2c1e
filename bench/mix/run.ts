// The realistic-mix benchmark: Moat beside unbound and dnsmasq in one run, the same lists and the same
// loopback upstream (dnsmasq answering every name). Moat loads the lists through its API
// (POST /api/lists + POST /api/action/gravity); the peers get them as local zones / hosts files.
// Per server: load time and RSS, throughput (dnsperf -q 200) with CPU per answered query (and Moat's API
// latency meanwhile: api_p99_ms_flood, the dashboard's reads while DNS is saturated), latency
// at a fixed rate (dnsperf -Q), then a fill run of --fill queries for the memory each kept query
// costs (RSS + the tmpfs query log, against the loaded server), then the latency again at --qps and
// at 1k QPS with the fill kept in the window (p99_full_ms, p99_full_1k_ms: the tail a full day gives).
// Each fixed-rate run starts once the server is quiet again (settle_s, settle_full_s: the seconds the
// work the run before left took). RSS + tmpfs is sampled every second.
// The caches differ by default: unbound gets 16m of messages and 32m of RRsets, Moat keeps Pi-hole's
// default of 10000 answers, fewer than the mix's 100k popular names, so Moat forwards more often;
// --moat-env FTLCONF_dns_cache_size=100000 gives it room alike.
// Usage: bun bench/mix/run.ts [--list 1000000] [--queries 1000000] [--popular 100000]
//   [--hosts-pool 150000] [--abp-pool 60000] [--seconds 8] [--qps 10000] [--fill 1000000]
//   [--only moat,unbound,dnsmasq] (moat-family: Moat with five groups, ten blocked services and an open schedule) [--threads 1,2 (Moat's dns.threads and unbound's num-threads: one run
//   per count, dnsperf with --clients source ports (default 16 then) so the kernel spreads them)] [--moat-env KEY=VALUE,...] [--moat-bun-flags --cpu-prof-md,--cpu-prof-dir=DIR] [--moat-log FILE] [--pi] (servers pinned to core 0, dnsperf to core 1, and Moat in a
//   memory cgroup of --mem 512 MiB when /sys/fs/cgroup/memory is writable)
// Quick run: bun bench/mix/run.ts --list 100000 --queries 200000 --popular 20000 --fill 200000 --seconds 4
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { makeMix } from "./data.ts";
import { cpuSeconds, dnsperf, MemorySampler, pct, rssMb, settle, threadCpu, threadShare } from "./measure.ts";
import {
  dnsmasqCommand,
  loadMoatLists,
  moatBenchEnv,
  unboundCommand,
  upstreamCommand,
  waitAnswer,
  writeDnsmasqLists,
  writeUnboundConfig,
} from "./servers.ts";

const ROOT = resolve(import.meta.dir, "../..");
const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const flag = (n: string) => process.argv.includes(`--${n}`);
const SECONDS = Number(arg("seconds", "8"));
const QPS = Number(arg("qps", "10000"));
const FILL = Number(arg("fill", "1000000"));
const SERVERS = arg("only", "moat,unbound,dnsmasq").split(",");
const THREADS = arg("threads", "1").split(",").map(Number);
const MULTI = THREADS.some((t) => t > 1);
/** dnsperf's -c: one socket (source port) per client; SO_REUSEPORT spreads clients by address and port */
const CLIENTS = arg("clients", MULTI ? "16" : "1");
/** server variants: "moat" or, with --threads, "moat×2"; dnsmasq has one thread */
const ONLY = SERVERS.flatMap((s) =>
  (THREADS.length === 1 && !MULTI) || s === "dnsmasq" ? [s] : THREADS.map((t) => `${s}×${t}`),
);
const serverOf = (v: string) => v.split("×")[0]!;
const threadsOf = (v: string) => Number(v.split("×")[1] ?? "1");
const PI = flag("pi");
/** --moat-log FILE: Moat's standard error into FILE (with --moat-env BUN_JSC_logGC=1, every collection and its pause: gclog.ts sums it up) */
const MOAT_LOG = arg("moat-log", "") || undefined;
const MEM_MB = Number(arg("mem", "512"));
const dir = mkdtempSync(join(tmpdir(), "moat-mix-"));
const UPSTREAM = 25800,
  HTTP = 25810;
const PORTS: Record<string, number> = { moat: 25801, dnsmasq: 25802, unbound: 25803 };
const UNBOUND_CONTROL = 25804;
const SERVER_CPU = PI ? "0" : undefined,
  PERF_CPU = PI ? "1" : undefined;

console.log(`generating the mix in ${dir}`);
const mix = makeMix(dir, {
  list: Number(arg("list", "1000000")),
  queries: Number(arg("queries", "1000000")),
  popular: Number(arg("popular", "100000")),
  hostsPool: Number(arg("hosts-pool", "150000")),
  abpPool: Number(arg("abp-pool", "60000")),
});
console.log(
  `${mix.hostsNames.length} hosts + ${mix.abpNames.length} ABP entries; query file: ${arg("queries", "1000000")} lines, ${mix.distinct} distinct names`,
);

const unboundConf = (threads: number) => join(dir, `unbound-${threads}.conf`);
for (const t of THREADS)
  writeUnboundConfig(unboundConf(t), dir, mix, {
    port: PORTS.unbound!,
    upstreamPort: UPSTREAM,
    threads: t,
    controlPort: UNBOUND_CONTROL,
  });
writeDnsmasqLists(dir, mix);

// --- processes -------------------------------------------------------------------------------------
const procs: Subprocess[] = [];
function spawn(cmd: string[], env: Record<string, string> = {}, cpu = SERVER_CPU, log?: string): Subprocess {
  const p = Bun.spawn(cpu ? ["taskset", "-c", cpu, ...cmd] : cmd, {
    env: { ...(process.env as Record<string, string>), ...env },
    stdout: "ignore",
    stderr: log ? Bun.file(log) : "pipe",
    cwd: ROOT,
  });
  procs.push(p);
  return p;
}
/** A memory cgroup (v1) of MEM_MB for Moat in the Pi-sized run; tmpfs pages it writes are charged to it. */
function memoryCgroup(): string | null {
  const base = "/sys/fs/cgroup/memory";
  if (!PI || !existsSync(base)) return null;
  const cg = join(base, `moat-mix-${process.pid}`);
  try {
    mkdirSync(cg);
    writeFileSync(join(cg, "memory.limit_in_bytes"), String(MEM_MB * 1048576));
    return cg;
  } catch (e) {
    console.log(`no memory cgroup (${(e as Error).message}); the Pi-sized run is pinned only`);
    return null;
  }
}

async function startMoat(threads: number, family = false): Promise<Subprocess> {
  const data = join(dir, `moat-${threads}${family ? "-family" : ""}`);
  const env = {
    ...moatBenchEnv({ port: PORTS.moat!, upstreamPort: UPSTREAM, httpPort: HTTP }),
    FTLCONF_gravity_maxListSize: "1024",
    FTLCONF_webserver_api_metricsToken: "bench",
    FTLCONF_dns_threads: String(threads),
    // --moat-env KEY=VALUE,KEY=VALUE: settings to compare (e.g. FTLCONF_dns_queryLogging=false)
    ...Object.fromEntries(
      arg("moat-env", "")
        .split(",")
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    ),
  };
  const cg = memoryCgroup();
  // --moat-bun-flags: Bun's own flags for Moat's process, e.g. a CPU profile of the DNS thread written at exit
  const bunFlags = arg("moat-bun-flags", "").split(",").filter(Boolean);
  const cmd = [process.execPath, ...bunFlags, join(ROOT, "src/main.ts"), "serve", "--data-dir", data];
  const p = cg
    ? spawn(
        [
          "sh",
          "-c",
          `echo $$ > ${cg}/cgroup.procs && exec "$@"`,
          "sh",
          ...(SERVER_CPU ? ["taskset", "-c", SERVER_CPU] : []),
          ...cmd,
        ],
        env,
        undefined,
        MOAT_LOG,
      )
    : spawn(cmd, env, SERVER_CPU, MOAT_LOG);
  if (cg) cgroupDir = cg;
  await waitAnswer(PORTS.moat!, mix.probeForwarded, /^192\.0\.2\.1$/m, 60);
  console.log(`moat gravity: ${await loadMoatLists(HTTP, mix)}`);
  if (family) {
    await familySetup();
    // each change rebuilt the snapshot in the filter worker: measure once that is done, not during it
    await settle(p.pid);
  }
  return p;
}

let cgroupDir: string | null = null;

/** "moat-family": Moat with the family controls of the issue's bar (five groups, ten blocked services, an open schedule) on every client. */
const isMoat = (server: string) => server === "moat" || server === "moat-family";

async function familySetup(): Promise<void> {
  const api = async (method: string, path: string, body: unknown) => {
    const r = await fetch(`http://127.0.0.1:${HTTP}/api${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  };
  const services = [
    "youtube",
    "tiktok",
    "instagram",
    "facebook",
    "snapchat",
    "twitter",
    "reddit",
    "discord",
    "netflix",
    "roblox",
  ];
  for (let i = 1; i <= 4; i++) {
    await api("POST", "/groups", { name: `family${i}` });
    await api("PUT", `/services/groups/family${i}`, { services: services.slice(0, 2 * i) });
  }
  // the Default group holds every client: its services and its open schedule are on every query's path
  await api("PUT", "/services/groups/Default", { services });
  await api("PUT", "/schedules/groups/Default", {
    windows: [{ days: [0, 1, 2, 3, 4, 5, 6], start: "00:00", end: "24:00" }],
    services: ["twitch", "fortnite"],
    everything: false,
  });
}

/** Queries answered so far by each DNS thread: Moat's /metrics, unbound-control's per-thread stats. */
async function threadAnswers(server: string, threads: number): Promise<number[]> {
  if (isMoat(server)) {
    const m = await (
      await fetch(`http://127.0.0.1:${HTTP}/metrics`, { headers: { authorization: "Bearer bench" } })
    ).text();
    return [...m.matchAll(/^moat_dns_thread_answers_total\{thread="(\d+)"\} (\d+)$/gm)].map((x) => Number(x[2]));
  }
  if (server !== "unbound") return [];
  const p = Bun.spawn(["unbound-control", "-c", unboundConf(threads), "stats_noreset"], {
    stdout: "pipe",
    stderr: "ignore",
  });
  const text = await new Response(p.stdout).text();
  await p.exited;
  return [...text.matchAll(/^thread(\d+)\.num\.queries=(\d+)$/gm)].map((x) => Number(x[2]));
}

/**
 * The peers run at the priority Moat gives its DNS thread (misc.nice, -10 unless --moat-env sets it;
 * `nice` adds it to the bench's own, 0 as usual): both get a core before dnsperf alike. `nice` execs the
 * server, so its pid is the server's.
 */
const moatNice = Number(/(?:^|,)FTLCONF_misc_nice=(-?\d+)/.exec(arg("moat-env", ""))?.[1] ?? "-10");
const peerNice = moatNice === -999 ? [] : ["nice", "-n", String(moatNice)];

// --- run -------------------------------------------------------------------------------------------
spawn(upstreamCommand(UPSTREAM), {}, PERF_CPU);
await waitAnswer(UPSTREAM, "up.bench.test", /^192\.0\.2\.1$/, 10);

type Row = Record<string, number>;
const results: Record<string, Row> = {};
const timelines: Record<string, string> = {};
/** CPU µs per query by thread during the fixed-rate run */
const threadReport: Record<string, string> = {};
/** answers per second of each DNS thread, and CPU µs per query by thread, in the throughput run */
const rateReport: Record<string, string> = {};
const out = join(dir, "dnsperf.out");

/** Requests the dashboard makes (summary, the query log's first page) in a loop until stopped: their latencies, sorted. */
function apiProbe(): { stop: () => Promise<number[]> } {
  let running = true;
  const lat: number[] = [];
  const paths = ["/api/stats/summary", "/api/queries?length=100", "/api/stats/top_domains"];
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const t0 = performance.now();
      const r = await fetch(`http://127.0.0.1:${HTTP}${paths[i % paths.length]}`);
      await r.arrayBuffer();
      lat.push(performance.now() - t0);
      await Bun.sleep(20);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return lat.sort((a, b) => a - b);
    },
  };
}
for (const variant of ONLY) {
  const server = serverOf(variant),
    threads = threadsOf(variant);
  const port = PORTS[isMoat(server) ? "moat" : server]!;
  const t0 = performance.now();
  let p: Subprocess;
  if (isMoat(server)) p = await startMoat(threads, server === "moat-family");
  else if (server === "dnsmasq") p = spawn([...peerNice, ...dnsmasqCommand(dir, port, UPSTREAM)]);
  else p = spawn([...peerNice, ...unboundCommand(unboundConf(threads))]);
  // the server's own pid (Moat in a cgroup runs under sh → taskset → exec)
  const pid = p.pid;
  const row: Row = {};
  await waitAnswer(port, mix.probeBlocked, /^0\.0\.0\.0$/m);
  row.load_s = +((performance.now() - t0) / 1000).toFixed(1);
  await Bun.sleep(1000);
  const mem = new MemorySampler(pid);
  const loaded = mem.take();
  const cpuLoaded = cpuSeconds(pid);
  mem.mark("loaded");
  row.rss_loaded_mib = +loaded.rss.toFixed(1);
  const warm = (await dnsperf(port, mix.queryFile, out, ["-l", "2", "-q", "100"], PERF_CPU)).sent; // warm caches and the heap
  mem.mark("throughput");
  let c0 = cpuSeconds(pid);
  const perThread0 = await threadAnswers(server, threads),
    thrThreads0 = threadCpu(pid);
  // the API while DNS is saturated: the dashboard's summary and query-log reads, one after another
  const api = isMoat(server) ? apiProbe() : null;
  const thr = await dnsperf(port, mix.queryFile, out, ["-l", String(SECONDS), "-q", "200", "-c", CLIENTS], PERF_CPU);
  if (api) {
    const lat = await api.stop();
    row.api_p50_ms_flood = +pct(lat, 0.5).toFixed(1);
    row.api_p99_ms_flood = +pct(lat, 0.99).toFixed(1);
  }
  row.qps = Math.round(thr.qps);
  row.cpu_us_per_q = +(((cpuSeconds(pid) - c0) / Math.max(1, thr.answered)) * 1e6).toFixed(1);
  const perThread = (await threadAnswers(server, threads)).map((n, i) =>
    Math.round((n - (perThread0[i] ?? 0)) / SECONDS),
  );
  if (perThread.length)
    rateReport[variant] =
      `answers/s by DNS thread ${perThread.join(" + ")}; CPU µs/query by thread: ${threadShare(thrThreads0, threadCpu(pid), thr.answered)}`;
  row.settle_s = await settle(pid);
  mem.mark("latency");
  c0 = cpuSeconds(pid);
  const t0Threads = threadCpu(pid);
  const lat = await dnsperf(
    port,
    mix.queryFile,
    out,
    ["-l", String(SECONDS), "-Q", String(QPS), "-q", "500", "-c", CLIENTS, "-v"],
    PERF_CPU,
  );
  row.cpu_us_per_q_at_rate = +(((cpuSeconds(pid) - c0) / Math.max(1, lat.answered)) * 1e6).toFixed(1);
  threadReport[variant] = threadShare(t0Threads, threadCpu(pid), lat.answered);
  row.p50_ms = +pct(lat.lat, 0.5).toFixed(3);
  row.p99_ms = +pct(lat.lat, 0.99).toFixed(3);
  row.p999_ms = +pct(lat.lat, 0.999).toFixed(3);
  row.lost_at_rate = lat.lost;
  let sent = warm + thr.sent + lat.sent;
  if (FILL > 0) {
    mem.mark("fill");
    // the peers keep no query log: a bounded fill shows their RSS is flat (dnsmasq needs minutes for 1M)
    const f = await dnsperf(
      port,
      mix.queryFile,
      out,
      ["-n", "1", "-q", "200", "-c", CLIENTS, ...(isMoat(server) ? [] : ["-l", String(SECONDS * 2)])],
      PERF_CPU,
    );
    sent += f.sent;
  }
  row.settle_full_s = await settle(pid); // the query writer stores the fill
  if (FILL > 0) {
    // the tail again with the fill in the window: what a busy home's evening looks like (the first
    // latency run had only the warm-up and the throughput run's queries kept), at --qps and at a
    // quiet home's 1k QPS
    for (const [key, qps] of [
      ["full", QPS],
      ["full_1k", 1000],
    ] as const) {
      mem.mark(`latency ${key}`);
      const l = await dnsperf(
        port,
        mix.queryFile,
        out,
        ["-l", String(SECONDS), "-Q", String(qps), "-q", "500", "-c", CLIENTS, "-v"],
        PERF_CPU,
      );
      row[`p99_${key}_ms`] = +pct(l.lat, 0.99).toFixed(3);
      row[`p999_${key}_ms`] = +pct(l.lat, 0.999).toFixed(3);
      sent += l.sent;
    }
  }
  mem.mark("end");
  const end = mem.take();
  mem.stop();
  row.rss_end_mib = +end.rss.toFixed(1);
  // every thread's CPU from loaded to the end over every query: a thread at idle priority (Moat's
  // query writer) falls behind in the throughput run and catches up later, so per-run figures move
  // its work around; this one does not
  row.cpu_us_per_q_all_runs = +(((cpuSeconds(pid) - cpuLoaded) / Math.max(1, sent)) * 1e6).toFixed(1);
  row.tmpfs_end_mib = +end.tmpfs.toFixed(1);
  if (isMoat(server)) {
    const s = (await (await fetch(`http://127.0.0.1:${HTTP}/api/stats/summary`)).json()) as {
      queries: { total: number };
    };
    row.queries_kept = s.queries.total;
    row.bytes_per_query = Math.round(
      ((end.rss + end.tmpfs - loaded.rss - loaded.tmpfs) * 1048576) / Math.max(1, s.queries.total),
    );
    // queries the 24 h log lost: dropped (the idle-priority writer fell behind) or shed (memory budget)
    const metrics = await (
      await fetch(`http://127.0.0.1:${HTTP}/metrics`, { headers: { authorization: "Bearer bench" } })
    ).text();
    row.log_dropped = Number(/^moat_querylog_dropped_total (\d+)/m.exec(metrics)?.[1] ?? NaN);
    row.log_shed = Number(/^moat_querylog_shed_total (\d+)/m.exec(metrics)?.[1] ?? NaN);
    const info = (await (await fetch(`http://127.0.0.1:${HTTP}/api/info/messages`)).json()) as {
      messages: Array<{ type: string; plain: string }>;
    };
    for (const m of info.messages) console.log(`moat message: ${m.type}: ${m.plain}`);
  } else row.queries_kept = sent;
  if (cgroupDir && isMoat(server)) {
    const read = async (f: string) => Number((await Bun.file(join(cgroupDir!, f)).text()).trim());
    row.cgroup_peak_mib = +((await read("memory.max_usage_in_bytes")) / 1048576).toFixed(1);
    row.cgroup_limit_hits = await read("memory.failcnt");
  }
  row.alive = rssMb(pid) > 0 ? 1 : 0;
  timelines[variant] = mem.summary();
  results[variant] = row;
  p.kill();
  await p.exited;
  console.log(variant, JSON.stringify(row));
}

// --- report ----------------------------------------------------------------------------------------
const keys = Object.keys(results[ONLY[0]!] ?? {});
console.log(
  `\nmix: ${arg("list", "1000000")} list entries, ${SECONDS}s per run, latency at ${QPS} QPS${PI ? `, Pi-sized (server on core 0, ${MEM_MB} MiB cgroup for Moat)` : ""}`,
);
const peers = ONLY.filter((s) => !isMoat(serverOf(s)));
// each Moat variant beside the peers; with several thread counts, each against the peer with as many threads
const base = ONLY.find((s) => serverOf(s) === "moat") ?? "moat";
console.log(["metric", ...ONLY, ...peers.map((s) => `moat/${s}`)].map((s) => s.padEnd(20)).join(""));
for (const k of keys) {
  const m = results[base]?.[k] ?? NaN;
  const ratios = peers.map((s) => (m / (results[s]?.[k] ?? NaN)).toFixed(2));
  console.log([k, ...ONLY.map((s) => String(results[s]?.[k] ?? "")), ...ratios].map((s) => s.padEnd(20)).join(""));
}
if (MULTI) {
  // all runs: the idle-priority query writer catches up on one run's backlog in the next, so per-run figures move its work around
  console.log(
    `\nby thread count (dnsperf -c ${CLIENTS}; CPU µs per query; ratios against unbound with as many threads):`,
  );
  const cols = ["qps", "cpu_us_per_q", "cpu_us_per_q_at_rate", "cpu_us_per_q_all_runs"];
  console.log(["variant", ...cols, "moat/unbound all runs"].map((s) => s.padEnd(24)).join(""));
  for (const v of ONLY) {
    const peer = results[`unbound×${threadsOf(v)}`];
    const ratio =
      isMoat(serverOf(v)) && peer ? (results[v]!.cpu_us_per_q_all_runs! / peer.cpu_us_per_q_all_runs!).toFixed(2) : "";
    console.log([v, ...cols.map((c) => results[v]?.[c]), ratio].map((s) => String(s ?? "").padEnd(24)).join(""));
  }
}
for (const t of THREADS) {
  const [plain, family] = [`moat${MULTI ? `×${t}` : ""}`, `moat-family${MULTI ? `×${t}` : ""}`].map((v) => results[v]);
  if (!plain || !family) continue;
  const pctMore = (k: string) => `${(((family[k]! - plain[k]!) / plain[k]!) * 100).toFixed(1)}%`;
  console.log(
    `family controls (5 groups, 10 blocked services, an open schedule)${MULTI ? ` at ${t} threads` : ""}: CPU per query ${pctMore("cpu_us_per_q")} (throughput), ${pctMore("cpu_us_per_q_all_runs")} (all runs), ${pctMore("cpu_us_per_q_at_rate")} (at ${QPS} QPS)`,
  );
}
for (const [s, t] of Object.entries(rateReport)) console.log(`${s}: ${t}`);
for (const [s, t] of Object.entries(threadReport)) console.log(`${s}: CPU µs per query by thread at ${QPS} QPS: ${t}`);
for (const [s, t] of Object.entries(timelines)) console.log(`\n${s}: RSS and tmpfs over time\n${t}`);

for (const p of procs) p.kill();
await Promise.all(procs.map((p) => p.exited));
if (cgroupDir) {
  try {
    rmdirSync(cgroupDir);
  } catch {
    // a process still in it: the kernel frees it once that one ends
  }
}
rmSync(dir, { recursive: true, force: true });
process.exit(0);
