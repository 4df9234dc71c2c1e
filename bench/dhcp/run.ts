// DHCP benchmark: Moat's DHCP server beside dnsmasq's, one after the other on the same test LAN (a
// bridge in the root namespace, clients in network namespaces; never the host's own interfaces).
// Measures, for each: the whole lease round trip of a real client (dhclient -1: DISCOVER, OFFER,
// REQUEST, ACK; Moat's includes its 0.5 s ping of a new address, dnsmasq's its own ping check),
// and REQUEST → ACK throughput with a window of requests in flight (every ACK is a lease-file write).
// Moat's RSS is read before, between and after the phases (the clients run synchronously), with its
// peak (VmHWM). Needs root, dhclient and dnsmasq.
// Usage: bun bench/dhcp/run.ts [--seconds 5] [--window 32] [--leases 10]
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startMoat } from "../../test/harness/moat.ts";
import { TestLan, waitFor } from "../../test/dhcp/lan.ts";
import { Dhclient } from "../../test/dhcp/clients.ts";

const { values: opt } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    window: { type: "string", default: "32" },
    leases: { type: "string", default: "10" },
  },
});
const SECONDS = Number(opt.seconds),
  WINDOW = Number(opt.window),
  LEASES = Number(opt.leases);
const LOAD = resolve(import.meta.dir, "load.ts");
const POOL = [10, 250] as const;

interface Result {
  name: string;
  roundTripMs: number[];
  load: { acks: number; naks: number; perSecond: number; p50: number; p99: number };
  rssMiB?: number[];
}

async function measure(name: string, lan: TestLan, rssOf?: () => number): Promise<Result> {
  const rss: number[] = [];
  const sample = () => rssOf && rss.push(rssOf());
  sample();
  // lease round trip: a fresh client each time
  const roundTripMs: number[] = [];
  for (let i = 0; i < LEASES; i++) {
    const dev = lan.addDevice(`02:be:0d:00:${name === "moat" ? "01" : "02"}:${i.toString(16).padStart(2, "0")}`);
    const c = new Dhclient(lan, dev, null);
    const t0 = performance.now();
    if (!c.obtain()) throw new Error(`${name}: dhclient got no lease`);
    roundTripMs.push(performance.now() - t0);
    c.release();
  }
  sample();
  const loader = lan.addDevice(`02:be:0e:00:00:${name === "moat" ? "01" : "02"}`);
  loader.exec(["ip", "addr", "add", `${lan.prefix}.254/24`, "dev", "eth0"]);
  loader.exec(["ip", "route", "add", "default", "dev", "eth0"]);
  const out = loader.exec([
    process.execPath,
    LOAD,
    lan.hostIp,
    lan.prefix,
    String(POOL[0] + 20),
    "200",
    String(SECONDS),
    String(WINDOW),
  ]);
  sample();
  return { name, roundTripMs, load: JSON.parse(out), rssMiB: rss };
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const results: Result[] = [];

// Moat
{
  const lan = new TestLan().up();
  const moat = await startMoat({
    configToml: `[dhcp]\nactive = true\nstart = "${lan.prefix}.${POOL[0]}"\nend = "${lan.prefix}.${POOL[1]}"\n`,
  });
  try {
    await waitFor(() => moat.output.includes("DHCP: serving"), 10000, "Moat's DHCP");
    const pid = moat.proc!.pid;
    const status = (key: string) =>
      Number(new RegExp(`${key}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
    const rssOf = () => status("VmRSS");
    await Bun.sleep(5500); // the start-up check for other DHCP servers is done
    results.push(await measure("moat", lan, rssOf));
    results[0]!.rssMiB!.push(status("VmHWM"));
  } finally {
    await moat.dispose();
    await lan.dispose();
  }
}

// dnsmasq, the DHCP server inside Pi-hole
{
  const lan = new TestLan().up();
  const leases = join(lan.dir, "dnsmasq.leases");
  writeFileSync(leases, "");
  const proc = Bun.spawn(
    [
      "dnsmasq",
      "--keep-in-foreground",
      "--conf-file=/dev/null",
      "--port=0",
      "--user=root",
      `--interface=${lan.bridge}`,
      "--bind-interfaces",
      `--dhcp-range=${lan.prefix}.${POOL[0]},${lan.prefix}.${POOL[1]},24h`,
      `--dhcp-leasefile=${leases}`,
      "--dhcp-authoritative",
      `--pid-file=${join(lan.dir, "dnsmasq.pid")}`,
    ],
    { stdout: "ignore", stderr: "ignore" },
  );
  try {
    await Bun.sleep(500);
    results.push(await measure("dnsmasq", lan));
  } finally {
    proc.kill();
    await proc.exited;
    await lan.dispose();
  }
}

console.log(
  `\nDHCP benchmark: ${LEASES} dhclient leases each, then ${SECONDS} s of REQUESTs with ${WINDOW} in flight (200 clients)\n`,
);
console.log("server    lease round trip (median, min-max)    REQUEST→ACK per s   p50 ms   p99 ms   NAKs");
for (const r of results) {
  const rt = `${median(r.roundTripMs).toFixed(0)} ms (${Math.min(...r.roundTripMs).toFixed(0)}-${Math.max(...r.roundTripMs).toFixed(0)})`;
  console.log(
    `${r.name.padEnd(9)} ${rt.padEnd(37)} ${r.load.perSecond.toFixed(0).padStart(18)} ${r.load.p50.toFixed(2).padStart(8)} ${r.load.p99.toFixed(2).padStart(8)} ${String(r.load.naks).padStart(6)}`,
  );
}
const [m, d] = results as [Result, Result];
console.log(
  `\nratios moat/dnsmasq: lease round trip ${(median(m.roundTripMs) / median(d.roundTripMs)).toFixed(2)}x, requests per second ${(m.load.perSecond / d.load.perSecond).toFixed(2)}x`,
);
if (m.rssMiB?.length) {
  const [start, afterLeases, afterLoad, peak] = m.rssMiB.map((x) => x.toFixed(0));
  console.log(
    `Moat RSS (MiB): ${start} before, ${afterLeases} after the leases, ${afterLoad} after the load; peak ${peak}`,
  );
}
