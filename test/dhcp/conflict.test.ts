// An address some device already uses (set by hand, unknown to the server) is never handed out: the
// server pings each address before offering it.
import { afterEach, describe, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { canMakeNamespaces, startRogueServer, TestLan, waitFor } from "./lan.ts";
import { Udhcpc } from "./clients.ts";

let lan: TestLan | null = null;
let moat: MoatProcess | null = null;
afterEach(async () => {
  await moat?.dispose();
  await lan?.dispose();
  moat = lan = null;
});

describe.skipIf(!canMakeNamespaces())("address conflicts", () => {
  test("an address in use by a device with a static address is skipped, even when the pool then runs out", async () => {
    lan = new TestLan().up();
    moat = await startMoat({
      configToml: `[dhcp]\nactive = true\nstart = "${lan.prefix}.100"\nend = "${lan.prefix}.101"\n`,
    });
    await waitFor(() => moat!.output.includes("DHCP: serving"), 10000, "DHCP to start");
    const squatter = lan.addDevice("02:00:00:00:31:01");
    squatter.exec(["ip", "addr", "add", `${lan.prefix}.100/24`, "dev", "eth0"]);

    // whichever address the pool would pick first, the only free one is .101 ...
    const a = new Udhcpc(lan, lan.addDevice("02:00:00:00:31:02"), null);
    expect(a.once()).toBe(true);
    expect(a.told().find((t) => t.event === "bound")!.ip).toBe(`${lan.prefix}.101`);
    // ... and after it, none: .100 is not offered to anyone
    const b = new Udhcpc(lan, lan.addDevice("02:00:00:00:31:03"), null);
    expect(b.once()).toBe(false);
    await waitFor(
      () => moat!.output.includes(`${lan!.prefix}.100 is in use on ${lan!.bridge} but not leased`),
      5000,
      "the conflict to be logged",
    );
    const r = (await (await moat.api("/api/dhcp/leases")).json()) as { leases: Array<{ ip: string }> };
    expect(r.leases.map((l) => l.ip)).toEqual([`${lan.prefix}.101`]);
  });
});

type Detected = {
  interfaces: string[];
  servers: Array<{ interface: string; address: string }>;
  problem: string | null;
};
const detect = async (m: MoatProcess, body?: unknown) =>
  (await (
    await m.api("/api/dhcp/detect", { method: "POST", ...(body ? { body: JSON.stringify(body) } : {}) })
  ).json()) as Detected;

describe.skipIf(!canMakeNamespaces())("another DHCP server", () => {
  test("is detected when DHCP starts: a warning in the log and in /api/info/messages", async () => {
    lan = new TestLan().up();
    await startRogueServer(lan, "02:00:00:00:32:01");
    moat = await startMoat({
      configToml: `[dhcp]\nactive = true\nstart = "${lan.prefix}.100"\nend = "${lan.prefix}.120"\n`,
    });
    const expected = `Another DHCP server answers on ${lan.bridge}: ${lan.prefix}.2.`;
    await waitFor(() => moat!.output.includes(expected), 12000, "the other server to be reported");
    const r = (await (await moat.api("/api/info/messages")).json()) as {
      messages: Array<{ type: string; plain: string }>;
    };
    expect(r.messages.filter((m) => m.plain.startsWith(expected))).toHaveLength(1);
    expect(r.messages.find((m) => m.plain.startsWith(expected))!.type).toBe("DNSMASQ_WARN");
    // our own probe got no lease from ourselves
    expect(((await (await moat.api("/api/dhcp/leases")).json()) as { leases: unknown[] }).leases).toEqual([]);
  });

  test("alone on the network, nothing is reported", async () => {
    lan = new TestLan().up();
    lan.addDevice("02:00:00:00:32:02");
    moat = await startMoat({
      configToml: `[dhcp]\nactive = true\nstart = "${lan.prefix}.100"\nend = "${lan.prefix}.120"\n`,
    });
    await waitFor(() => moat!.output.includes("DHCP: serving"), 10000, "DHCP to start");
    await Bun.sleep(5500); // the probe's whole wait
    expect(moat.output).not.toContain("Another DHCP server");
    const r = (await (await moat.api("/api/info/messages")).json()) as { messages: Array<{ plain: string }> };
    expect(r.messages.filter((m) => m.plain.includes("DHCP"))).toEqual([]);
  });

  test("is asked for on demand while DHCP is off, for the range about to be served", async () => {
    lan = new TestLan().up();
    await startRogueServer(lan, "02:00:00:00:32:03");
    moat = await startMoat();
    expect((await detect(moat)).problem).toBe("dhcp.start and dhcp.end must be set");
    // the end of the shared address space (RFC 6598): no test's interface holds it
    expect((await detect(moat, { start: "100.127.254.10", end: "100.127.254.20" })).problem).toBe(
      "no interface has an IPv4 network holding 100.127.254.10-100.127.254.20",
    );
    const bad = await moat.api("/api/dhcp/detect", {
      method: "POST",
      body: JSON.stringify({ start: "10.0.0", end: "x" }),
    });
    expect(bad.status).toBe(400);
    const found = await detect(moat, { start: `${lan.prefix}.100`, end: `${lan.prefix}.120` });
    expect(found).toMatchObject({
      interfaces: [lan.bridge],
      servers: [{ interface: lan.bridge, address: `${lan.prefix}.2` }],
      problem: null,
    });
    // a finding is also a message, once however often it is asked
    await detect(moat, { start: `${lan.prefix}.100`, end: `${lan.prefix}.120` });
    const r = (await (await moat.api("/api/info/messages")).json()) as { messages: Array<{ plain: string }> };
    expect(r.messages.filter((m) => m.plain.startsWith(`Another DHCP server answers on ${lan!.bridge}`))).toHaveLength(
      1,
    );
    expect(moat.output).not.toContain("DHCP: serving");
  });

  test("asked on demand alone on the network, finds none", async () => {
    lan = new TestLan().up();
    lan.addDevice("02:00:00:00:32:04");
    moat = await startMoat();
    expect(await detect(moat, { start: `${lan.prefix}.100`, end: `${lan.prefix}.120` })).toMatchObject({
      interfaces: [lan.bridge],
      servers: [],
      problem: null,
    });
  });
});
