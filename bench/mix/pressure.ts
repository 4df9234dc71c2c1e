// A small board under pressure: Moat in a memory cgroup (v1, --mem MiB, default 256) with the realistic
// mix's lists (--list entries through the API) and --qps of names never asked before for --seconds, the
// load that once took it past its cgroup's limit. Every second: alive or not, RSS, the cgroup's usage and
// its failcnt. Then Moat is killed (-9) and started again in the same cgroup: the time from the start to
// its first DNS answer, while the last 24 h load behind it. Needs root (the cgroup) and dnsperf, dnsmasq.
// Usage: bun bench/mix/pressure.ts [--mem 256] [--list 1000000] [--qps 20000] [--seconds 60] [--moat-log PREFIX]
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { makeMix } from "./data.ts";
import { dnsperf, rssMb } from "./measure.ts";
import { loadMoatLists, upstreamCommand, waitAnswer } from "./servers.ts";

const ROOT = resolve(import.meta.dir, "../..");
const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const MEM = Number(arg("mem", "256"));
const QPS = Number(arg("qps", "20000"));
const SECONDS = Number(arg("seconds", "60"));
/** --moat-log PREFIX: each start's output into PREFIX.N.out and PREFIX.N.err (the restart is N = 2) */
const MOAT_LOG = arg("moat-log", "");
let moatStarts = 0;
const UPSTREAM = 25840,
  DNS = 25841,
  HTTP = 25850;

const base = "/sys/fs/cgroup/memory";
if (!existsSync(base)) throw new Error("no cgroup v1 memory controller at /sys/fs/cgroup/memory");
const cg = join(base, `moat-pressure-${process.pid}`);
mkdirSync(cg);
writeFileSync(join(cg, "memory.limit_in_bytes"), String(MEM * 1048576));
const cgRead = (f: string) => Number(readFileSync(join(cg, f), "utf8").trim());

const dir = mkdtempSync(join(tmpdir(), "moat-pressure-"));
const procs: Subprocess[] = [];
const mix = makeMix(dir, {
  list: Number(arg("list", "1000000")),
  queries: 1000,
  popular: 100,
  hostsPool: 1000,
  abpPool: 1000,
});
// names never asked before, one per query
const distinct = join(dir, "distinct.txt");
writeFileSync(
  distinct,
  `${Array.from({ length: QPS * SECONDS }, (_, i) => `n${i}-${(i * 2654435761) >>> 0}.distinct.test A`).join("\n")}\n`,
);

function startMoat(): Subprocess {
  const env = {
    ...process.env,
    FTLCONF_dns_port: String(DNS),
    FTLCONF_dns_upstreams: `127.0.0.1#${UPSTREAM}`,
    FTLCONF_webserver_port: `127.0.0.1:${HTTP}`,
    FTLCONF_dns_rateLimit_count: "0",
    FTLCONF_gravity_maxListSize: "1024",
  };
  const cmd = [process.execPath, join(ROOT, "src/main.ts"), "serve", "--data-dir", join(dir, "moat")];
  const p = Bun.spawn(["sh", "-c", `echo $$ > ${cg}/cgroup.procs && exec "$@"`, "sh", ...cmd], {
    env,
    stdout: MOAT_LOG ? Bun.file(`${MOAT_LOG}.${++moatStarts}.out`) : "ignore",
    stderr: MOAT_LOG ? Bun.file(`${MOAT_LOG}.${moatStarts}.err`) : "ignore",
  });
  procs.push(p);
  return p;
}

const alive = (p: Subprocess) => p.exitCode === null && p.signalCode === null;

try {
  procs.push(Bun.spawn(upstreamCommand(UPSTREAM), { stdout: "ignore", stderr: "ignore" }));
  await waitAnswer(UPSTREAM, "up.bench.test", /^192\.0\.2\.1$/, 10);
  let moat = startMoat();
  await waitAnswer(DNS, mix.probeForwarded, /^192\.0\.2\.1$/m, 60);
  console.log(`moat gravity: ${await loadMoatLists(HTTP, mix)}`);
  await waitAnswer(DNS, mix.probeBlocked, /^0\.0\.0\.0$/m, 120);
  console.log(
    `loaded in a ${MEM} MiB cgroup: RSS ${rssMb(moat.pid).toFixed(0)} MiB, cgroup ${(cgRead("memory.usage_in_bytes") / 1048576).toFixed(0)} MiB`,
  );
  const flood = dnsperf(DNS, distinct, join(dir, "perf.out"), ["-Q", String(QPS), "-l", String(SECONDS), "-q", "500"]);
  let done = false;
  void flood.then(() => (done = true));
  let maxRss = 0;
  for (let t = 1; !done; t++) {
    await Bun.sleep(1000);
    const rss = alive(moat) ? rssMb(moat.pid) : 0;
    maxRss = Math.max(maxRss, rss);
    if (t % 5 === 0 || !alive(moat))
      console.log(
        `${String(t).padStart(4)} s  ${alive(moat) ? "alive" : "DEAD "}  RSS ${rss.toFixed(0).padStart(4)} MiB  cgroup ${(cgRead("memory.usage_in_bytes") / 1048576).toFixed(0).padStart(4)} MiB  failcnt ${cgRead("memory.failcnt")}`,
      );
    if (!alive(moat)) break;
  }
  const f = await flood;
  const summary = (await fetch(`http://127.0.0.1:${HTTP}/api/stats/summary`).then(
    (r) => r.json(),
    () => null,
  )) as { queries: { total: number } } | null;
  console.log(
    `flood: ${f.answered} of ${f.sent} answered, ${f.lost} lost; Moat ${alive(moat) ? "alive" : "killed"}, RSS at most ${maxRss.toFixed(0)} MiB of ${MEM}; cgroup peak ${(cgRead("memory.max_usage_in_bytes") / 1048576).toFixed(0)} MiB; queries kept in memory ${summary?.queries.total ?? "?"}`,
  );
  // the restart in the same cgroup: DNS first, the last 24 h behind it
  moat.kill(9);
  await moat.exited;
  const t0 = performance.now();
  moat = startMoat();
  await waitAnswer(DNS, mix.probeBlocked, /^0\.0\.0\.0$/m, 300);
  const first = (performance.now() - t0) / 1000;
  // the history loads behind DNS: what the statistics count a few seconds on
  await Bun.sleep(5000);
  const later = (await fetch(`http://127.0.0.1:${HTTP}/api/stats/summary`).then(
    (r) => r.json(),
    () => null,
  )) as { queries: { total: number } } | null;
  console.log(
    `restart in the same cgroup: first DNS answer after ${first.toFixed(2)} s; 5 s later ${later?.queries.total ?? "?"} queries counted, RSS ${alive(moat) ? rssMb(moat.pid).toFixed(0) : "-"} MiB, ${alive(moat) ? "alive" : "DEAD"}`,
  );
} finally {
  for (const p of procs) p.kill(9);
  await Promise.all(procs.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
  try {
    rmdirSync(cg);
  } catch {
    // a process still dying in it: the kernel removes nothing until it is gone
  }
}
