// A DHCP client's host name answers in DNS (A and PTR, under dns.domain.name) and names the client in
// the statistics; its release takes the name away again.
import { afterEach, describe, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { canMakeNamespaces, TestLan, waitFor } from "./lan.ts";
import { Dhclient } from "./clients.ts";

let lan: TestLan | null = null;
let moat: MoatProcess | null = null;
afterEach(async () => {
  await moat?.dispose();
  await lan?.dispose();
  moat = lan = null;
});

/** dig's answer section as [owner, type, data] rows, plus the status */
function dig(
  server: string,
  port: number,
  args: string[],
  exec: (cmd: string[]) => string = (cmd) => Bun.spawnSync(cmd).stdout.toString(),
) {
  const out = exec(["dig", `@${server}`, "-p", String(port), "+time=2", "+tries=2", ...args]);
  const status = /status: (\w+)/.exec(out)?.[1];
  const answers = out
    .split("\n")
    .filter((l) => l && !l.startsWith(";"))
    .map((l) => l.split(/\s+/))
    .map((f) => [f[0], f[3], f[4]]);
  return { status, answers };
}

describe.skipIf(!canMakeNamespaces())("DHCP clients' names", () => {
  test("laptop.<domain> answers A and PTR, names the client in the statistics, and goes with the lease", async () => {
    lan = new TestLan().up();
    moat = await startMoat({
      configToml: `[dhcp]\nactive = true\nstart = "${lan.prefix}.100"\nend = "${lan.prefix}.120"\n[dns.domain]\nname = "home.arpa"\n`,
    });
    await waitFor(() => moat!.output.includes("DHCP: serving"), 10000, "DHCP to start");
    const dev = lan.addDevice("02:00:00:00:21:01");
    const client = new Dhclient(lan, dev, "Laptop");
    expect(client.obtain()).toBe(true);
    const ip = client.told().find((t) => t.event === "BOUND")!.ip;

    expect(dig("127.0.0.1", moat.dnsPort, ["laptop.home.arpa", "A"])).toEqual({
      status: "NOERROR",
      answers: [["laptop.home.arpa.", "A", ip]],
    });
    expect(dig("127.0.0.1", moat.dnsPort, ["laptop", "A"])).toEqual({
      status: "NOERROR",
      answers: [["laptop.", "A", ip]],
    });
    const rev = `${ip.split(".").reverse().join(".")}.in-addr.arpa.`;
    expect(dig("127.0.0.1", moat.dnsPort, ["-x", ip])).toEqual({
      status: "NOERROR",
      answers: [[rev, "PTR", "laptop.home.arpa."]],
    });

    // the device asks Moat itself: the statistics name it by its lease
    const fromDevice = dig(lan.hostIp, moat.dnsPort, ["laptop.home.arpa", "A"], (cmd) => dev.exec(cmd));
    expect(fromDevice.answers).toEqual([["laptop.home.arpa.", "A", ip]]);
    await waitFor(
      async () => {
        const r = (await (await moat!.api("/api/stats/top_clients")).json()) as {
          clients: Array<{ ip: string; name: string | null }>;
        };
        return r.clients.find((c) => c.ip === ip && c.name === "laptop.home.arpa");
      },
      15000,
      "the client to be named in the statistics",
    );

    client.release();
    await waitFor(
      () => dig("127.0.0.1", moat!.dnsPort, ["laptop.home.arpa", "A"]).status === "NXDOMAIN",
      5000,
      "the name to go",
    );
  });
});
