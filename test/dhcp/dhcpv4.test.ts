// The DHCPv4 server against real clients (ISC dhclient, busybox udhcpc) in network namespaces joined
// to Moat by a test bridge: leases, renewals, releases, reservations, a full pool, restarts and
// malformed requests.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT, startMoat, type MoatProcess } from "../harness/moat.ts";
import { canMakeNamespaces, TestLan, waitFor } from "./lan.ts";
import { Dhclient, Udhcpc } from "./clients.ts";
import { dhcpMessage, readReply } from "./build.ts";

const enabled = canMakeNamespaces();
let lan: TestLan | null = null;
let moat: MoatProcess | null = null;

afterEach(async () => {
  await moat?.dispose();
  await lan?.dispose();
  moat = null;
  lan = null;
});

async function setup(
  extra: (prefix: string) => string = () => "",
  range = [100, 120],
): Promise<{ lan: TestLan; moat: MoatProcess }> {
  lan = new TestLan().up();
  moat = await startMoat({
    configToml: `[dhcp]\nactive = true\nstart = "${lan.prefix}.${range[0]}"\nend = "${lan.prefix}.${range[1]}"\nleaseTime = "2h"\nlogging = true\n${extra(lan.prefix)}\n[dns.domain]\nname = "home.arpa"\n`,
  });
  await waitFor(() => moat!.output.includes("DHCP: serving"), 10000, "DHCP to start");
  return { lan, moat };
}

interface ApiLease {
  expires: number;
  name: string;
  hwaddr: string;
  ip: string;
  clientid: string;
}
async function leases(m: MoatProcess): Promise<ApiLease[]> {
  const r = await m.api("/api/dhcp/leases");
  expect(r.status).toBe(200);
  return ((await r.json()) as { leases: ApiLease[] }).leases;
}

describe.skipIf(!enabled)("DHCPv4 server", () => {
  test("dhclient gets a lease with the network's settings, gets it again after a reboot, and releases it", async () => {
    const { lan, moat } = await setup();
    const dev = lan.addDevice("02:00:00:00:11:01");
    const client = new Dhclient(lan, dev, "laptop");
    expect(client.obtain()).toBe(true);
    const bound = client.told().find((t) => t.event === "BOUND")!;
    expect(bound).toBeDefined();
    const ip = bound.ip;
    const last = Number(ip.split(".")[3]);
    expect(ip.startsWith(`${lan.prefix}.`)).toBe(true);
    expect(last >= 100 && last <= 120).toBe(true);
    expect(bound).toMatchObject({
      mask: "255.255.255.0",
      router: lan.hostIp,
      dns: lan.hostIp,
      domain: "home.arpa",
      lease: "7200",
    });
    expect(dev.exec(["ip", "-4", "-br", "addr", "show", "eth0"])).toContain(ip);

    const [lease] = await leases(moat);
    expect(lease).toMatchObject({ ip, hwaddr: "02:00:00:00:11:01", name: "laptop", clientid: "*" });
    expect(Math.abs(lease!.expires - (Date.now() / 1000 + 7200))).toBeLessThan(60);

    // stop without a release, then start again: INIT-REBOOT asks for the same address and gets it
    client.stop();
    expect(client.obtain()).toBe(true);
    expect(
      client
        .told()
        .filter((t) => ["BOUND", "REBOOT"].includes(t.event))
        .at(-1)!.ip,
    ).toBe(ip);
    expect((await leases(moat)).map((l) => l.ip)).toEqual([ip]);

    client.release();
    await waitFor(async () => (await leases(moat)).length === 0, 5000, "the lease to go");
    await waitFor(
      () => readFileSync(join(moat.dataDir, "dhcp.leases"), "utf8").trim() === "",
      5000,
      "the lease file to be empty",
    );
  });

  test("udhcpc gets a lease, renews it by unicast and releases it", async () => {
    const { lan, moat } = await setup();
    const dev = lan.addDevice("02:00:00:00:11:02");
    const client = new Udhcpc(lan, dev, "phone");
    const bound = await client.run();
    expect(bound).toMatchObject({
      mask: "255.255.255.0",
      router: lan.hostIp,
      dns: lan.hostIp,
      domain: "home.arpa",
      lease: "7200",
    });
    const first = (await leases(moat))[0]!;
    expect(first).toMatchObject({ ip: bound.ip, hwaddr: "02:00:00:00:11:02", name: "phone" });
    // the lease file names the client id udhcpc sends (type 1 + MAC)
    expect(first.clientid).toBe("01:02:00:00:00:11:02");

    await Bun.sleep(1100); // so the renewed expiry differs by at least a second
    const renewed = await client.renew();
    expect(renewed.ip).toBe(bound.ip);
    const after = (await leases(moat))[0]!;
    expect(after.expires).toBeGreaterThan(first.expires);

    await client.release();
    await waitFor(async () => (await leases(moat)).length === 0, 5000, "the release");
    const ftl = (await (await moat.api("/api/info/ftl")).json()) as { ftl: { dnsmasq: Record<string, number> } };
    expect(ftl.ftl.dnsmasq.dhcp_discover).toBeGreaterThanOrEqual(1);
    expect(ftl.ftl.dnsmasq.dhcp_offer).toBeGreaterThanOrEqual(1);
    expect(ftl.ftl.dnsmasq.dhcp_ack).toBeGreaterThanOrEqual(2);
    expect(ftl.ftl.dnsmasq.dhcp_release).toBe(1);
  });

  test("a reserved MAC gets its address and name; when the pool is full others get nothing; a restart keeps the leases", async () => {
    const { lan, moat } = await setup((p) => `hosts = ["02:00:00:00:11:0a,${p}.50,printer"]`, [100, 101]);
    const printer = new Udhcpc(lan, lan.addDevice("02:00:00:00:11:0a"), "somethingelse");
    expect(printer.once()).toBe(true);
    expect(printer.told().find((t) => t.event === "bound")!.ip).toBe(`${lan.prefix}.50`);
    expect((await leases(moat)).find((l) => l.hwaddr === "02:00:00:00:11:0a")).toMatchObject({
      ip: `${lan.prefix}.50`,
      name: "printer",
    });

    // two pool addresses, three more clients: the third gets nothing
    const got: string[] = [];
    for (const n of [1, 2]) {
      const c = new Udhcpc(lan, lan.addDevice(`02:00:00:00:12:0${n}`), null);
      expect(c.once()).toBe(true);
      got.push(c.told().find((t) => t.event === "bound")!.ip);
    }
    expect(got.sort()).toEqual([`${lan.prefix}.100`, `${lan.prefix}.101`]);
    const third = new Udhcpc(lan, lan.addDevice("02:00:00:00:12:03"), null);
    expect(third.once()).toBe(false);
    expect(third.told().some((t) => t.event === "bound")).toBe(false);
    await waitFor(() => moat.output.includes("DHCP: no address available on"), 5000, "the full pool to be reported");
    expect((await leases(moat)).length).toBe(3);

    // the lease file is dnsmasq's format, and it survives a restart
    const file = readFileSync(join(moat.dataDir, "dhcp.leases"), "utf8");
    expect(file).toMatch(
      new RegExp(`^\\d+ 02:00:00:00:11:0a ${lan.prefix.replaceAll(".", "\\.")}\\.50 printer \\S+$`, "m"),
    );
    const before = await leases(moat);
    await moat.restart();
    await waitFor(() => moat.output.includes("DHCP: serving"), 10000, "DHCP to start again");
    expect(await leases(moat)).toEqual(before);
    // and the holders keep their addresses: the first pool client asks again and gets the same one
    const again = new Udhcpc(lan, lan.addDevice("02:00:00:00:12:01"), null);
    expect(again.once()).toBe(true);
    expect(again.told().find((t) => t.event === "bound")!.ip).toBe(
      before.find((l) => l.hwaddr === "02:00:00:00:12:01")!.ip,
    );

    // DELETE /api/dhcp/leases/{ip} removes a lease from the API and the file
    const del = await moat.api(`/api/dhcp/leases/${lan.prefix}.50`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect((await leases(moat)).map((l) => l.ip)).not.toContain(`${lan.prefix}.50`);
    expect(readFileSync(join(moat.dataDir, "dhcp.leases"), "utf8")).not.toContain("printer");
    expect((await moat.api(`/api/dhcp/leases/${lan.prefix}.50`, { method: "DELETE" })).status).toBe(404);
    const bad = await moat.api("/api/dhcp/leases/nonsense", { method: "DELETE" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toBe(
      "The provided IP address is invalid",
    );
  });

  test("answers only on the interface whose network holds the pool; off by default", async () => {
    const { lan, moat } = await setup();
    const other = new TestLan().up();
    try {
      const stranger = new Udhcpc(other, other.addDevice("02:00:00:00:11:05"), null);
      expect(stranger.once()).toBe(false);
      expect(await leases(moat)).toEqual([]);
      const sockets = (pid: number) =>
        Bun.spawnSync(["ss", "-ulnpH", "sport", "=", ":67"])
          .stdout.toString()
          .split("\n")
          .filter((l) => l.includes(`pid=${pid},`));
      expect(sockets(moat.proc!.pid).map((l) => l.split(/\s+/)[3])).toEqual([`0.0.0.0%${lan.bridge}:67`]);
      const plain = await startMoat();
      try {
        expect(sockets(plain.proc!.pid)).toEqual([]);
      } finally {
        await plain.dispose();
      }
    } finally {
      await other.dispose();
    }
  });

  test("malformed requests get no answer and change nothing; a well-formed one still does", async () => {
    const { lan, moat } = await setup();
    const dev = lan.addDevice("02:00:00:00:11:03");
    dev.exec(["ip", "addr", "add", `${lan.prefix}.200/24`, "dev", "eth0"]);
    const mac = "02:00:00:00:11:03";
    const good = dhcpMessage({ xid: 0x1234, mac, type: 1 });
    const bad = [
      good.subarray(0, 200), // cut short
      dhcpMessage({ xid: 1, mac, type: 1, cookie: 0x01020304 }), // wrong magic cookie
      dhcpMessage({ xid: 2, mac, type: 1, op: 2 }), // a reply, not a request
      dhcpMessage({ xid: 3, mac, type: null }), // BOOTP: no message type
      dhcpMessage({ xid: 4, mac, type: 9 }), // unknown message type
      Buffer.concat([dhcpMessage({ xid: 5, mac, type: 1 }).subarray(0, 243), Buffer.from([12, 200, 65])]), // option runs past the end
      dhcpMessage({ xid: 6, mac, type: 3, options: [[50, 2, 10, 77]] }), // requested address of 2 bytes
      dhcpMessage({ xid: 7, mac, type: 1 }).subarray(0, 243), // no end option
      Buffer.alloc(1500, 0xff),
    ];
    const ftl = async () =>
      ((await (await moat.api("/api/info/ftl")).json()) as { ftl: { dnsmasq: Record<string, number> } }).ftl.dnsmasq;
    const before = await ftl();
    const out = dev.exec([
      BUN,
      join(ROOT, "test/dhcp/raw-client.ts"),
      lan.hostIp,
      "300",
      ...bad.map((b) => b.toString("hex")),
      good.toString("hex"),
    ]);
    const replies = JSON.parse(out) as string[][];
    expect(replies.slice(0, bad.length)).toEqual(bad.map(() => []));
    const offer = readReply(replies[bad.length]![0]!);
    expect(offer).toMatchObject({ op: 2, xid: 0x1234, type: 2 });
    expect(await leases(moat)).toEqual([]);
    const after = await ftl();
    expect(after.dhcp_discover).toBe(before.dhcp_discover! + 1);
    expect(moat.output).not.toMatch(/error|exception/i);
  });
});
