// Encrypted DNS benchmark, loopback only, bounded in time: dnsperf -m dot and -m doh against Moat
// and against dnsdist serving the same answers (Moat from its cache, filled from a dnsmasq that answers
// every name with 192.0.2.1; dnsdist spoofing that same answer, its cheapest path), side by side with
// ratios and RSS; then Moat's forwarding throughput over a DoT upstream against plain UDP to the same
// server (unbound answering every name of the zone), with names never asked before.
// Usage: bun bench/tls/run.ts [--seconds 8] [--clients 20]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { makeTestCa } from "../../test/harness/tls-peer.ts";
import { freePort } from "../../test/harness/moat.ts";

const ROOT = resolve(import.meta.dir, "../..");
const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const SECONDS = Number(arg("seconds", "8"));
const CLIENTS = Number(arg("clients", "20"));
const dir = mkdtempSync(join(tmpdir(), "moat-bench-tls-"));
// free ports, not fixed ones: other benchmarks may run on the same machine
const P = {
  upstream: 0,
  dnsdistUdp: 0,
  dnsdistDot: 0,
  dnsdistDoh: 0,
  moatDns: 0,
  moatDot: 0,
  moatHttp: 0,
  moatHttps: 0,
  unboundUdp: 0,
  unboundDot: 0,
  unboundDoh: 0,
};
for (const k of Object.keys(P) as Array<keyof typeof P>) P[k] = await freePort();
const procs: Subprocess[] = [];
const ca = makeTestCa(["dns.test", "localhost"]);

function spawn(cmd: string[], env: Record<string, string> = {}): Subprocess {
  const p = Bun.spawn(cmd, {
    env: { ...(process.env as Record<string, string>), ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  procs.push(p);
  return p;
}

async function waitPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise<boolean>((res) => {
      Bun.connect({
        hostname: "127.0.0.1",
        port,
        socket: {
          open: (s) => (s.end(), res(true)),
          data() {},
          error: () => res(false),
          connectError: () => res(false),
        },
      }).catch(() => res(false));
    });
    if (ok) return;
    await Bun.sleep(50);
  }
  throw new Error(`nothing listens on ${port}`);
}

const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

interface Result {
  qps: number;
  lost: number;
  rssMax: number;
  rssEnd: number;
}

/**
 * dnsperf for SECONDS against one server, sampling the server's RSS twice a second. Five queries in
 * flight per connection: with more, dnsperf 2.10's DoH stops getting answers from Bun 1.4.5's HTTP/2
 * server (experimental), even from a bare Bun.serve with no Moat code; curl multiplexing 50 streams on
 * one HTTP/2 connection to the same server gets all 200 answers, so it is this pair's interplay.
 */
async function perf(pid: number, args: string[], file: string): Promise<Result> {
  let rssMax = 0;
  const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMiB(pid))), 500);
  const p = Bun.spawn(
    [
      "dnsperf",
      "-s",
      "127.0.0.1",
      "-d",
      file,
      "-l",
      String(SECONDS),
      "-c",
      String(CLIENTS),
      "-q",
      String(CLIENTS * 5),
      ...args,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const out = await new Response(p.stdout).text();
  await p.exited;
  clearInterval(sampler);
  const qps = Number(/Queries per second:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const codes = /Response codes:\s+(.*)/.exec(out)?.[1] ?? "";
  if (codes && !/^NOERROR \d+ \(100\.00%\)$/.test(codes.trim())) console.log(`  (response codes: ${codes.trim()})`);
  const lost = Number(/Queries lost:\s+(\d+)/.exec(out)?.[1] ?? 0);
  if (!qps) console.log(out);
  return { qps, lost, rssMax: Math.round(rssMax), rssEnd: Math.round(rssMiB(pid)) };
}

function startMoat(name: string, upstream: string): Subprocess {
  const data = join(dir, name);
  return spawn([process.execPath, join(ROOT, "src/main.ts"), "serve", "--data-dir", data], {
    FTLCONF_dns_port: String(P.moatDns),
    FTLCONF_dns_tls_port: String(P.moatDot),
    FTLCONF_dns_upstreams: upstream,
    FTLCONF_webserver_port: `127.0.0.1:${P.moatHttp},127.0.0.1:${P.moatHttps}s`,
    FTLCONF_dns_rateLimit_count: "0",
    NODE_EXTRA_CA_CERTS: ca.caFile,
  });
}

async function stop(p: Subprocess): Promise<void> {
  p.kill();
  await p.exited;
}

try {
  // the same answers for everyone: dnsmasq answers every A with one address
  spawn([
    "dnsmasq",
    "--no-daemon",
    "--no-resolv",
    "--no-hosts",
    "--listen-address=127.0.0.1",
    "--bind-interfaces",
    `--port=${P.upstream}`,
    "--address=/#/192.0.2.1",
    "--local-ttl=3600",
    "--cache-size=0",
  ]);
  writeFileSync(
    join(dir, "dnsdist.conf"),
    `
setSecurityPollSuffix("")
setLocal("127.0.0.1:${P.dnsdistUdp}")
addTLSLocal("127.0.0.1:${P.dnsdistDot}", "${ca.certFile}", "${ca.keyFile}")
addDOHLocal("127.0.0.1:${P.dnsdistDoh}", "${ca.certFile}", "${ca.keyFile}", "/dns-query")
addAction(AllRule(), SpoofAction("192.0.2.1"))
`,
  );
  writeFileSync(
    join(dir, "unbound.conf"),
    `server:
  interface: 127.0.0.1@${P.unboundUdp}
  interface: 127.0.0.1@${P.unboundDot}
  interface: 127.0.0.1@${P.unboundDoh}
  tls-port: ${P.unboundDot}
  https-port: ${P.unboundDoh}
  tls-service-key: "${ca.keyFile}"
  tls-service-pem: "${ca.certFile}"
  username: ""
  chroot: ""
  directory: "${dir}"
  pidfile: ""
  use-syslog: no
  logfile: ""
  num-threads: 1
  incoming-num-tcp: 100
  access-control: 127.0.0.0/8 allow
  local-zone: "fresh.test." redirect
  local-data: "fresh.test. 300 IN A 192.0.2.1"
  local-zone: "bench.test." redirect
  local-data: "bench.test. 3600 IN A 192.0.2.1"
`,
  );
  const unbound = spawn(["unbound", "-d", "-c", join(dir, "unbound.conf")]);
  await waitPort(P.unboundDot);
  const dnsdist = spawn(["dnsdist", "--supervised", "--disable-syslog", "-C", join(dir, "dnsdist.conf")]);
  await waitPort(P.dnsdistDoh);

  const hot = join(dir, "hot.txt");
  writeFileSync(hot, `${Array.from({ length: 1000 }, (_, i) => `host${i}.bench.test A`).join("\n")}\n`);
  const fresh = join(dir, "fresh.txt");
  writeFileSync(
    fresh,
    `${Array.from({ length: 400000 }, (_, i) => `n${i}-${(i * 7919) % 100003}.fresh.test A`).join("\n")}\n`,
  );

  const moat = startMoat("moat", `127.0.0.1#${P.upstream}`);
  await waitPort(P.moatHttps);
  await waitPort(P.moatDot);
  const rows: Array<[string, string, Result, Result]> = [];
  const doh = (port: number) => [
    "-m",
    "doh",
    "-p",
    String(port),
    "-O",
    `doh-uri=https://127.0.0.1:${port}/dns-query`,
    "-O",
    "doh-method=POST",
  ];
  // dnsdist 1.7.3's DoH (h2o) drops the TLS connection of kdig and dnsperf here: unbound is the DoH peer
  for (const [label, peerName, peer, m, d] of [
    [
      "DoT (dnsperf -m dot)",
      "dnsdist",
      dnsdist,
      ["-m", "dot", "-p", String(P.moatDot)],
      ["-m", "dot", "-p", String(P.dnsdistDot)],
    ],
    [
      "DoT (dnsperf -m dot)",
      "unbound",
      unbound,
      ["-m", "dot", "-p", String(P.moatDot)],
      ["-m", "dot", "-p", String(P.unboundDot)],
    ],
    ["DoH (dnsperf -m doh, POST)", "unbound", unbound, doh(P.moatHttps), doh(P.unboundDoh)],
  ] as const) {
    await perf(moat.pid, [...m, "-l", "1"], hot); // warm the cache
    const rm = await perf(moat.pid, [...m], hot);
    const rd = await perf(peer.pid, [...d], hot);
    rows.push([label, peerName, rm, rd]);
  }
  await stop(moat);
  console.log(
    `\nServing, ${CLIENTS} connections, ${SECONDS} s, 1000 names answered from the cache (peers: from local data):`,
  );
  console.log(
    "transport                  | peer    | Moat QPS | peer QPS | Moat/peer | Moat RSS max/end MiB | peer RSS max MiB",
  );
  for (const [label, peer, m, d] of rows)
    console.log(
      `${label.padEnd(26)} | ${peer.padEnd(7)} | ${m.qps.toFixed(0).padStart(8)} | ${d.qps.toFixed(0).padStart(8)} | ${(m.qps / d.qps).toFixed(2).padStart(9)} | ${`${m.rssMax}/${m.rssEnd}`.padStart(20)} | ${String(d.rssMax).padStart(16)}`,
    );

  // forwarding: every name new (no cache hit in Moat), unbound answering from its redirect zone
  const fwd: Array<[string, Result]> = [];
  for (const [label, up] of [
    ["plain UDP upstream", `127.0.0.1#${P.unboundUdp}`],
    ["DoT upstream", `tls://dns.test@127.0.0.1:${P.unboundDot}`],
  ] as const) {
    const m = startMoat(`fwd-${fwd.length}`, up);
    await waitPort(P.moatHttp);
    fwd.push([label, await perf(m.pid, ["-m", "udp", "-p", String(P.moatDns)], fresh)]);
    await stop(m);
  }
  console.log(`\nForwarding (dnsperf -m udp to Moat, names never asked before), ${SECONDS} s:`);
  for (const [label, r] of fwd)
    console.log(
      `${label.padEnd(20)} ${r.qps.toFixed(0).padStart(8)} QPS, lost ${r.lost}, RSS max/end ${r.rssMax}/${r.rssEnd} MiB`,
    );
  console.log(`DoT/UDP ratio: ${(fwd[1]![1].qps / fwd[0]![1].qps).toFixed(2)}`);
} finally {
  for (const p of procs) if (p.exitCode === null) p.kill();
  await Promise.all(procs.map((p) => p.exited));
  ca.dispose();
  rmSync(dir, { recursive: true, force: true });
}
