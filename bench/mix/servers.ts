// The servers the mix benchmarks run: the peers' configuration from the same lists Moat loads, their
// command lines, Moat's list load through its API, and waiting for a server to answer.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { MixFiles } from "./data.ts";

/** The processes a benchmark starts (output ignored), stopped together at its end. */
export class Processes {
  private readonly all: Subprocess[] = [];
  constructor(private readonly cwd: string) {}

  spawn(cmd: string[], env: Record<string, string> = {}): Subprocess {
    const p = Bun.spawn(cmd, {
      env: { ...(process.env as Record<string, string>), ...env },
      stdout: "ignore",
      stderr: "ignore",
      cwd: this.cwd,
    });
    this.all.push(p);
    return p;
  }

  async stop(): Promise<void> {
    for (const p of this.all) p.kill();
    await Promise.all(this.all.map((p) => p.exited));
  }
}

/** Moat's settings for a benchmark: its DNS and HTTP ports, the loopback upstream, no rate limit. */
export function moatBenchEnv(o: { port: number; upstreamPort: number; httpPort: number }): Record<string, string> {
  return {
    FTLCONF_dns_port: String(o.port),
    FTLCONF_dns_upstreams: `127.0.0.1#${o.upstreamPort}`,
    FTLCONF_webserver_port: `127.0.0.1:${o.httpPort}`,
    FTLCONF_dns_rateLimit_count: "0",
  };
}

/** unbound's config for `threads` threads (the lists as always_null local zones), at `file`. */
export function writeUnboundConfig(
  file: string,
  dir: string,
  mix: Pick<MixFiles, "hostsNames" | "abpNames">,
  o: { port: number; upstreamPort: number; threads?: number; controlPort?: number },
): void {
  const zones = [...mix.hostsNames, ...mix.abpNames].map((n) => `  local-zone: "${n}." always_null\n`).join("");
  // remote control: unbound-control reads the per-thread query counts
  const control = o.controlPort
    ? `remote-control:\n  control-enable: yes\n  control-use-cert: no\n  control-interface: 127.0.0.1\n  control-port: ${o.controlPort}\n`
    : "";
  writeFileSync(
    file,
    `${control}server:\n  interface: 127.0.0.1\n  port: ${o.port}\n  do-ip6: no\n  num-threads: ${o.threads ?? 1}\n  so-reuseport: yes\n  chroot: ""\n  username: ""\n  directory: "${dir}"\n  pidfile: ""\n  use-syslog: no\n  logfile: ""\n  do-not-query-localhost: no\n  msg-cache-size: 16m\n  rrset-cache-size: 32m\n  local-zone: "test." nodefault\n${zones}forward-zone:\n  name: "."\n  forward-addr: 127.0.0.1@${o.upstreamPort}\n`,
  );
}

/** dnsmasq's lists: the hosts entries as a hosts file, the ABP entries as address= lines. */
export function writeDnsmasqLists(dir: string, mix: MixFiles): void {
  writeFileSync(join(dir, "hosts.block"), `${mix.hostsNames.map((n) => `0.0.0.0 ${n}`).join("\n")}\n`);
  writeFileSync(join(dir, "dnsmasq-abp.conf"), `${mix.abpNames.map((n) => `address=/${n}/0.0.0.0`).join("\n")}\n`);
}

const asRoot = process.getuid?.() === 0 ? ["--user=root"] : [];

export function unboundCommand(configFile: string): string[] {
  return ["unbound", "-d", "-c", configFile];
}

/** dnsmasq on `port` with the lists writeDnsmasqLists wrote. */
export function dnsmasqCommand(dir: string, port: number, upstreamPort: number): string[] {
  return [
    "dnsmasq",
    "-k",
    "-C",
    join(dir, "dnsmasq-abp.conf"),
    "--no-resolv",
    "--no-hosts",
    "-p",
    String(port),
    "--listen-address=127.0.0.1",
    "--bind-interfaces",
    `--server=127.0.0.1#${upstreamPort}`,
    `--addn-hosts=${join(dir, "hosts.block")}`,
    "-c",
    "10000",
    "--dns-forward-max=10000",
    ...asRoot,
  ];
}

/** The loopback upstream every server forwards to: dnsmasq answering every name with 192.0.2.1. */
export function upstreamCommand(port: number): string[] {
  return [
    "dnsmasq",
    "-k",
    "-C",
    "/dev/null",
    "--no-resolv",
    "--no-hosts",
    "-p",
    String(port),
    "--listen-address=127.0.0.1",
    "--bind-interfaces",
    "--address=/#/192.0.2.1",
    "--local-ttl=3600",
    "-c",
    "0",
    "--dns-forward-max=10000",
    ...asRoot,
  ];
}

/** Moat gets the lists as a user does: POST /api/lists, then a gravity run. Returns gravity's last lines. */
export async function loadMoatLists(httpPort: number, mix: MixFiles): Promise<string> {
  const api = (path: string, init?: RequestInit) =>
    fetch(`http://127.0.0.1:${httpPort}/api${path}`, { ...init, headers: { "content-type": "application/json" } });
  // DNS listens before the API does
  for (
    let i = 0;
    i < 300 &&
    !(await api("/info/login").then(
      (r) => r.ok,
      () => false,
    ));
    i++
  )
    await Bun.sleep(100);
  const r = await api("/lists?type=block", {
    method: "POST",
    body: JSON.stringify({ address: [`file://${mix.hostsFile}`, `file://${mix.abpFile}`] }),
  });
  if (r.status !== 201) throw new Error(`POST /api/lists: ${r.status} ${await r.text()}`);
  const g = await (await api("/action/gravity", { method: "POST" })).text();
  return g.trim().split("\n").slice(-3).join(" | ");
}

async function dig(port: number, name: string): Promise<string> {
  const p = Bun.spawn(["dig", "@127.0.0.1", "-p", String(port), name, "+time=1", "+tries=1", "+short"], {
    stdout: "pipe",
    stderr: "ignore",
  });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return out.trim();
}

/** Seconds until `name` on `port` answers with `want`. */
export async function waitAnswer(port: number, name: string, want: RegExp, timeoutS = 600): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutS * 1000) {
    if (want.test(await dig(port, name))) return (performance.now() - t0) / 1000;
    await Bun.sleep(200);
  }
  throw new Error(`no answer for ${name} on ${port} within ${timeoutS}s`);
}
