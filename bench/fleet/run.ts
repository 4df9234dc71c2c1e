// Fleet benchmark, loopback only, bounded in time. Three Moat nodes (from source) joined through a
// real redis-server, query history in a real PostgreSQL 15:
//  1. change -> visible: a deny entry added through one node's API (round robin), then the time
//     until both other nodes answer it as blocked (UDP queries every millisecond); p50/p99.
//  2. the same change synced the way nebula-sync does it: export a Teleporter archive from one
//     standalone Moat and import it into another, until the second answers it as blocked.
//  3. DNS throughput (dnsperf, cached names) of one node alone and of a fleet node (Redis and
//     PostgreSQL set), with Moat's CPU per query from /proc.
//  4. PostgreSQL ingest: the three nodes under dnsperf at once; rows arriving per second.
// Usage: bun bench/fleet/run.ts [--changes 1000] [--teleporter 50] [--seconds 10]
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { startMoat, type MoatProcess } from "../../test/harness/moat.ts";
import { startUpstream } from "../../test/harness/upstream.ts";
import { startRedis } from "../../test/harness/redis.ts";
import { startPostgres } from "../../test/harness/postgres.ts";
import { ask, firstAddress } from "../../test/dns/helpers.ts";
import { startNodes } from "../../test/fleet/helpers.ts";

const opt = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const CHANGES = opt("changes", 1000);
const TELEPORTS = opt("teleporter", 50);
const SECONDS = opt("seconds", 10);
const DEADLINE_MS = 5000;

const dir = mkdtempSync(join(tmpdir(), "moat-bench-fleet-"));
writeFileSync(join(dir, "q.txt"), `${Array.from({ length: 1000 }, (_, k) => `cached-${k}.example A`).join("\n")}\n`);

const cpu = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function blockedOn(node: MoatProcess, name: string, t0: number): Promise<number> {
  while (performance.now() - t0 < DEADLINE_MS) {
    try {
      if (firstAddress(await ask(node.dnsPort, name, { timeoutMs: 500 })) === "0.0.0.0") return performance.now() - t0;
    } catch {
      // a lost datagram: ask again
    }
    await Bun.sleep(1);
  }
  throw new Error(`${name} not blocked on port ${node.dnsPort} within ${DEADLINE_MS} ms`);
}

const post = (node: MoatProcess, path: string, body: unknown) =>
  node.api(path, { method: "POST", body: JSON.stringify(body) }).then((r) => r.arrayBuffer());

async function dnsperf(port: number, seconds: number): Promise<number> {
  const p = Bun.spawn(
    [
      "dnsperf",
      "-s",
      "127.0.0.1",
      "-p",
      String(port),
      "-d",
      join(dir, "q.txt"),
      "-l",
      String(seconds),
      "-c",
      "4",
      "-q",
      "200",
    ],
    { stdout: "pipe", stderr: "ignore" },
  );
  const out = await new Response(p.stdout).text();
  return Number(/Queries completed:\s+(\d+)/.exec(out)?.[1] ?? 0);
}

async function throughput(label: string, node: MoatProcess): Promise<number> {
  await dnsperf(node.dnsPort, 2); // warm the cache
  const c0 = cpu(node.proc!.pid);
  const n = await dnsperf(node.dnsPort, SECONDS);
  const c1 = cpu(node.proc!.pid);
  const qps = n / SECONDS;
  console.log(
    `${label.padEnd(34)} ${qps.toFixed(0).padStart(8)} QPS   ${(((c1 - c0) / n) * 1e6).toFixed(2)} µs CPU/query`,
  );
  return qps;
}

const up = await startUpstream({ ttl: 86400 });
const [redis, pg] = await Promise.all([startRedis(), startPostgres()]);
const cleanup: Array<() => Promise<unknown>> = [() => up.stop(), () => redis.dispose(), () => pg.dispose()];
try {
  const nodes = await startNodes(["n1", "n2", "n3"], { redis: redis.url, postgres: pg.url, upstream: up.address });
  cleanup.unshift(...nodes.map((n) => () => n.dispose()));

  // 1. change -> visible on the other nodes
  const fleetMs: number[] = [];
  const apiMs: number[] = [];
  const started = performance.now();
  for (let i = 0; i < CHANGES && performance.now() - started < 120_000; i++) {
    const from = nodes[i % 3]!;
    const name = `c${i}.fleet.bench`;
    const t0 = performance.now();
    await post(from, "/api/domains/deny/exact", { domain: name });
    apiMs.push(performance.now() - t0);
    const seen = await Promise.all(nodes.filter((n) => n !== from).map((n) => blockedOn(n, name, t0)));
    fleetMs.push(Math.max(...seen));
  }
  console.log(`fleet: ${fleetMs.length} changes (deny entry via one node's API, visible on both others by DNS)`);
  console.log(`  API reply      p50 ${ms(pct(apiMs, 50))}  p99 ${ms(pct(apiMs, 99))}`);
  console.log(
    `  change->others p50 ${ms(pct(fleetMs, 50))}  p99 ${ms(pct(fleetMs, 99))}  max ${ms(Math.max(...fleetMs))}`,
  );

  // 2. the same change by Teleporter copy (export + import, as nebula-sync does), between two
  // standalone Moats with the fleet nodes' settings less [fleet]
  const ALONE = `[dns]\n  upstreams = ["${up.address}"]\n[dns.rateLimit]\n  count = 0\n`;
  const [a, b] = await Promise.all([startMoat({ configToml: ALONE }), startMoat({ configToml: ALONE })]);
  cleanup.unshift(
    () => a.dispose(),
    () => b.dispose(),
  );
  // the same table size as the fleet had, so the archive is comparable
  for (let i = 0; i < fleetMs.length; i += 100)
    await post(a, "/api/domains/deny/exact", {
      domain: Array.from({ length: Math.min(100, fleetMs.length - i) }, (_, k) => `c${i + k}.fleet.bench`),
    });
  const teleMs: number[] = [];
  for (let i = 0; i < TELEPORTS; i++) {
    const name = `t${i}.tele.bench`;
    const t0 = performance.now();
    await post(a, "/api/domains/deny/exact", { domain: name });
    const zip = await (await a.api("/api/teleporter")).arrayBuffer();
    const fd = new FormData();
    fd.set("file", new Blob([zip], { type: "application/zip" }), "backup.zip");
    await (await b.api("/api/teleporter", { method: "POST", body: fd })).arrayBuffer();
    teleMs.push(await blockedOn(b, name, t0));
  }
  console.log(`teleporter copy: ${teleMs.length} changes (export from one Moat, import into another)`);
  console.log(
    `  change->other  p50 ${ms(pct(teleMs, 50))}  p99 ${ms(pct(teleMs, 99))}   fleet is ${(pct(teleMs, 50) / pct(fleetMs, 50)).toFixed(1)}x faster at p50`,
  );

  // 3. DNS throughput alone and in the fleet
  const alone = await throughput("one node alone (no fleet)", a);
  const inFleet = await throughput("fleet node (Redis + PostgreSQL)", nodes[0]!);
  console.log(`  fleet/alone QPS ratio ${(inFleet / alone).toFixed(2)}`);

  // 4. PostgreSQL ingest from three nodes under load at once
  const sql = new SQL({ url: pg.url, max: 1 });
  const rows = async () => Number(((await sql`SELECT COUNT(*) AS n FROM moat_queries`) as Array<{ n: string }>)[0]!.n);
  await Bun.sleep(2000);
  const r0 = await rows();
  const t0 = performance.now();
  const sent = (await Promise.all(nodes.map((n) => dnsperf(n.dnsPort, SECONDS)))).reduce((x, y) => x + y, 0);
  let r1 = await rows();
  const flushEnd = performance.now() + 15_000;
  while (r1 - r0 < sent && performance.now() < flushEnd) {
    await Bun.sleep(250);
    r1 = await rows();
  }
  const secs = (performance.now() - t0) / 1000;
  console.log(
    `postgres ingest: ${sent} queries answered by 3 nodes in ${SECONDS} s (${(sent / SECONDS).toFixed(0)} QPS), ${r1 - r0} rows in PostgreSQL after ${secs.toFixed(1)} s = ${((r1 - r0) / secs).toFixed(0)} rows/s`,
  );
  await sql.close();
  for (const n of nodes)
    console.log(
      `  RSS ${n === nodes[0] ? "n1" : n === nodes[1] ? "n2" : "n3"}: ${(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${n.proc!.pid}/status`, "utf8"))?.[1] ?? 0) / 1024).toFixed(0)} MiB`,
    );
} finally {
  for (const c of cleanup) await c().catch(() => undefined);
}
