// What one answered query allocates on the main thread's default path: the real QueryEngine (the whole
// chain), a filter snapshot built from a gravity.db with list entries, and the real Stats sink (the 24 h
// window, the query writer's queue), driven by handle() as udp-socket.ts calls it, for cache hits (1,000
// names forwarded once to a loopback upstream in this process, then asked again) and list blocks. Per
// path: the JS objects made per query (heapStats().objectTypeCounts over a batch short enough that no
// collection runs in it; the batch is retried when one did) and the ten commonest types. About 0.2 of
// each figure is the measurement's own (heapStats() makes a Structure and an Object every 10 queries' worth).
// Then per path: the time of handle() per query, wall and the process's CPU with the collector's threads
// (the best of the rounds of 100,000 queries, so a loaded machine's slices weigh least), and the young (Eden) collections per 100,000 queries, counted in a child
// run with BUN_JSC_logGC=1 (bench/mix/gclog.ts reads its log).
// Usage: bun bench/dns/alloc.ts [--batch 2000] [--rounds 5] [--edens 300000 (0: no child run)]
import { heapStats } from "bun:jsc";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ConfigStore } from "../../src/config/index.ts";
import { openGravityDb, openQueryDb } from "../../src/db/index.ts";
import { QueryEngine } from "../../src/dns/engine.ts";
import { buildSnapshotData } from "../../src/filter/build.ts";
import { Snapshot } from "../../src/filter/snapshot.ts";
import { POLICIES } from "../../src/policies/registry.ts";
import { Stats } from "../../src/stats/sink.ts";
import { collections } from "../mix/gclog.ts";

const { values: opt } = parseArgs({
  options: {
    batch: { type: "string", default: "2000" },
    rounds: { type: "string", default: "5" },
    edens: { type: "string", default: "300000" },
    child: { type: "boolean", default: false },
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

const dir = mkdtempSync(join(tmpdir(), "moat-alloc-"));
const up = await upstream();
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

const clients = ["10.0.0.7", "10.0.1.7", "10.0.2.7", "10.0.3.7"];
let sink = 0;
function drive(queries: Uint8Array[], n: number): void {
  for (let i = 0; i < n; i++) {
    const a = engine.handle(queries[i % NAMES]!, clients[i & 3]!, false);
    if (a instanceof Promise) throw new Error("not answered at once");
    sink += a ? a.length : 0;
  }
}

/** Objects made per query over one batch (retried when a collection ran in it: the heap shrank). */
function perQuery(queries: Uint8Array[]): { objects: number; types: Record<string, number> } {
  for (let tries = 0; tries < 20; tries++) {
    Bun.gc(true);
    const a = heapStats();
    drive(queries, BATCH);
    const b = heapStats();
    if (b.heapSize < a.heapSize) continue;
    const types: Record<string, number> = {};
    let objects = 0;
    for (const [t, c] of Object.entries(b.objectTypeCounts)) {
      const d = c - (a.objectTypeCounts[t] ?? 0);
      if (d > 0) types[t] = d / BATCH;
      objects += d;
    }
    return { objects: objects / BATCH, types };
  }
  throw new Error("a collection in every batch: try a smaller --batch");
}

const PATHS = [
  ["cache hit", hits],
  ["list block", blocks],
] as const;
const EDENS = Number(opt.edens);

if (opt.child) {
  // the parent reads this run's collections between the markers (stderr, where JSC writes its log)
  for (const [path, queries] of PATHS) {
    drive(queries, 100_000);
    console.error(`[alloc] begin ${path}`);
    drive(queries, EDENS);
    console.error(`[alloc] end ${path}`);
  }
} else {
  for (const [path, queries] of PATHS) {
    drive(queries, 100_000); // warm: the JIT (at 20,000 some functions still made a scope per call), the memo, the window's slots
    const runs = Array.from({ length: ROUNDS }, () => perQuery(queries));
    runs.sort((x, y) => x.objects - y.objects);
    const med = runs[runs.length >> 1]!;
    const top = Object.entries(med.types)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 10)
      .map(([t, c]) => `${t} ${c.toFixed(2)}`)
      .join(", ");
    let best = Infinity,
      bestCpu = Infinity;
    for (let r = 0; r < ROUNDS; r++) {
      const t = performance.now(),
        c = process.cpuUsage();
      drive(queries, 100_000);
      const cpu = process.cpuUsage(c);
      best = Math.min(best, ((performance.now() - t) * 1e6) / 100_000);
      bestCpu = Math.min(bestCpu, ((cpu.user + cpu.system) * 1e3) / 100_000);
    }
    console.log(
      `${path}: ${med.objects.toFixed(2)} objects/query (rounds ${runs.map((r) => r.objects.toFixed(2)).join(" ")}); ${top}`,
    );
    console.log(
      `${path}: handle() ${best.toFixed(0)} ns/query of wall time, ${bestCpu.toFixed(0)} ns of the process's CPU, every thread (the best of ${ROUNDS} rounds of 100,000)`,
    );
  }
  if (EDENS > 0) {
    const child = Bun.spawnSync([process.execPath, import.meta.path, "--child", "--edens", String(EDENS)], {
      env: { ...process.env, BUN_JSC_logGC: "1" },
      stdout: "ignore",
      stderr: "pipe",
    });
    const log = child.stderr.toString();
    for (const [path] of PATHS) {
      const from = log.indexOf(`[alloc] begin ${path}`),
        to = log.indexOf(`[alloc] end ${path}`);
      if (from < 0 || to < 0) throw new Error(`the child run did not finish: ${log.slice(-500)}`);
      // the main heap's: the one with the most collections (the query writer's thread has its own)
      const byHeap = new Map<string, number>();
      for (const c of collections(log.slice(from, to)))
        if (c.kind === "Eden") byHeap.set(c.heap, (byHeap.get(c.heap) ?? 0) + 1);
      const edens = Math.max(0, ...byHeap.values());
      console.log(
        `${path}: ${((edens * 100_000) / EDENS).toFixed(1)} young collections per 100,000 queries (${edens} in ${EDENS})`,
      );
    }
  }
}

await stats.stop?.();
engine.stop();
up.close();
disk.close();
rmSync(dir, { recursive: true, force: true });
if (sink < 0) console.log(sink);
process.exit(0);
