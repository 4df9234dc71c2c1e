// DNS benchmark: Moat vs dnsmasq vs unbound with the same generated block list and the same loopback
// upstream (dnsmasq answering everything with TTL 3600), driven by dnsperf. Loopback only; every run
// is bounded in time. Usage: bun bench/dns/run.ts [--names 1000000] [--seconds 5] [--only moat,dnsmasq,unbound]
// [--querylog on|off] (off measures the DNS engine without the statistics writer)
// [--sizes 100000,3000000|none] (Moat alone: start-up to first answer, snapshot build and RSS per list size)
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { openGravityDb } from "../../src/db/index.ts";

const ROOT = resolve(import.meta.dir, "../..");
const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const NAMES = Number(arg("names", "1000000"));
const SECONDS = Number(arg("seconds", "5"));
const ONLY = arg("only", "moat,dnsmasq,unbound").split(",");
const dir = mkdtempSync(join(tmpdir(), "moat-bench-"));
const UPSTREAM = 25700,
  PORTS = { moat: 25701, dnsmasq: 25702, unbound: 25703 } as Record<string, number>;

// --- data --------------------------------------------------------------------------------------
let rnd = 42;
const rand = () => (rnd = (Math.imul(rnd, 1103515245) + 12345) >>> 0) / 4294967296;
const word = (min: number, max: number) => {
  const n = min + Math.floor(rand() * (max - min + 1));
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(rand() * 26));
  return s;
};
const TLDS = ["com", "net", "org", "io", "de", "info", "co.uk", "xyz"];
console.log(`generating ${NAMES} names in ${dir}`);
const names: string[] = [];
const seen = new Set<string>();
while (names.length < NAMES) {
  const n = `${rand() < 0.4 ? `${word(2, 8)}.` : ""}${word(4, 14)}.${TLDS[Math.floor(rand() * TLDS.length)]}`;
  if (!seen.has(n)) {
    seen.add(n);
    names.push(n);
  }
}
seen.clear();
const moatDir = join(dir, "moat");
function gravityWith(dataDir: string, list: readonly string[]): void {
  const db = openGravityDb(dataDir, true);
  db.run("INSERT INTO adlist(id, address, enabled, type) VALUES (1, 'bench', 1, 0)");
  const ins = db.prepare("INSERT INTO gravity(domain, adlist_id) VALUES (?, 1)");
  db.transaction(() => {
    for (const n of list) ins.run(n);
  })();
  db.close();
}
gravityWith(moatDir, names);
writeFileSync(join(dir, "hosts.block"), `${names.map((n) => `0.0.0.0 ${n}`).join("\n")}\n`);
writeFileSync(
  join(dir, "unbound.conf"),
  `server:\n  interface: 127.0.0.1\n  port: ${PORTS.unbound}\n  do-ip6: no\n  num-threads: 1\n  chroot: ""\n  username: ""\n  directory: "${dir}"\n  pidfile: ""\n  use-syslog: no\n  logfile: ""\n  do-not-query-localhost: no\n  msg-cache-size: 16m\n  rrset-cache-size: 32m\n  local-zone: "test." nodefault\n  include: "${dir}/unbound.zones"\nforward-zone:\n  name: "."\n  forward-addr: 127.0.0.1@${UPSTREAM}\n`,
);
writeFileSync(join(dir, "unbound.zones"), names.map((n) => `  local-zone: "${n}." always_null\n`).join(""));
const pick = (k: number) => Array.from({ length: k }, () => names[Math.floor(rand() * names.length)]!);
const files = {
  blocked: pick(100000).map((n) => `${n} A`),
  cached: Array.from({ length: 1000 }, (_, i) => `cached-${i}.bench.test A`),
  mix: [] as string[],
  unique: Array.from({ length: 2000000 }, (_, i) => `u${i}-${word(3, 6)}.bench.test A`),
};
files.mix = files.blocked.slice(0, 50000).flatMap((b, i) => [b, files.cached[i % 1000]!]);
for (const [k, v] of Object.entries(files)) writeFileSync(join(dir, `${k}.txt`), `${v.join("\n")}\n`);

// --- processes -----------------------------------------------------------------------------------
const procs: Subprocess[] = [];
function spawn(cmd: string[], env: Record<string, string> = {}): Subprocess {
  const p = Bun.spawn(cmd, {
    env: { ...(process.env as Record<string, string>), ...env },
    stdout: "ignore",
    stderr: "pipe",
    cwd: ROOT,
  });
  procs.push(p);
  return p;
}
async function dig(port: number, name: string): Promise<boolean> {
  const p = Bun.spawn(["dig", "@127.0.0.1", "-p", String(port), name, "+time=1", "+tries=1", "+short"], {
    stdout: "pipe",
    stderr: "ignore",
  });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return /^\d+\.\d+\.\d+\.\d+$/m.test(out.trim()); // an address, not dig's error text
}
async function waitAnswer(port: number, name: string, timeoutS = 300): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutS * 1000) {
    if (await dig(port, name)) return (performance.now() - t0) / 1000;
    await Bun.sleep(100);
  }
  throw new Error(`no answer on ${port} within ${timeoutS}s`);
}
const statusKb = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
const rssMb = (pid: number) => statusKb(pid, "VmRSS") / 1024;
/** anonymous memory only: VmRSS also counts the pages of the executable a code path has touched */
const anonMb = (pid: number) => statusKb(pid, "RssAnon") / 1024;
const cpuTicks = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(f[11]) + Number(f[12]);
};

async function dnsperf(
  port: number,
  file: string,
  extra: string[],
): Promise<{ qps: number; completed: number; lat: number[] }> {
  const verbose = extra.includes("-v");
  // into a file, not a pipe: reading 50k verbose lines while they come would compete with the
  // server for the CPU during the latency runs
  const outFile = join(dir, "dnsperf.out");
  const p = Bun.spawn(
    [
      "dnsperf",
      "-s",
      "127.0.0.1",
      "-p",
      String(port),
      "-d",
      join(dir, file),
      "-l",
      String(SECONDS),
      "-t",
      "2",
      ...extra,
    ],
    { stdout: Bun.file(outFile), stderr: "ignore" },
  );
  await p.exited;
  const out = readFileSync(outFile, "utf8");
  const qps = Number(/Queries per second:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  // only NOERROR answers count: a server still loading or refusing does not score
  const completed = Number(/NOERROR (\d+)/.exec(out)?.[1] ?? 0);
  const lat = verbose
    ? [...out.matchAll(/^> \S+ \S+ \S+ ([\d.]+)$/gm)].map((m) => Number(m[1]) * 1000).sort((a, b) => a - b)
    : [];
  const sent = Number(/Queries completed:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { qps: sent ? (qps * completed) / sent : 0, completed, lat };
}
const pct = (a: number[], p: number) => (a.length ? a[Math.min(a.length - 1, Math.floor(a.length * p))]! : NaN);

// --- run -------------------------------------------------------------------------------------------
spawn([
  "dnsmasq",
  "-k",
  "-C",
  "/dev/null",
  "--no-resolv",
  "--no-hosts",
  "-p",
  String(UPSTREAM),
  "--listen-address=127.0.0.1",
  "--bind-interfaces",
  "--address=/#/192.0.2.1",
  "--local-ttl=3600",
  "-c",
  "0",
  "--dns-forward-max=10000",
  ...(process.getuid?.() === 0 ? ["--user=root"] : []),
]);
await waitAnswer(UPSTREAM, "up.bench.test", 10);

type Row = Record<string, number>;
const results: Record<string, Row> = {};
for (const server of ONLY) {
  const port = PORTS[server]!;
  const t0 = performance.now();
  let p: Subprocess;
  if (server === "moat") {
    p = spawn([process.execPath, join(ROOT, "src/main.ts"), "serve", "--data-dir", moatDir], {
      FTLCONF_dns_port: String(port),
      FTLCONF_dns_upstreams: `127.0.0.1#${UPSTREAM}`,
      FTLCONF_webserver_port: "127.0.0.1:25710",
      FTLCONF_dns_rateLimit_count: "0",
      FTLCONF_dns_queryLogging: arg("querylog", "on") === "on" ? "true" : "false",
    });
  } else if (server === "dnsmasq") {
    p = spawn([
      "dnsmasq",
      "-k",
      "-C",
      "/dev/null",
      "--no-resolv",
      "--no-hosts",
      "-p",
      String(port),
      "--listen-address=127.0.0.1",
      "--bind-interfaces",
      `--server=127.0.0.1#${UPSTREAM}`,
      `--addn-hosts=${join(dir, "hosts.block")}`,
      "-c",
      "10000",
      "--dns-forward-max=10000",
      // as root dnsmasq drops to "nobody", who cannot read the hosts file in our 0700 temp dir
      ...(process.getuid?.() === 0 ? ["--user=root"] : []),
    ]);
  } else {
    p = spawn(["unbound", "-d", "-c", join(dir, "unbound.conf")]);
  }
  const row: Row = {};
  row.load_s = (await waitAnswer(port, names[0]!)) + 0 * t0;
  await Bun.sleep(500);
  row.rss_mib = rssMb(p.pid);
  for (const scen of ["blocked", "cached", "mix", "unique"] as const) {
    if (scen === "cached" || scen === "mix") await dnsperf(port, "cached.txt", ["-l", "1"]); // warm the cache
    const c0 = cpuTicks(p.pid);
    const r = await dnsperf(port, `${scen}.txt`, ["-q", "200"]);
    const cpu = (cpuTicks(p.pid) - c0) / 100; // clock ticks → seconds
    row[`${scen}_qps`] = Math.round(r.qps);
    row[`${scen}_cpu_us_per_q`] = r.completed ? Math.round((cpu / r.completed) * 1e7) / 10 : NaN;
    if (scen !== "unique") {
      const l = await dnsperf(port, `${scen}.txt`, ["-Q", "10000", "-v"]);
      row[`${scen}_p50_ms`] = +pct(l.lat, 0.5).toFixed(3);
      row[`${scen}_p99_ms`] = +pct(l.lat, 0.99).toFixed(3);
      row[`${scen}_p999_ms`] = +pct(l.lat, 0.999).toFixed(3);
    }
  }
  if (server === "moat") {
    // the same blocked load while a dashboard polls the statistics every second (the DNS
    // answer rate must not change)
    let polls = 0,
      pollMs = 0,
      stop = false;
    const paths = [
      "/api/stats/summary",
      "/api/history",
      "/api/stats/top_domains",
      "/api/stats/top_clients",
      "/api/stats/upstreams",
      "/api/queries?length=100",
      "/api/padd",
    ];
    const poller = (async () => {
      while (!stop) {
        const t = performance.now();
        for (const path of paths) await (await fetch(`http://127.0.0.1:25710${path}`)).arrayBuffer();
        pollMs += performance.now() - t;
        polls++;
        await Bun.sleep(Math.max(0, 1000 - (performance.now() - t)));
      }
    })();
    const r = await dnsperf(port, "blocked.txt", ["-q", "200"]);
    stop = true;
    await poller;
    row.blocked_polled_qps = Math.round(r.qps);
    row.dashboard_poll_ms = polls ? Math.round(pollMs / polls) : NaN;
  }
  row.rss_after_mib = rssMb(p.pid);
  results[server] = row;
  p.kill();
  await p.exited;
  console.log(server, JSON.stringify(row));
}

// --- report -----------------------------------------------------------------------------------------
const keys = Object.keys(results[ONLY[0]!] ?? {});
console.log(`\n${NAMES} blocked names, ${SECONDS}s per run, latency at 10k QPS`);
console.log(
  ["metric", ...ONLY, ...ONLY.filter((s) => s !== "moat").map((s) => `${s}/moat`)].map((s) => s.padEnd(22)).join(""),
);
for (const k of keys) {
  const vals = ONLY.map((s) => results[s]?.[k] ?? NaN);
  const m = results.moat?.[k] ?? NaN;
  const ratios = ONLY.filter((s) => s !== "moat").map((s) => ((results[s]?.[k] ?? NaN) / m).toFixed(2));
  console.log([k, ...vals.map(String), ...ratios].map((s) => s.padEnd(22)).join(""));
}
// --- Moat alone: list sizes -------------------------------------------------------------------------
const SIZES =
  arg("sizes", "100000,1000000,3000000") === "none"
    ? []
    : arg("sizes", "100000,1000000,3000000").split(",").map(Number);
if (SIZES.length) {
  // the idle process: no list at all
  const idleDir = join(dir, "moat-idle");
  gravityWith(idleDir, []);
  const sizes: Array<{ names: number; startS: number; snapshotMs: number; rssMb: number; anonMb: number }> = [];
  for (const n of [0, ...SIZES]) {
    const list =
      n === 0
        ? []
        : n <= names.length
          ? names.slice(0, n)
          : [
              ...names,
              ...Array.from({ length: n - names.length }, (_, i) => `x${i}-${word(4, 12)}.${TLDS[i % TLDS.length]}`),
            ];
    const d = n === 0 ? idleDir : join(dir, `moat-${n}`);
    if (n) gravityWith(d, list);
    const p = Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), "serve", "--data-dir", d], {
      env: {
        ...(process.env as Record<string, string>),
        FTLCONF_dns_port: String(PORTS.moat),
        FTLCONF_dns_upstreams: `127.0.0.1#${UPSTREAM}`,
        FTLCONF_webserver_port: "127.0.0.1:25710",
      },
      stdout: "pipe",
      stderr: "pipe",
      cwd: ROOT,
    });
    const out = Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]).then((t) => t.join("\n"));
    const startS = await waitAnswer(PORTS.moat!, n ? list[0]! : "up.bench.test", 600);
    await Bun.sleep(2000);
    const rss = rssMb(p.pid),
      anon = anonMb(p.pid);
    p.kill();
    await p.exited;
    const snapshotMs = Number(/filter snapshot \d+: .*\((\d+) ms\)/.exec(await out)?.[1] ?? NaN);
    sizes.push({ names: n, startS: +startS.toFixed(2), snapshotMs, rssMb: +rss.toFixed(1), anonMb: +anon.toFixed(1) });
    rmSync(d, { recursive: true, force: true });
  }
  const idle = sizes[0]!;
  // MiB as /proc counts them; per million also in MB (10^6 bytes), the unit of the target
  console.log("\nMoat alone by list size (start-up = spawn to first answer; memory 2 s after it, MiB; anon = RssAnon,");
  console.log("without the pages of the bun executable that building from SQLite touches once, ~2.5 MiB)");
  console.log(
    ["names", "startup_s", "snapshot_ms", "rss_mib", "anon_mib", "rss_MB_per_M_above_idle", "anon_MB_per_M_above_idle"]
      .map((h) => h.padEnd(26))
      .join(""),
  );
  const perM = (v: number, i: number, n: number) => (n ? (((v - i) * 1048576) / n).toFixed(1) : "-");
  for (const r of sizes) {
    console.log(
      [
        r.names,
        r.startS,
        r.snapshotMs,
        r.rssMb,
        r.anonMb,
        perM(r.rssMb, idle.rssMb, r.names),
        perM(r.anonMb, idle.anonMb, r.names),
      ]
        .map((v) => String(v).padEnd(26))
        .join(""),
    );
  }
}

for (const p of procs) p.kill();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
