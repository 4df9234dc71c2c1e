// Gravity build benchmark: 1M and 3M domains over 4 lists (hosts and plain formats, 20% of the
// domains repeated across lists), served from file:// so the figure is parse + build + swap from
// the download cache. For each size:
//   1. a real server (empty gravity) runs POST /api/action/gravity; timed until a name of the last
//      list is blocked over DNS (live snapshot), while a second client asks a local name every 20 ms
//      (the DNS thread must keep answering); server RSS before and after gives the filter's cost;
//   2. the CLI alone under /usr/bin/time: its phase timings and peak RSS;
//   3. a fresh process loads the snapshot (from gravity.snapshot, then from the rows without it).
// Run: node_modules/.bin/bun bench/gravity/gravity.bench.ts [sizes…]   (default 1000000 3000000)
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openGravityDb } from "../../src/db/index.ts";
import { startMoat } from "../../test/harness/moat.ts";
import { ask, firstAddress } from "../../test/dns/helpers.ts";

const ROOT = resolve(import.meta.dir, "../..");
const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const MiB = 1048576;

const rssOf = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;

function prepare(total: number): { dir: string; probe: string } {
  const dir = mkdtempSync(join(tmpdir(), "moat-bench-gravity-"));
  const db = openGravityDb(dir, true);
  const unique = Math.round(total / 1.2);
  const nLists = 4;
  const per = Math.ceil(unique / nLists);
  for (let l = 0; l < nLists; l++) {
    const lines: string[] = [];
    const hosts = l % 2 === 0;
    for (let i = l * per; i < Math.min(unique, (l + 1) * per); i++)
      lines.push(hosts ? `0.0.0.0 host${i}.bench${i % 977}.test` : `host${i}.bench${i % 977}.test`);
    // the 20% duplicates: domains of the next list repeated here
    const dupStart = ((l + 1) % nLists) * per;
    for (let i = 0; i < (total - unique) / nLists; i++)
      lines.push(`host${dupStart + i}.bench${(dupStart + i) % 977}.test`);
    const file = join(dir, `list${l}.txt`);
    writeFileSync(file, lines.join("\n"));
    db.query("INSERT INTO adlist (address, type) VALUES (?, 0)").run(`file://${file}`);
  }
  db.close();
  return { dir, probe: `host${unique - 1}.bench${(unique - 1) % 977}.test` };
}

async function endToEnd(dir: string, probe: string) {
  const moat = await startMoat({
    dataDir: dir,
    env: { FTLCONF_dns_upstreams: "127.0.0.1#9", FTLCONF_dns_rateLimit_count: "0" },
  });
  try {
    await Bun.sleep(1500);
    const idle = rssOf(moat.proc!.pid);
    // the DNS thread's responsiveness during the build: a local name every 20 ms
    let stop = false,
      asked = 0,
      failed = 0,
      worst = 0;
    const watcher = (async () => {
      while (!stop) {
        const t = performance.now();
        try {
          const r = await ask(moat.dnsPort, "pi.hole", { timeoutMs: 1000 });
          if (r.rcode !== "NOERROR") failed++;
        } catch {
          failed++;
        }
        asked++;
        worst = Math.max(worst, performance.now() - t);
        await Bun.sleep(20);
      }
    })();
    const t0 = performance.now();
    const res = await moat.api("/api/action/gravity", { method: "POST" });
    const progress = await res.text();
    const cliDone = performance.now() - t0;
    const deadline = Date.now() + 120_000;
    // not yet blocked means forwarded to a dead upstream: a short timeout, then ask again
    const blocked = () =>
      ask(moat.dnsPort, probe, { timeoutMs: 50 }).then(
        (r) => firstAddress(r) === "0.0.0.0",
        () => false,
      );
    while (Date.now() < deadline && !(await blocked())) await Bun.sleep(5);
    const live = performance.now() - t0;
    stop = true;
    await watcher;
    await Bun.sleep(2000);
    const loaded = rssOf(moat.proc!.pid);
    if (process.env.BENCH_LOG)
      console.log(
        moat.output
          .split("\n")
          .filter((l) => /snapshot|gravity/.test(l))
          .join("\n"),
      );
    return { cliDone, live, idle, loaded, asked, failed, worst, ok: progress.includes("Done") };
  } finally {
    await moat.stop();
  }
}

async function cliAlone(dir: string) {
  const t0 = performance.now();
  const p = Bun.spawn(
    ["/usr/bin/time", "-f", "%M", process.execPath, join(ROOT, "src/main.ts"), "gravity", "--data-dir", dir],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  if (code !== 0) console.log(out, err);
  return {
    ms: performance.now() - t0,
    peakKb: Number(err.trim().split("\n").pop()),
    phases: /Phases \(ms\): (.*);/.exec(out)?.[1] ?? "?",
  };
}

const LOAD = `
import { buildSnapshotData } from "${join(ROOT, "src/filter/build.ts")}";
import { Snapshot } from "${join(ROOT, "src/filter/snapshot.ts")}";
import { POLICIES } from "${join(ROOT, "src/policies/registry.ts")}";
import { hashName } from "${join(ROOT, "src/filter/domainset.ts")}";
import { nameToWire } from "${join(ROOT, "src/net/dns-name.ts")}";
Bun.gc(true);
const rss0 = process.memoryUsage().rss;
const info = {};
const t = performance.now();
const s = new Snapshot(buildSnapshotData(process.argv[2], POLICIES.list, info), POLICIES, Date.now());
const ms = performance.now() - t;
Bun.gc(true);
const rss = process.memoryUsage().rss - rss0;
const g = new Uint32Array(1).fill(1);
const names = Array.from({ length: 20000 }, (_, i) => nameToWire(i % 2 ? "host" + i * 7 + ".bench" + ((i * 7) % 977) + ".test" : "miss" + i + ".example.com"));
let hits = 0;
const t1 = performance.now();
for (let r = 0; r < 50; r++) for (const w of names) if (s.gravity.match(w, hashName(w), g) >= 0) hits++;
const ns = ((performance.now() - t1) * 1e6) / (50 * names.length);
console.log(JSON.stringify({ ms, rss, bytes: s.gravity.bytes, count: s.gravity.size, info, ns, hits }));
`;

async function load(dir: string) {
  writeFileSync(join(dir, "load.ts"), LOAD);
  const p = Bun.spawn(["/usr/bin/time", "-f", "%M", process.execPath, join(dir, "load.ts"), join(dir, "gravity.db")], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  await p.exited;
  return {
    ...(JSON.parse(out) as {
      ms: number;
      rss: number;
      bytes: number;
      count: number;
      info: { source: string; gravityMs: number };
      ns: number;
    }),
    peakKb: Number(err.trim().split("\n").pop()),
  };
}

/** peak RSS of the same CLI with no lists: what "extra memory during the build" is measured against */
async function cliBaseline() {
  const dir = mkdtempSync(join(tmpdir(), "moat-bench-gravity-"));
  openGravityDb(dir, true).close();
  try {
    return (await cliAlone(dir)).peakKb;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function bench(total: number) {
  const { dir, probe } = prepare(total);
  const baseKb = await cliBaseline();
  try {
    const e = await endToEnd(dir, probe);
    const c = await cliAlone(dir);
    const fromFile = await load(dir);
    const fileBytes = statSync(join(dir, "gravity.snapshot")).size;
    rmSync(join(dir, "gravity.snapshot"));
    const fromDb = await load(dir);
    const perM = (b: number) => ((b / MiB) * 1e6) / fromFile.count;
    console.log(`${total.toLocaleString()} domains (${fromFile.count.toLocaleString()} unique, 4 lists):`);
    console.log(
      `  server: POST gravity → CLI done ${(e.cliDone / 1000).toFixed(2)} s, → blocked over DNS (live) ${(e.live / 1000).toFixed(2)} s${e.ok ? "" : " (run FAILED)"}`,
    );
    console.log(`  DNS during the build: ${e.asked} queries, ${e.failed} failed, slowest ${e.worst.toFixed(0)} ms`);
    console.log(
      `  server RSS: idle ${(e.idle / MiB).toFixed(0)} MiB, with the snapshot ${(e.loaded / MiB).toFixed(0)} MiB (+${((e.loaded - e.idle) / MiB).toFixed(0)} MiB, ${perM(e.loaded - e.idle).toFixed(1)} MiB per million names)`,
    );
    console.log(
      `  CLI alone: wall ${(c.ms / 1000).toFixed(2)} s, peak RSS ${(c.peakKb / 1024).toFixed(0)} MiB (no lists: ${(baseKb / 1024).toFixed(0)} MiB, extra ${((c.peakKb - baseKb) / 1024).toFixed(0)} MiB = ${(((c.peakKb - baseKb) * 1024) / fromFile.bytes).toFixed(1)}x the snapshot); phases (ms): ${c.phases}`,
    );
    console.log(
      `  snapshot: ${(fromFile.bytes / MiB).toFixed(1)} MiB in memory (${(fromFile.bytes / fromFile.count).toFixed(1)} B/name), file ${(fileBytes / MiB).toFixed(1)} MiB`,
    );
    console.log(
      `  load from file: ${fromFile.ms.toFixed(0)} ms (gravity sets ${fromFile.info.gravityMs.toFixed(0)} ms), +${(fromFile.rss / MiB).toFixed(0)} MiB RSS, peak ${(fromFile.peakKb / 1024).toFixed(0)} MiB; lookup ${fromFile.ns.toFixed(0)} ns (half hits)`,
    );
    console.log(
      `  load without the file (rows → sets → file): ${fromDb.ms.toFixed(0)} ms, peak ${(fromDb.peakKb / 1024).toFixed(0)} MiB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const n of sizes.length ? sizes : [1_000_000, 3_000_000]) await bench(n);
