// What one wake costs at a fixed rate, system call by system call: Moat's main thread (one or two
// checkouts, A/B), beside the bare Bun UDP server (echo-floor.ts), each asked the same 1,000 names at
// --qps (cache hits) and then names never asked (forwarded), in turns round by round. For each run:
// the main thread's CPU µs per query (user and kernel apart), the whole process's, and per query the
// main thread's system calls that a wake is made of (`perf stat -e syscalls:sys_enter_* -t`) and its
// context switches. What Moat costs over the floor is Moat's; the floor is Bun's and the kernel's.
// Usage: bun bench/mix/wake.ts [--roots /work/wt/a,/work/wt/b] [--qps 10000] [--seconds 5] [--rounds 2]
//   [--ports 26720] [--clients 1] [--paths cache,fwd] (--ports: the first of the 2 + 2 × roots ports it uses)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { dnsperf } from "./measure.ts";
import { moatBenchEnv, Processes, upstreamCommand, waitAnswer } from "./servers.ts";

const ROOT = resolve(import.meta.dir, "../..");
const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const QPS = arg("qps", "10000");
const SECONDS = Number(arg("seconds", "5"));
const ROUNDS = Number(arg("rounds", "2"));
const BASE = Number(arg("ports", "26720"));
const ROOTS = arg("roots", ROOT).split(",");
const PATHS = arg("paths", "cache,fwd").split(",");
const dir = mkdtempSync(join(tmpdir(), "moat-wake-"));
const procs = new Processes(ROOT);
const out = join(dir, "dnsperf.out");

/** the system calls a wake is made of (Bun's loop: epoll, the sockets' mmsg calls, timers, wakeups) */
const CALLS = [
  "epoll_pwait2",
  "epoll_pwait",
  "epoll_wait",
  "epoll_ctl",
  "recvmmsg",
  "sendmmsg",
  "recvfrom",
  "sendto",
  "timerfd_settime",
  "futex",
  "read",
  "write",
  "madvise",
  "mprotect",
];

/** user and kernel CPU seconds of one thread */
function threadTimes(pid: number, tid: number): [number, number] {
  try {
    const st = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    const f = st.slice(st.lastIndexOf(")") + 2).split(" ");
    return [Number(f[11]) / 100, Number(f[12]) / 100];
  } catch {
    return [0, 0];
  }
}
function processSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

function names(file: string, prefix: string, n: number): string {
  writeFileSync(file, Array.from({ length: n }, (_, i) => `${prefix}${i}.wake.test A\n`).join(""));
  return file;
}

const servers: Array<{ label: string; port: number; pid: number }> = [];
try {
  procs.spawn(upstreamCommand(BASE));
  await waitAnswer(BASE, "up.wake.test", /^192\.0\.2\.1$/, 10);
  servers.push({
    label: "floor",
    port: BASE + 1,
    pid: procs.spawn([process.execPath, join(import.meta.dir, "echo-floor.ts"), String(BASE + 1)]).pid,
  });
  ROOTS.forEach((root, i) => {
    const port = BASE + 2 + 2 * i;
    const env = moatBenchEnv({ port, upstreamPort: BASE, httpPort: port + 1 });
    const cmd = [process.execPath, join(root, "src/main.ts"), "serve", "--data-dir", join(dir, `moat${i}`)];
    servers.push({ label: ROOTS.length > 1 ? `moat ${"ABCD"[i]}` : "moat", port, pid: procs.spawn(cmd, env).pid });
  });
  for (const s of servers) await waitAnswer(s.port, "probe.wake.test", /^(192\.0\.2\.1)?$/, 60);
  const hits = names(join(dir, "hits.txt"), "hit", 1000);
  const n = Number(QPS) * SECONDS * 1.2;
  for (const s of servers) {
    await dnsperf(s.port, hits, out, ["-l", "3", "-q", "100"]);
    await dnsperf(s.port, names(join(dir, "warm.txt"), `warm${s.port}-`, n), out, ["-l", "2", "-Q", QPS]);
  }
  type Row = Record<string, number>;
  const rows: Record<string, Row[]> = {};
  const measure = async (key: string, s: (typeof servers)[number], file: string) => {
    const perfOut = join(dir, "perf.txt");
    const perf = Bun.spawn(
      [
        "perf",
        "stat",
        "-x",
        ",",
        "-o",
        perfOut,
        "-e",
        ["context-switches", ...CALLS.map((c) => `syscalls:sys_enter_${c}`)].join(","),
        "-t",
        String(s.pid),
      ],
      { stdout: "ignore", stderr: "ignore" },
    );
    await Bun.sleep(300);
    const [u0, k0] = threadTimes(s.pid, s.pid);
    const p0 = processSeconds(s.pid);
    const r = await dnsperf(s.port, file, out, [
      "-l",
      String(SECONDS),
      "-Q",
      QPS,
      "-c",
      arg("clients", "1"),
      "-q",
      "500",
    ]);
    const [u1, k1] = threadTimes(s.pid, s.pid);
    const p1 = processSeconds(s.pid);
    perf.kill("SIGINT");
    await perf.exited;
    const q = Math.max(1, r.answered);
    const row: Row = {
      "main us": ((u1 - u0 + k1 - k0) / q) * 1e6,
      user: ((u1 - u0) / q) * 1e6,
      kernel: ((k1 - k0) / q) * 1e6,
      "proc us": ((p1 - p0) / q) * 1e6,
    };
    for (const line of readFileSync(perfOut, "utf8").split("\n")) {
      const [v, , ev] = line.split(",");
      if (!ev || !Number.isFinite(Number(v))) continue;
      const k = ev.replace("syscalls:sys_enter_", "");
      row[k === "context-switches" ? "cs" : k] = Number(v) / q;
    }
    (rows[key] ??= []).push(row);
  };
  for (let round = 0; round < ROUNDS; round++)
    for (const s of servers) {
      if (PATHS.includes("cache")) {
        await dnsperf(s.port, hits, out, ["-n", "1", "-q", "100"]);
        await measure(`${s.label} cache`, s, hits);
      }
      if (PATHS.includes("fwd"))
        await measure(`${s.label} fwd`, s, names(join(dir, "fresh.txt"), `r${round}-${s.port}-`, n));
    }
  const cols = ["main us", "user", "kernel", "proc us", "cs", ...CALLS];
  const shown = cols.filter((c) => Object.values(rows).some((rs) => rs.some((r) => (r[c] ?? 0) >= 0.005)));
  console.log(
    `\nper query at ${QPS} QPS, ${SECONDS} s a run, median of ${ROUNDS} rounds (main thread; proc us: every thread)`,
  );
  console.log(["run".padEnd(14), ...shown.map((c) => c.replace("epoll_", "ep_").padStart(9))].join(""));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [k, rs] of Object.entries(rows))
    console.log(
      [
        k.padEnd(14),
        ...shown.map((c) =>
          median(rs.map((r) => r[c] ?? 0))
            .toFixed(c.endsWith("us") || c === "user" || c === "kernel" ? 1 : 3)
            .padStart(9),
        ),
      ].join(""),
    );
  console.log("\nmain thread µs per query, every round:");
  for (const [k, rs] of Object.entries(rows))
    console.log(`  ${k.padEnd(14)} ${rs.map((r) => r["main us"]!.toFixed(1)).join("  ")}`);
} finally {
  await procs.stop();
  rmSync(dir, { recursive: true, force: true });
}
