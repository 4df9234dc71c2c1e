// A big list on a small board: Moat in a 512 MiB memory cgroup (v1, swap off for it) builds gravity from
// --entries unique names (default 10M) over 4 lists (70% hosts format, 30% ABP `||x^`, --dup of each
// kind's first list repeated in its second) served from file:// (or --http: a local HTTP server this
// bench starts), through POST /api/action/gravity, while a client asks a local name and a cached name
// every 20 ms (its slowest answer and every miss: a timeout of 1 s or a wrong answer); then a name of
// the last list must be blocked. Every 100 ms: the cgroup's usage and its anonymous memory
// (memory.stat rss: what cannot be dropped, unlike the page cache of the lists and gravity.db), the
// server's and the gravity child's RSS. --runs 2 runs gravity again with the last list renewed: the
// weekly update, which builds while the previous lists stay in force. Needs root and dnsmasq.
// Usage: bun bench/gravity/small-board.ts [--entries 10000000] [--mem 512] [--runs 1] [--dup 0.1] [--http]
//        [--timeout 1800] [--moat-log FILE]
//
// Figures (the shared 2-core machine, cgroup v1, `bun bench/gravity/small-board.ts --runs 2`, 10M names, 10.5M
// lines, 285 MiB snapshot file; `uptime` load in brackets, other engineers' work: times and DNS tails follow it):
// - before (7fd376d, run 1 alone, load ~17): built in 351 s, anonymous memory at most 496 MiB of 512 (the gravity
//   child 486 MiB RSS): the whole heap, page cache squeezed out; DNS 2 timeouts of 22,812, 401 answers over 50 ms.
// - after, run 1 (load ~10): 93 s, anonymous at most 202 MiB (the child 150 MiB, its RSS 401 MiB with the mapped
//   build file), DNS 0 missed of 7,550, 39 over 50 ms, slowest 251 ms; after it the server 104 MiB RSS (54 MiB
//   anonymous in the cgroup: the sets are the mapped snapshot file). The same at load ~17: 301 s, 202 MiB, 0 missed.
// - after, run 2, the weekly update while the previous 10M names stay in force (load ~13): 143 s, anonymous at
//   most 204 MiB, DNS 0 missed of 11,294, 62 over 50 ms, slowest 197 ms; after it the server 105 MiB RSS. The same
//   at load ~17: 248 s, 216 MiB, 0 missed of 17,830, slowest 579 ms.
// - 3M names (load ~10): 17.8 s, anonymous at most 113 MiB, slowest DNS 59 ms; the same with --mem 8192: 14.1 s,
//   slowest 261 ms (the tail is the machine's load, not the memory limit). Before (load ~5): anonymous 238 MiB in
//   run 1, 327 MiB in run 2, where the server held both snapshots (276 MiB RSS, 266 MiB after).
// The cgroup's usage reaches its limit in every run: that is page cache (the lists, gravity.db, the build file),
// which the kernel drops as it needs; failcnt and OOM kills stayed 0.
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { upstreamCommand, waitAnswer } from "../mix/servers.ts";
import { ask, firstAddress } from "../../test/dns/helpers.ts";
import { freePort } from "../../test/harness/moat.ts";

const ROOT = resolve(import.meta.dir, "../..");
const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const ENTRIES = Number(arg("entries", "10000000"));
const MEM = Number(arg("mem", "512"));
const RUNS = Number(arg("runs", "1"));
const DUP = Number(arg("dup", "0.1"));
const HTTP_LISTS = process.argv.includes("--http");
/** the whole bench ends by then, whatever state it is in */
const DEADLINE = Date.now() + Number(arg("timeout", "1800")) * 1000;
const MOAT_LOG = arg("moat-log", "");
const MiB = 1048576;

// ---- the lists: name i is a function of i alone, unique by construction (letters, then i in digits)
const TLDS = ["com", "net", "org", "io", "de", "info", "co.uk", "xyz"];
function nameOf(i: number): string {
  let s = (Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) ^ (i >>> 13)) >>> 0;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
  const word = (min: number, max: number) => {
    let w = "";
    for (let n = min + Math.floor(next() * (max - min + 1)); n > 0; n--)
      w += String.fromCharCode(97 + Math.floor(next() * 26));
    return w;
  };
  const sub = next() < 0.4 ? `${word(2, 8)}.` : "";
  return `${sub}${word(3, 10)}${i}.${TLDS[Math.floor(next() * TLDS.length)]}`;
}

/** Writes `lines(emit)` to `file` through a 4 MiB buffer (10M names never exist as strings at once). */
function writeLines(file: string, lines: (emit: (line: string) => void) => void): void {
  const fd = openSync(file, "w");
  const buf = Buffer.alloc(4 * MiB);
  let len = 0;
  lines((line) => {
    if (len + line.length * 3 + 1 > buf.length) {
      writeSync(fd, buf, 0, len);
      len = 0;
    }
    len += buf.write(line, len, "latin1");
    buf[len++] = 10;
  });
  writeSync(fd, buf, 0, len);
  closeSync(fd);
}

interface ListFile {
  file: string;
  /** a name only this list has (blocked once it is in force) */
  probe: string;
}

/** The four lists of the names [base, base + ENTRIES); the last one alone when `only` (the renewed list). */
function writeLists(dir: string, base: number, only?: number): ListFile[] {
  const cut = [0, 0.35, 0.7, 0.85, 1].map((f) => base + Math.round(ENTRIES * f));
  const out: ListFile[] = [];
  for (let l = 0; l < 4; l++) {
    const file = join(dir, `list${l}.txt`);
    out.push({ file, probe: nameOf(cut[l + 1]! - 1) });
    if (only !== undefined && l !== only) continue;
    const abp = l >= 2;
    const line = (n: string) => (abp ? `||${n}^` : `0.0.0.0 ${n}`);
    writeLines(file, (emit) => {
      emit(`# bench list ${l}: ${cut[l + 1]! - cut[l]!} names`);
      for (let i = cut[l]!; i < cut[l + 1]!; i++) emit(line(nameOf(i)));
      // the second list of each kind repeats part of the first (as run 1 wrote it): entries from two lists
      const from = cut[l - 1]! - base;
      if (l % 2 === 1) for (let i = from; i < from + (cut[l]! - cut[l - 1]!) * DUP; i++) emit(line(nameOf(i)));
    });
  }
  return out;
}

// ---- the cgroup
const cgBase = "/sys/fs/cgroup/memory";
if (!existsSync(cgBase)) throw new Error("no cgroup v1 memory controller at /sys/fs/cgroup/memory (run as root)");
const cg = join(cgBase, `moat-small-board-${process.pid}`);
const cgRead = (f: string) => readFileSync(join(cg, f), "utf8");
const cgNum = (f: string) => Number(cgRead(f).trim());
const cgStat = (key: string) => Number(new RegExp(`^${key} (\\d+)$`, "m").exec(cgRead("memory.stat"))?.[1] ?? 0);
const oomKills = () => Number(/^oom_kill (\d+)$/m.exec(cgRead("memory.oom_control"))?.[1] ?? 0);
/** [VmRSS, RssAnon] of a process in bytes (0 once it is gone) */
const memOf = (pid: number): [number, number] => {
  try {
    const st = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (f: string) => Number(new RegExp(`${f}:\\s+(\\d+)`).exec(st)?.[1] ?? 0) * 1024;
    return [kb("VmRSS"), kb("RssAnon")];
  } catch {
    return [0, 0];
  }
};
const rssOf = (pid: number) => memOf(pid)[0];
const cgPids = () => cgRead("cgroup.procs").trim().split("\n").filter(Boolean).map(Number);
const mib = (b: number) => `${(b / MiB).toFixed(0)} MiB`;

const dir = mkdtempSync(join(tmpdir(), "moat-small-board-"));
const procs: Subprocess[] = [];
let httpServer: ReturnType<typeof Bun.serve> | null = null;

try {
  const t = performance.now();
  const lists = writeLists(dir, 0);
  console.log(
    `lists: ${ENTRIES.toLocaleString()} unique names in 4 files (+${DUP * 100}% repeated) in ${((performance.now() - t) / 1000).toFixed(0)} s`,
  );
  mkdirSync(cg);
  writeFileSync(join(cg, "memory.limit_in_bytes"), String(MEM * MiB));
  // swap off for the group: memory and swap together capped at the same figure
  if (existsSync(join(cg, "memory.memsw.limit_in_bytes")))
    writeFileSync(join(cg, "memory.memsw.limit_in_bytes"), String(MEM * MiB));

  const [upPort, dnsPort, httpPort] = [await freePort(), await freePort(), await freePort()];
  procs.push(Bun.spawn(upstreamCommand(upPort), { stdout: "ignore", stderr: "ignore" }));
  await waitAnswer(upPort, "up.bench.test", /^192\.0\.2\.1$/, 10);
  if (HTTP_LISTS)
    httpServer = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => new Response(Bun.file(join(dir, new URL(req.url).pathname))),
    });
  const address = (f: string) =>
    httpServer ? `http://127.0.0.1:${httpServer.port}/${f.slice(dir.length + 1)}` : `file://${f}`;

  const cmd = [process.execPath, join(ROOT, "src/main.ts"), "serve", "--data-dir", join(dir, "moat")];
  const moat = Bun.spawn(["sh", "-c", `echo $$ > ${cg}/cgroup.procs && exec "$@"`, "sh", ...cmd], {
    env: {
      ...process.env,
      FTLCONF_dns_port: String(dnsPort),
      FTLCONF_dns_upstreams: `127.0.0.1#${upPort}`,
      FTLCONF_webserver_port: `127.0.0.1:${httpPort}`,
      FTLCONF_dns_rateLimit_count: "0",
      FTLCONF_dns_tls_port: "0",
      FTLCONF_gravity_maxListSize: "1024",
    },
    stdout: MOAT_LOG ? Bun.file(MOAT_LOG) : "ignore",
    stderr: MOAT_LOG ? Bun.file(`${MOAT_LOG}.err`) : "ignore",
  });
  procs.push(moat);
  const alive = () => moat.exitCode === null && moat.signalCode === null;
  const api = (path: string, init?: RequestInit) =>
    fetch(`http://127.0.0.1:${httpPort}/api${path}`, { ...init, headers: { "content-type": "application/json" } });
  while (
    !(await api("/info/login").then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (!alive() || Date.now() > DEADLINE) throw new Error("Moat did not start");
    await Bun.sleep(100);
  }
  const r = await api("/lists?type=block", {
    method: "POST",
    body: JSON.stringify({ address: lists.map((l) => address(l.file)) }),
  });
  if (r.status !== 201) throw new Error(`POST /api/lists: ${r.status} ${await r.text()}`);
  // the cached name: forwarded once, then answered from the cache (the upstream's TTL is an hour)
  const CACHED = "cached.small-board.test";
  await waitAnswer(dnsPort, CACHED, /^192\.0\.2\.1$/, 10);
  await Bun.sleep(1000);
  console.log(
    `Moat idle in a ${MEM} MiB cgroup: RSS ${mib(rssOf(moat.pid))}, cgroup ${mib(cgNum("memory.usage_in_bytes"))} (anonymous ${mib(cgStat("total_rss"))})`,
  );

  for (let run = 1; run <= RUNS; run++) {
    if (run > 1) lists[3] = writeLists(dir, ENTRIES * run, 3)[3]!;
    const probe = lists[3]!.probe;
    writeFileSync(join(cg, "memory.max_usage_in_bytes"), "0");
    const oom0 = oomKills(),
      fail0 = cgNum("memory.failcnt");
    // the DNS client: a local name and a cached one, every 20 ms
    let stop = false;
    const dns = { asked: 0, missed: 0, worstLocal: 0, worstCached: 0, over50: 0 };
    const one = async (name: string, want: string) => {
      const t0 = performance.now();
      const ok = await ask(dnsPort, name, { timeoutMs: 1000 }).then(
        (a) => a.rcode === "NOERROR" && (want === "" || firstAddress(a) === want),
        () => false,
      );
      const ms = performance.now() - t0;
      dns.asked++;
      if (!ok) dns.missed++;
      if (ms > 50) dns.over50++;
      return ms;
    };
    const client = (async () => {
      while (!stop) {
        const [l, c] = await Promise.all([one("pi.hole", ""), one(CACHED, "192.0.2.1")]);
        dns.worstLocal = Math.max(dns.worstLocal, l);
        dns.worstCached = Math.max(dns.worstCached, c);
        await Bun.sleep(20);
      }
    })();
    // memory every 100 ms
    const peak = { anon: 0, server: 0, child: 0, childAnon: 0, all: 0 };
    const sampler = setInterval(() => {
      try {
        peak.anon = Math.max(peak.anon, cgStat("total_rss"));
        let all = 0;
        for (const pid of cgPids()) {
          const [rss, anon] = memOf(pid);
          all += rss;
          if (pid === moat.pid) peak.server = Math.max(peak.server, rss);
          else {
            peak.child = Math.max(peak.child, rss);
            peak.childAnon = Math.max(peak.childAnon, anon);
          }
        }
        peak.all = Math.max(peak.all, all);
      } catch {
        // a process gone between the list and the read
      }
    }, 100);
    const t0 = performance.now();
    const progress = await (await api("/action/gravity", { method: "POST" })).text();
    const built = performance.now() - t0;
    const blocked = () =>
      ask(dnsPort, probe, { timeoutMs: 200 }).then(
        (a) => firstAddress(a) === "0.0.0.0",
        () => false,
      );
    while (alive() && Date.now() < DEADLINE && !(await blocked())) await Bun.sleep(20);
    const live = performance.now() - t0;
    const isBlocked = await blocked();
    stop = true;
    await client;
    clearInterval(sampler);
    await Bun.sleep(2000);
    const lastLines = progress.trim().split("\n");
    console.log(`run ${run}${run > 1 ? " (the last list renewed, the previous lists in force meanwhile)" : ""}:`);
    console.log(
      `  gravity: ${lastLines
        .filter((l) => /Number of gravity|Phases|Done|✗/.test(l))
        .map((l) => l.trim())
        .join(" | ")}`,
    );
    console.log(
      `  POST → CLI done ${(built / 1000).toFixed(1)} s, → new list blocked over DNS ${isBlocked ? `${(live / 1000).toFixed(1)} s` : "NEVER"}; Moat ${alive() ? "alive" : "DEAD"}`,
    );
    console.log(
      `  DNS meanwhile: ${dns.asked} queries, ${dns.missed} missed, ${dns.over50} over 50 ms; slowest local ${dns.worstLocal.toFixed(0)} ms, cached ${dns.worstCached.toFixed(0)} ms`,
    );
    console.log(
      `  cgroup peak ${mib(cgNum("memory.max_usage_in_bytes"))} of ${MEM} (page cache included), anonymous at most ${mib(peak.anon)}; RSS at most: server ${mib(peak.server)}, gravity child ${mib(peak.child)} (anonymous ${mib(peak.childAnon)}), together ${mib(peak.all)}; failcnt +${cgNum("memory.failcnt") - fail0}, OOM kills ${oomKills() - oom0}`,
    );
    console.log(
      `  after: server RSS ${mib(rssOf(moat.pid))}, cgroup ${mib(cgNum("memory.usage_in_bytes"))} (anonymous ${mib(cgStat("total_rss"))})`,
    );
    if (!alive() || !isBlocked) break;
  }
} finally {
  for (const p of procs) p.kill(9);
  await Promise.all(procs.map((p) => p.exited));
  void httpServer?.stop(true);
  // a gravity child dies with the server, a moment later: the cgroup is removed once it is empty
  for (let i = 0; i < 50 && existsSync(cg); i++) {
    try {
      rmdirSync(cg);
    } catch {
      await Bun.sleep(100);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
