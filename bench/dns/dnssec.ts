// DNSSEC validation cost: Moat with dns.dnssec on and off, beside unbound validating, over the private
// signed hierarchy of test/dns/dnssec-hierarchy.sh (nsd on loopback). Moat's upstream is unbound as a plain
// iterator. The query mix: 60% a few names again and again (cache hits), 20% new names under a signed
// wildcard (each a miss with a wildcard proof to check), 10% new NXDOMAIN names in a signed zone (NSEC),
// 5% in an NSEC3 zone, 5% new names in an unsigned zone. Each server gets the same dnsperf run at a fixed
// rate; printed: answered QPS, CPU per query (the server's own process), p50/p99 latency. unbound runs first
// on a cold cache (its iteration to nsd counted); Moat's upstream is warmed once with the same file first.
// A last run repeats Moat's with 20 clients asking for a KeyTrap name (test/dns/dnssec-hierarchy.ts) meanwhile.
// Usage: bun bench/dns/dnssec.ts [--qps 2000] [--seconds 5] [--queries 20000]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, startMoat, type MoatProcess } from "../../test/harness/moat.ts";
import { buildHierarchy, unboundConf, writeTrap } from "../../test/dns/dnssec-hierarchy.ts";
import { encodeQuery, sendUdp } from "../../test/dns/helpers.ts";
import { cpuSeconds, dnsperf, pct } from "../mix/measure.ts";
import { waitAnswer } from "../mix/servers.ts";

const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const QPS = Number(arg("qps", "2000"));
const SECONDS = Number(arg("seconds", "5"));
const QUERIES = Number(arg("queries", "20000"));

const dir = mkdtempSync(join(tmpdir(), "moat-bench-dnssec-"));
const procs: Subprocess[] = [];
const moats: MoatProcess[] = [];
const spawn = (cmd: string[]) => {
  const p = Bun.spawn(cmd, { cwd: dir, stdout: "ignore", stderr: "ignore" });
  procs.push(p);
  return p;
};

/** The query file: deterministic, every "new" name used once. */
function queryFile(): string {
  const hot = [
    "www.secure.test A",
    "alias.secure.test A",
    "www.nsec3.test A",
    "www.insecure.test A",
    "www.p384.test A",
  ];
  const lines: string[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const r = i % 20;
    if (r < 12) lines.push(hot[i % hot.length]!);
    else if (r < 16) lines.push(`n${i}.wild.secure.test A`);
    else if (r < 18) lines.push(`nx${i}.secure.test A`);
    else if (r < 19) lines.push(`nx${i}.nsec3.test A`);
    else lines.push(`n${i}.insecure.test A`);
  }
  const file = join(dir, "queries.txt");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

async function measure(label: string, port: number, pid: number, file: string): Promise<void> {
  const cpu0 = cpuSeconds(pid);
  const r = await dnsperf(port, file, join(dir, `${label}.out`), [
    "-Q",
    String(QPS),
    "-l",
    String(SECONDS),
    "-v",
    "-e",
    "-D",
  ]);
  const cpu = cpuSeconds(pid) - cpu0;
  const us = r.answered ? (cpu * 1e6) / r.answered : Number.NaN;
  console.log(
    `${label.padEnd(26)} ${r.qps.toFixed(0).padStart(6)} QPS  ${us.toFixed(0).padStart(5)} µs CPU/query  p50 ${pct(r.lat, 0.5).toFixed(2)} ms  p99 ${pct(r.lat, 0.99).toFixed(2)} ms  lost ${r.lost}`,
  );
}

try {
  const [nsdPort, plainPort, refPort] = [await freePort(), await freePort(), await freePort()];
  writeTrap(dir, 32, 32);
  const anchor = buildHierarchy(dir, nsdPort);
  writeFileSync(join(dir, "plain.conf"), unboundConf(dir, nsdPort, plainPort, null));
  writeFileSync(join(dir, "ref.conf"), unboundConf(dir, nsdPort, refPort, anchor));
  spawn(["nsd", "-d", "-c", join(dir, "nsd.conf")]);
  spawn(["unbound", "-d", "-c", join(dir, "plain.conf")]);
  const ref = spawn(["unbound", "-d", "-c", join(dir, "ref.conf")]);
  for (const port of [nsdPort, plainPort, refPort]) await waitAnswer(port, "www.insecure.test", /192\.0\.2\.5/, 20);
  const file = queryFile();
  console.log(`${QUERIES} queries at ${QPS} QPS for ${SECONDS} s each (a fresh cache per server)`);
  await measure("unbound (validating)", refPort, ref.pid, file);
  // the plain iterator Moat forwards to answers from its cache for both Moat runs alike
  await dnsperf(plainPort, file, join(dir, "warm.out"), ["-Q", String(QPS), "-l", String(SECONDS), "-e", "-D"]);
  for (const on of [false, true]) {
    const env = {
      FTLCONF_dns_upstreams: `127.0.0.1#${plainPort}`,
      FTLCONF_dns_dnssec: String(on),
      FTLCONF_dns_trustAnchors: anchor,
      FTLCONF_dns_rateLimit_count: "0",
    };
    const m = await startMoat({ env });
    moats.push(m);
    await measure(on ? "Moat (validating)" : "Moat (not validating)", m.dnsPort, m.proc!.pid, file);
    if (!on) continue;
    // KeyTrap: the same mix while 20 clients ask for the trap without pause (bogus answers are not cached,
    // so each is validated again: 32 keys × 32 signatures with one tag, cut off after 8 checks)
    let stop = false;
    let traps = 0;
    const trapLat: number[] = [];
    const flood = async () => {
      while (!stop) {
        const t0 = performance.now();
        await sendUdp(m.dnsPort, encodeQuery("www.trap.test", { dnssecOk: true }), "127.0.0.1", 5000);
        trapLat.push(performance.now() - t0);
        traps++;
      }
    };
    const clients = Array.from({ length: 20 }, flood);
    await measure("Moat (validating, KeyTrap)", m.dnsPort, m.proc!.pid, file);
    stop = true;
    await Promise.all(clients);
    trapLat.sort((a, b) => a - b);
    console.log(
      `  meanwhile ${traps} trap queries: p50 ${pct(trapLat, 0.5).toFixed(1)} ms, p99 ${pct(trapLat, 0.99).toFixed(1)} ms (CPU above includes them)`,
    );
  }
} finally {
  for (const m of moats) await m.dispose();
  for (const p of procs) p.kill();
  await Promise.all(procs.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
}
