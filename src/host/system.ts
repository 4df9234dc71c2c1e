// What the machine and the Moat process look like, read from /proc and /sys. A value the
// machine does not expose is null, never made up.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { RateWindow } from "./rate-window.ts";

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
function readTrim(path: string): string | null {
  const s = read(path);
  return s === null ? null : s.replace(/\0/g, "").trim();
}

/** /proc/meminfo in KiB. */
function memInfo(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of (read("/proc/meminfo") ?? "").split("\n")) {
    const m = /^(\w+\(?\w*\)?):\s+(\d+)/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

export function systemInfo(normalizeCpu = false) {
  const m = memInfo();
  const total = m.MemTotal ?? Math.round(os.totalmem() / 1024);
  const free = m.MemFree ?? Math.round(os.freemem() / 1024);
  const available = m.MemAvailable ?? free;
  const used = total - available;
  const swapTotal = m.SwapTotal ?? 0;
  const swapFree = m.SwapFree ?? 0;
  const load = os.loadavg();
  const nprocs = os.availableParallelism?.() ?? os.cpus().length;
  const procs = Number((readTrim("/proc/loadavg") ?? "").split(" ")[3]?.split("/")[1] ?? NaN);
  return {
    uptime: Math.floor(os.uptime()),
    memory: {
      ram: { total, free, used, available, "%used": total ? (100 * used) / total : 0 },
      swap: {
        total: swapTotal,
        free: swapFree,
        used: swapTotal - swapFree,
        "%used": swapTotal ? (100 * (swapTotal - swapFree)) / swapTotal : 0,
      },
    },
    procs: Number.isFinite(procs) ? procs : 0,
    cpu: { nprocs, "%cpu": cpuPercent(), load: { raw: load, percent: load.map((l) => (100 * l) / nprocs) } },
    ftl: processUsage(normalizeCpu),
  };
}

// CPU shares over ten seconds, as Pi-hole reports them (its "%cpu" is a ten-second average).
const CPU_SPAN = 10;

function cpuTimes(): { busy: number; total: number } | null {
  const line = read("/proc/stat")?.split("\n")[0];
  if (!line?.startsWith("cpu ")) return null;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

const now = () => performance.now() / 1000;
const machine = new RateWindow(CPU_SPAN, () => ({ part: 0, whole: 0, at: now() - os.uptime() }));

/** Machine-wide CPU use, in percent of all cores. */
function cpuPercent(): number {
  const t = cpuTimes();
  return t ? machine.percent({ part: t.busy, whole: t.total, at: now() }) : 0;
}

const ownCpu = new RateWindow(CPU_SPAN, () => ({ part: 0, whole: 0, at: now() - process.uptime() }));

/**
 * Memory and CPU of this process. `%cpu` is a share of one core, or of the whole machine when
 * `normalize` (Pi-hole's misc.normalizeCPU) divides it by the number of cores.
 */
export function processUsage(normalize = false): { "%mem": number; "%cpu": number } {
  const u = process.cpuUsage();
  const at = now();
  const pct = ownCpu.percent({ part: (u.user + u.system) / 1e6, whole: at, at });
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  return { "%mem": (100 * process.memoryUsage().rss) / os.totalmem(), "%cpu": normalize ? pct / cores : pct };
}

export function hostInfo() {
  const dmi = (f: string) => readTrim(`/sys/class/dmi/id/${f}`);
  return {
    uname: {
      domainname: readTrim("/proc/sys/kernel/domainname") ?? "(none)",
      machine: os.machine(),
      nodename: os.hostname(),
      release: os.release(),
      sysname: os.type(),
      version: os.version(),
    },
    model:
      readTrim("/proc/device-tree/model") ?? readTrim("/sys/firmware/devicetree/base/model") ?? dmi("product_name"),
    dmi: {
      bios: { vendor: dmi("bios_vendor") },
      board: { name: dmi("board_name"), vendor: dmi("board_vendor"), version: dmi("board_version") },
      product: { name: dmi("product_name"), family: dmi("product_family"), version: dmi("product_version") },
      sys: { vendor: dmi("sys_vendor") },
    },
  };
}

interface Sensor {
  name: string | null;
  path: string;
  source: string;
  temps: Array<{ name: string | null; value: number; max: number | null; crit: number | null; sensor: string }>;
}

/** Temperatures from /sys/class/hwmon and /sys/class/thermal in `unit`; `hotLimit` is the warning limit in °C. */
export function sensorsInfo(unit: string, hotLimit: number) {
  const list: Sensor[] = [];
  const hw = "/sys/class/hwmon";
  if (existsSync(hw)) {
    for (const d of readdirSync(hw)) {
      const p = join(hw, d);
      const temps: Sensor["temps"] = [];
      let files: string[] = [];
      try {
        files = readdirSync(p);
      } catch {
        continue;
      }
      for (const f of files) {
        const m = /^temp(\d+)_input$/.exec(f);
        if (!m) continue;
        const v = Number(readTrim(join(p, f)));
        if (!Number.isFinite(v)) continue;
        const n = (s: string) => {
          const x = Number(readTrim(join(p, `temp${m[1]}_${s}`)));
          return Number.isFinite(x) && readTrim(join(p, `temp${m[1]}_${s}`)) !== null ? x / 1000 : null;
        };
        temps.push({
          name: readTrim(join(p, `temp${m[1]}_label`)),
          value: v / 1000,
          max: n("max"),
          crit: n("crit"),
          sensor: f,
        });
      }
      if (temps.length) list.push({ name: readTrim(join(p, "name")), path: d, source: "hwmon", temps });
    }
  }
  const th = "/sys/class/thermal";
  if (existsSync(th)) {
    for (const d of readdirSync(th).filter((x) => x.startsWith("thermal_zone"))) {
      const v = Number(readTrim(join(th, d, "temp")));
      if (!Number.isFinite(v)) continue;
      list.push({
        name: readTrim(join(th, d, "type")),
        path: d,
        source: "thermal",
        temps: [{ name: readTrim(join(th, d, "type")), value: v / 1000, max: null, crit: null, sensor: "temp" }],
      });
    }
  }
  const cpu =
    list.find((s) => /cpu|coretemp|k10temp|soc/i.test(s.name ?? ""))?.temps[0]?.value ??
    list[0]?.temps[0]?.value ??
    null;
  const conv = (c: number | null) => (c === null ? null : unit === "F" ? c * 1.8 + 32 : unit === "K" ? c + 273.15 : c);
  return { list, cpu_temp: conv(cpu), hot_limit: conv(hotLimit)!, unit };
}

/** Owner and times of a file, as /api/info/database reports them. */
export function fileInfo(path: string) {
  try {
    const s = statSync(path);
    const user = lookup("/etc/passwd", s.uid);
    const group = lookup("/etc/group", s.gid);
    return {
      size: s.size,
      type: s.isFile() ? "file" : "other",
      mode: `${(s.mode & 0o777).toString(8).padStart(4, "0")}`,
      atime: Math.floor(s.atimeMs / 1000),
      mtime: Math.floor(s.mtimeMs / 1000),
      ctime: Math.floor(s.ctimeMs / 1000),
      owner: {
        user: { uid: s.uid, name: user?.[0] ?? null, info: user?.[4] ?? null },
        group: { gid: s.gid, name: group?.[0] ?? null },
      },
    };
  } catch {
    return null;
  }
}

function lookup(file: string, id: number): string[] | null {
  for (const line of (read(file) ?? "").split("\n")) {
    const f = line.split(":");
    if (Number(f[2]) === id) return f;
  }
  return null;
}
