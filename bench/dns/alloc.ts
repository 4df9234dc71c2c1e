// What one answered query allocates on the main thread's default path: the real QueryEngine (the whole
// chain), a filter snapshot built from a gravity.db with list entries, and the real Stats sink (the 24 h
// window, the query writer's queue handed to its thread), driven by handle() as udp-socket.ts calls it,
// for cache hits (1,000 names forwarded once, then asked again), list blocks, and forwarded queries (cache
// misses answered by a loopback upstream in a process of its own, so its packets cost this heap nothing;
// each name asked once until the pool wraps and the cache is emptied). Per path:
// - bytes per query as JavaScriptCore counts them towards its next young collection ("bytes allocated
//   this cycle", normal and oversized: the cells, what they hold, and large tables' precise allocations),
//   per collection of a child run with BUN_JSC_logGC=1 (cyclesOf() below), and the main heap's young
//   (Eden) collections per 100,000 queries in the same run;
// - the JS objects made per query (heapStats().objectTypeCounts over a batch short enough that no
//   collection runs in it; the batch is retried when one did) and the ten commonest types, with the size
//   of the query's own name text, lowercase wire copy and answer (estimateShallowMemoryUsageOf). About 0.2
//   of each count is the measurement's own (heapStats() makes a Structure and an Object every 10 queries'
//   worth); the forwarded path's driver awaits each answer, which is a few objects of its own too;
// - the time of handle() per query, wall and the process's CPU with the collector's threads (the best of
//   the rounds, so a loaded machine's slices weigh least).
// Usage: bun bench/dns/alloc.ts [--batch 2000] [--rounds 5] [--edens 1000000 (queries of the child run of a path at once; 0: no child run)]
//   [--forwarded 30000 (queries a forwarded round and the child's forwarded run; 0: not that path)]
import { estimateShallowMemoryUsageOf, heapStats } from "bun:jsc";
import { mkdtempSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ConfigStore } from "../../src/config/index.ts";
import { openGravityDb, openQueryDb } from "../../src/db/index.ts";
import { QueryEngine } from "../../src/dns/engine.ts";
import { parseQuery } from "../../src/dns/wire.ts";
import { buildSnapshotData } from "../../src/filter/build.ts";
import { Snapshot } from "../../src/filter/snapshot.ts";
import { POLICIES } from "../../src/policies/registry.ts";
import { Stats } from "../../src/stats/sink.ts";

const { values: opt } = parseArgs({
  options: {
    batch: { type: "string", default: "2000" },
    rounds: { type: "string", default: "5" },
    edens: { type: "string", default: "1000000" },
    forwarded: { type: "string", default: "30000" },
    child: { type: "boolean", default: false },
    upstream: { type: "boolean", default: false },
  },
});
const BATCH = Number(opt.batch),
  ROUNDS = Number(opt.rounds);
const NAMES = 1000;

/** An A query for `name` with EDNS (as dig and dnsperf send), in the 0x20 case of `i`. */
function query(name: string, id: number): Uint8Array {
  const labels = name.split(".");
  const q: number[] = [id >> 8, id & 0xff, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1];
  for (const l of labels) {
    q.push(l.length);
    for (let k = 0; k < l.length; k++) {
      const c = l.charCodeAt(k);
      q.push((id + k) % 3 === 0 && c >= 97 && c <= 122 ? c - 32 : c);
    }
  }
  q.push(0, 0, 1, 0, 1);
  q.push(0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0); // OPT, 1232 bytes
  return Uint8Array.from(q);
}

/** A loopback upstream: one A record (192.0.2.1, TTL 3600) for every query. */
async function upstream() {
  return Bun.udpSocket({
    hostname: "127.0.0.1",
    port: 0,
    binaryType: "uint8array",
    socket: {
      data(sock, buf, port, addr) {
        let o = 12;
        while (buf[o]) o += buf[o]! + 1;
        o += 5;
        const out = new Uint8Array(o + 16);
        out.set(buf.subarray(0, o));
        out[2] = 0x81;
        out[3] = 0x80;
        out[7] = 1;
        out[10] = 0;
        out[11] = 0;
        out.set([0xc0, 12, 0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 4, 192, 0, 2, 1], o);
        sock.send(out, port, addr);
      },
    },
  });
}

if (opt.upstream) {
  // the upstream's process: its port on the first line, then it answers until its parent ends (its stdin closes)
  const server = await upstream();
  console.log(server.port);
  for await (const _ of Bun.stdin.stream());
  process.exit(0);
}

/** The upstream in a process of its own: what it allocates is not this heap's. */
async function upstreamProcess(): Promise<{ port: number; kill: () => void }> {
  const p = Bun.spawn([process.execPath, import.meta.path, "--upstream"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = p.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the upstream process ended");
    text += new TextDecoder().decode(value);
  }
  return { port: Number(text.trim()), kill: () => p.kill() };
}

const dir = mkdtempSync(join(tmpdir(), "moat-alloc-"));
const up = await upstreamProcess();
writeFileSync(
  join(dir, "pihole.toml"),
  `[dns]\nupstreams = ["127.0.0.1#${up.port}"]\nlisteningMode = "ALL"\n[dns.rateLimit]\ncount = 0\n`,
);
const config = new ConfigStore({ file: join(dir, "pihole.toml"), env: {}, hashPassword: (p) => p });
const gdb = openGravityDb(dir);
gdb.run(`INSERT OR IGNORE INTO adlist(id, address, enabled, type) VALUES (1, 'http://l/big', 1, 0)`);
gdb.run(`INSERT OR IGNORE INTO adlist_by_group(adlist_id, group_id) VALUES (1, 0)`);
const add = gdb.prepare("INSERT INTO gravity(domain, adlist_id) VALUES (?, 1)");
gdb.transaction(() => {
  for (let i = 0; i < 100_000; i++) add.run(`ad${i}.tracker${i % 97}.test`);
})();
gdb.close();
const snapshot = new Snapshot(buildSnapshotData(join(dir, "gravity.db"), POLICIES.list), POLICIES, Date.now());
const disk = openQueryDb(dir);
const stats = new Stats({ config, disk, log: () => {} });
stats.start(); // the writer hands its batches to its thread, as in Moat
const engine = new QueryEngine({
  config,
  blocking: { active: true },
  sink: stats,
  log: (l, m) => console.error(l, m),
  snapshot: () => snapshot,
  certName: () => null,
  loop: () => {},
});
await engine.start();

const hits = Array.from({ length: NAMES }, (_, i) => query(`host${i}.cdn${i % 13}.example.com`, i));
const blocks = Array.from({ length: NAMES }, (_, i) => query(`ad${i * 7}.tracker${(i * 7) % 97}.test`, i));
for (const q of hits) {
  const a = await engine.handle(q, "10.0.0.7", false);
  if (a?.[3] !== 0x80) throw new Error(`forwarded: ${a?.[3]}`);
}
if (engine.cache.stats().size < NAMES) throw new Error(`cache holds ${engine.cache.stats().size} answers`);
/** names asked once each until the pool wraps, when the cache is emptied: every one a miss */
const FWD = 10_000;
const misses = Array.from({ length: FWD }, (_, i) => query(`miss${i}.origin${i % 31}.example.net`, i));
let nextMiss = 0;

const clients = ["10.0.0.7", "10.0.1.7", "10.0.2.7", "10.0.3.7"];
let sink = 0;
function drive(queries: Uint8Array[], n: number): void {
  for (let i = 0; i < n; i++) {
    const a = engine.handle(queries[i % NAMES]!, clients[i & 3]!, false);
    if (a instanceof Promise) throw new Error("not answered at once");
    sink += a ? a.length : 0;
  }
}
async function driveForwarded(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    if (nextMiss === FWD) {
      nextMiss = 0;
      engine.cache.clear();
    }
    const a = engine.handle(misses[nextMiss++]!, clients[i & 3]!, false);
    if (!(a instanceof Promise)) throw new Error("answered at once");
    const r = await a;
    if (r?.[3] !== 0x80) throw new Error(`forwarded: ${r?.[3]}`);
    sink += r.length;
  }
}

interface Path {
  name: string;
  /** a sample query: its name text and wire copy are sized from its parse */
  sample: Uint8Array;
  drive: (n: number) => void | Promise<void>;
  /** queries in the child's run and in a timed round */
  count: number;
}
const EDENS = Number(opt.edens),
  FORWARDED = Number(opt.forwarded);
const PATHS: Path[] = [
  { name: "cache hit", sample: hits[5]!, drive: (n) => drive(hits, n), count: EDENS },
  { name: "list block", sample: blocks[5]!, drive: (n) => drive(blocks, n), count: EDENS },
];
if (FORWARDED > 0) PATHS.push({ name: "forwarded", sample: misses[5]!, drive: driveForwarded, count: FORWARDED });

/** Objects made per query over one batch (retried when a collection ran in it: the heap shrank). */
async function perQuery(path: Path): Promise<{ objects: number; types: Record<string, number> }> {
  // a forwarded query takes ~50 µs and more: a shorter batch, so that few are cut by a timer's collection
  const batch = path.sample === misses[5] ? Math.ceil(BATCH / 10) : BATCH;
  for (let tries = 0; tries < 20; tries++) {
    Bun.gc(true);
    const a = heapStats();
    await path.drive(batch);
    const b = heapStats();
    // the cells' bytes move only when a collection runs (the heap's size counts buffers' and strings' extra memory too)
    if (b.heapSize - b.extraMemorySize !== a.heapSize - a.extraMemorySize) continue;
    const types: Record<string, number> = {};
    let objects = 0;
    for (const [t, c] of Object.entries(b.objectTypeCounts)) {
      const d = c - (a.objectTypeCounts[t] ?? 0);
      if (d > 0) types[t] = d / batch;
      objects += d;
    }
    return { objects: objects / batch, types };
  }
  throw new Error("a collection in every batch: try a smaller --batch");
}

/** The sizes of what the query itself makes, as JavaScriptCore estimates each (the cell and what it holds). */
async function ownSizes(path: Path): Promise<string> {
  const q = parseQuery(path.sample);
  const a = await engine.handle(path.sample, clients[0]!, false);
  const size = (x: object | string) => estimateShallowMemoryUsageOf(x as object);
  return `name text ${size(q.name)} B, wire copy ${size(q.wire)} B, answer ${a ? size(a) : 0} B`;
}

/**
 * Bytes per query as JavaScriptCore counts them towards a young collection: the child's run of a path
 * begins with a full collection (which starts the count at 0, and names the main thread's heap) and writes
 * one byte to stderr every CHUNK queries (a write from a buffer made once: nothing allocated), so the log
 * tells how many queries each collection's count ("bytes allocated this cycle: N", normal and oversized:
 * cells and their storage, and the precise allocations of large tables) took (± a chunk). A cycle ended
 * by a timer's collection has no count and is left out.
 */
const CHUNK = 500;
const DOT = new Uint8Array([46]);

interface Cycles {
  /** per cycle: bytes per query, all and oversized */
  all: number[];
  oversized: number[];
  allowed: number;
  edens: number;
}

function cyclesOf(run: string): Cycles {
  const out: Cycles = { all: [], oversized: [], allowed: 0, edens: 0 };
  // the main heap: the one of the full collection the child asked for first
  const main = /\[GC<(0x[0-9a-f]+)>: START M \d+kb => FullCollection/.exec(run)?.[1];
  if (!main) return out;
  let dots = 0;
  let pending: RegExpExecArray | null = null;
  const re =
    /(\.+)|Requesting GC because bytes allocated this cycle: (\d+) exceed bytes allowed: (\d+) normal bytes: \d+ oversized bytes: (\d+)|\[GC<(0x[0-9a-f]+)>: START M \d+kb => (\w+)Collection/g;
  for (let m = re.exec(run); m; m = re.exec(run)) {
    if (m[1]) dots += m[1].length;
    else if (m[2]) pending = m;
    else if (m[5] === main) {
      if (m[6] === "Eden") out.edens++;
      // the count that asked for this collection, when the line just before was it (another thread's may lie between)
      if (pending && dots > 0 && run.lastIndexOf("\n", m.index - 2) <= pending.index + pending[0].length) {
        out.all.push(Number(pending[2]) / (dots * CHUNK));
        out.oversized.push(Number(pending[4]) / (dots * CHUNK));
        out.allowed = Number(pending[3]);
      }
      pending = null;
      dots = 0;
    } else pending = null;
  }
  return out;
}

if (opt.child) {
  // the parent reads this run's collections between the markers (stderr, where JSC writes its log)
  for (const path of PATHS) {
    await path.drive(Math.min(path.count, 100_000));
    console.error(`[alloc] begin ${path.name}`);
    Bun.gc(true);
    for (let n = 0; n < path.count; n += CHUNK) {
      await path.drive(CHUNK);
      writeSync(2, DOT);
    }
    console.error(`[alloc] end ${path.name}`);
  }
} else {
  for (const path of PATHS) {
    // warm: the JIT (at 20,000 some functions still made a scope per call), the memo, the window's slots
    await path.drive(Math.min(path.count, 100_000));
    const runs: Array<{ objects: number; types: Record<string, number> }> = [];
    for (let r = 0; r < ROUNDS; r++) runs.push(await perQuery(path));
    runs.sort((x, y) => x.objects - y.objects);
    const med = runs[runs.length >> 1]!;
    const top = Object.entries(med.types)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 10)
      .map(([t, c]) => `${t} ${c.toFixed(2)}`)
      .join(", ");
    const round = Math.min(path.count, 100_000);
    let best = Infinity,
      bestCpu = Infinity;
    for (let r = 0; r < ROUNDS; r++) {
      const t = performance.now(),
        c = process.cpuUsage();
      await path.drive(round);
      const cpu = process.cpuUsage(c);
      best = Math.min(best, ((performance.now() - t) * 1e6) / round);
      bestCpu = Math.min(bestCpu, ((cpu.user + cpu.system) * 1e3) / round);
    }
    console.log(
      `${path.name}: ${med.objects.toFixed(2)} objects/query (rounds ${runs.map((r) => r.objects.toFixed(2)).join(" ")}); ${top}; ${await ownSizes(path)}`,
    );
    console.log(
      `${path.name}: handle() ${best.toFixed(0)} ns/query of wall time, ${bestCpu.toFixed(0)} ns of the process's CPU, every thread (the best of ${ROUNDS} rounds of ${round})`,
    );
  }
  if (EDENS > 0) {
    const child = Bun.spawnSync(
      [process.execPath, import.meta.path, "--child", "--edens", String(EDENS), "--forwarded", String(FORWARDED)],
      { env: { ...process.env, BUN_JSC_logGC: "1" }, stdout: "ignore", stderr: "pipe" },
    );
    const log = child.stderr.toString();
    for (const path of PATHS) {
      const from = log.indexOf(`[alloc] begin ${path.name}`),
        to = log.indexOf(`[alloc] end ${path.name}`);
      if (from < 0 || to < 0) throw new Error(`the child run did not finish: ${log.slice(-500)}`);
      const c = cyclesOf(log.slice(from, to));
      const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1] ?? NaN;
      const bytes = c.all.length
        ? `${med(c.all).toFixed(0)} bytes/query, of which ${med(c.oversized).toFixed(0)} oversized (the median of ${c.all.length} cycles of ${(c.allowed / 1e6).toFixed(1)} MB: ${c.all.map((x) => x.toFixed(0)).join(" ")})`
        : `no young collection counted in ${path.count} queries`;
      console.log(
        `${path.name}: ${bytes}; ${((c.edens * 100_000) / path.count).toFixed(1)} young collections of the main heap per 100,000 queries (${c.edens} in ${path.count})`,
      );
    }
  }
}

await stats.stop?.();
engine.stop();
up.kill();
disk.close();
rmSync(dir, { recursive: true, force: true });
if (sink < 0) console.log(sink);
process.exit(0);
