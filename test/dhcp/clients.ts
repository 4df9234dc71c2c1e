// The DHCP clients the tests drive inside a device's namespace: ISC dhclient and busybox udhcpc,
// each with a hook script that only sets the address and writes down what the client was told.
import { writeFileSync } from "node:fs";
import type { Device, TestLan } from "./lan.ts";
import { waitFor } from "./lan.ts";

export interface Told {
  event: string;
  ip: string;
  mask: string;
  router: string;
  dns: string;
  domain: string;
  lease: string;
}

function parseLog(text: string): Told[] {
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [event = "", ip = "", mask = "", router = "", dns = "", domain = "", lease = ""] = l.split("|");
      return { event, ip, mask, router, dns, domain, lease };
    });
}

/** ISC dhclient, one run per call (-1: give up rather than retry forever). */
export class Dhclient {
  private readonly files: string[];
  constructor(
    private readonly lan: TestLan,
    private readonly dev: Device,
    hostname: string | null,
  ) {
    const id = dev.ns;
    const log = lan.path(`${id}.dhclient.log`);
    const script = lan.script(
      `${id}.dhclient.sh`,
      `echo "$reason|$new_ip_address|$new_subnet_mask|$new_routers|$new_domain_name_servers|$new_domain_name|$new_dhcp_lease_time" >> ${log}
case $reason in
  PREINIT) ip link set $interface up ;;
  BOUND|RENEW|REBIND|REBOOT) ip addr replace $new_ip_address/$new_subnet_mask dev $interface ;;
  RELEASE|EXPIRE|STOP) ip addr flush dev $interface ;;
esac
exit 0`,
    );
    const conf = lan.path(`${id}.dhclient.conf`);
    writeFileSync(conf, hostname ? `send host-name "${hostname}";\n` : "");
    this.files = ["-lf", lan.path(`${id}.leases`), "-pf", lan.path(`${id}.pid`), "-cf", conf, "-sf", script];
    this.logName = `${id}.dhclient.log`;
  }
  private readonly logName: string;

  told(): Told[] {
    return parseLog(this.lan.read(this.logName));
  }

  /** Gets a lease (or re-confirms the one in its lease file) and leaves the daemon running. */
  obtain(): boolean {
    const out = Bun.spawnSync(
      ["ip", "netns", "exec", this.dev.ns, "timeout", "20", "dhclient", "-1", ...this.files, this.dev.ifname],
      { stdout: "pipe", stderr: "pipe" },
    );
    return out.exitCode === 0;
  }

  /** Stops the daemon without telling the server (the lease stays on both sides). */
  stop(): void {
    this.dev.exec(["dhclient", "-x", ...this.files, this.dev.ifname], { allowFail: true });
  }

  /** Sends DHCPRELEASE and stops. */
  release(): void {
    this.dev.exec(["timeout", "10", "dhclient", "-r", ...this.files, this.dev.ifname], { allowFail: true });
  }
}

/** busybox udhcpc in the foreground (-f), releasing on exit (-R). */
export class Udhcpc {
  private proc: ReturnType<typeof Bun.spawn> | null = null;
  private readonly logName: string;
  private readonly script: string;
  constructor(
    private readonly lan: TestLan,
    private readonly dev: Device,
    private readonly hostname: string | null,
  ) {
    this.logName = `${dev.ns}.udhcpc.log`;
    const log = lan.path(this.logName);
    this.script = lan.script(
      `${dev.ns}.udhcpc.sh`,
      `echo "$1|$ip|$subnet|$router|$dns|$domain|$lease" >> ${log}
case $1 in
  bound|renew) ip addr replace $ip/$mask dev $interface ;;
  deconfig) ip addr flush dev $interface ;;
esac
exit 0`,
    );
  }

  told(): Told[] {
    return parseLog(this.lan.read(this.logName));
  }

  private args(extra: string[]): string[] {
    return [
      "busybox",
      "udhcpc",
      "-f",
      "-i",
      this.dev.ifname,
      "-s",
      this.script,
      "-t",
      "3",
      "-T",
      "1",
      "-A",
      "1",
      ...(this.hostname ? ["-x", `hostname:${this.hostname}`] : []),
      ...extra,
    ];
  }

  /** One attempt that quits once bound (-q) or after its tries (-n); true when it got a lease. */
  once(): boolean {
    const p = Bun.spawnSync(["ip", "netns", "exec", this.dev.ns, "timeout", "20", ...this.args(["-q", "-n"])], {
      stdout: "pipe",
      stderr: "pipe",
    });
    return p.exitCode === 0;
  }

  /** Runs until stopped; resolves with the first lease. */
  async run(): Promise<Told> {
    this.proc = this.dev.spawn(this.args(["-R"]));
    return waitFor(() => this.told().find((t) => t.event === "bound"), 15000, "udhcpc to bind");
  }

  /** SIGUSR1: renew now (a unicast REQUEST from the bound address); resolves with the renewal. */
  async renew(): Promise<Told> {
    const before = this.told().filter((t) => t.event === "renew").length;
    this.proc!.kill("SIGUSR1");
    return waitFor(() => this.told().filter((t) => t.event === "renew")[before], 15000, "udhcpc to renew");
  }

  /** SIGTERM with -R: sends DHCPRELEASE and exits. */
  async release(): Promise<void> {
    this.proc!.kill("SIGTERM");
    await this.proc!.exited;
  }
}
