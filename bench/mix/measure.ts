// What the mix benchmark reads off a running server: dnsperf results, CPU time, RSS and the tmpfs
// the process keeps (Moat's 24 h query log lives in /dev/shm/moat-querylog-*, named by its pid file).
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

const statusKb = (pid: number, field: string) => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
};
export const rssMb = (pid: number) => statusKb(pid, "VmRSS") / 1024;

/** CPU seconds (user + system) the process has used. */
export function cpuSeconds(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** Bytes a process keeps on tmpfs: Moat's scratch directories whose pid file names it. */
export function tmpfsMb(pid: number): number {
  let bytes = 0;
  for (const base of ["/dev/shm"]) {
    let entries: string[] = [];
    try {
      entries = readdirSync(base).filter((n) => n.startsWith("moat-querylog-"));
    } catch {
      continue;
    }
    for (const e of entries) {
      const d = join(base, e);
      try {
        if (Number(readFileSync(join(d, "pid"), "utf8")) !== pid) continue;
        for (const f of readdirSync(d)) bytes += statSync(join(d, f)).blocks * 512;
      } catch {
        // gone meanwhile
      }
    }
  }
  return bytes / 1048576;
}

export interface PerfResult {
  qps: number;
  /** NOERROR + NXDOMAIN answers */
  answered: number;
  sent: number;
  lost: number;
  /** latencies in ms, sorted (verbose runs only) */
  lat: number[];
}

/** One dnsperf run; `extra` adds -Q/-q/-l/-n/-v. Output goes to a file so reading it does not compete with the server. */
export async function dnsperf(
  port: number,
  file: string,
  outFile: string,
  extra: string[],
  cpu?: string,
): Promise<PerfResult> {
  const cmd = ["dnsperf", "-s", "127.0.0.1", "-p", String(port), "-d", file, "-t", "2", ...extra];
  // a fresh file: an earlier run's lines must not count in this one's percentiles
  rmSync(outFile, { force: true });
  const p = Bun.spawn(cpu ? ["taskset", "-c", cpu, ...cmd] : cmd, { stdout: Bun.file(outFile), stderr: "ignore" });
  await p.exited;
  const out = readFileSync(outFile, "utf8");
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  const sent = num(/Queries sent:\s+(\d+)/);
  const completed = num(/Queries completed:\s+(\d+)/);
  const answered = num(/NOERROR (\d+)/) + num(/NXDOMAIN (\d+)/);
  const qps = num(/Queries per second:\s+([\d.]+)/);
  const lat = extra.includes("-v")
    ? [...out.matchAll(/^> \S+ \S+ \S+ ([\d.]+)$/gm)].map((m) => Number(m[1]) * 1000).sort((a, b) => a - b)
    : [];
  return { qps: completed ? (qps * answered) / completed : 0, answered, sent, lost: num(/Queries lost:\s+(\d+)/), lat };
}

export const pct = (a: number[], p: number) => (a.length ? a[Math.min(a.length - 1, Math.floor(a.length * p))]! : NaN);

/** Samples RSS + tmpfs of a process once a second until stopped. */
export class MemorySampler {
  readonly samples: Array<{ t: number; rss: number; tmpfs: number; label: string }> = [];
  private timer: ReturnType<typeof setInterval>;
  private label = "start";
  private readonly t0 = performance.now();
  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.take(), 1000);
  }
  mark(label: string): void {
    this.label = label;
    this.take();
  }
  take(): { rss: number; tmpfs: number } {
    const s = {
      t: (performance.now() - this.t0) / 1000,
      rss: rssMb(this.pid),
      tmpfs: tmpfsMb(this.pid),
      label: this.label,
    };
    if (s.rss) this.samples.push(s);
    return s;
  }
  stop(): void {
    clearInterval(this.timer);
  }
  /** about `n` samples spread over the run, plus every labelled point */
  summary(n = 12): string {
    const step = Math.max(1, Math.floor(this.samples.length / n));
    const lines = this.samples.filter((_, i) => i % step === 0 || i === this.samples.length - 1);
    return lines
      .map(
        (s) =>
          `${s.t.toFixed(0).padStart(5)}s ${s.label.padEnd(12)} rss ${s.rss.toFixed(0).padStart(5)} MiB  tmpfs ${s.tmpfs.toFixed(0).padStart(4)} MiB`,
      )
      .join("\n");
  }
}

/** CPU seconds per thread of a process, by thread id (with the thread's name). */
export function threadCpu(pid: number): Map<number, { name: string; s: number }> {
  const out = new Map<number, { name: string; s: number }>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const st = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = st.slice(st.indexOf("(") + 1, st.lastIndexOf(")"));
      const f = st.slice(st.lastIndexOf(")") + 2).split(" ");
      out.set(Number(tid), { name, s: (Number(f[11]) + Number(f[12])) / 100 });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** The threads that used the most CPU between two threadCpu() readings, as "name µs/query" text. */
export function threadShare(
  before: Map<number, { name: string; s: number }>,
  after: Map<number, { name: string; s: number }>,
  queries: number,
): string {
  const rows = [...after]
    .map(([tid, a]) => ({ name: `${a.name}/${tid}`, s: a.s - (before.get(tid)?.s ?? 0) }))
    .filter((r) => r.s > 0)
    .sort((x, y) => y.s - x.s);
  return rows
    .slice(0, 6)
    .map((r) => `${r.name} ${((r.s / Math.max(1, queries)) * 1e6).toFixed(1)}`)
    .join(", ");
}

/**
 * Waits (30 s at most) until the server uses under a tenth of a core, and returns the seconds it took:
 * the fixed-rate runs measure a network's steady state, not the backlog the flood before them left
 * (Moat's idle-priority query writer storing what the throughput run queued).
 */
export async function settle(pid: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < 60; i++) {
    const c0 = cpuSeconds(pid);
    await Bun.sleep(500);
    if (cpuSeconds(pid) - c0 < 0.05) break;
  }
  return +((performance.now() - t0) / 1000).toFixed(1);
}
