// dhcp.rapidCommit (RFC 4039: DISCOVER straight to ACK) and dhcp.ignoreUnknownClients (only the MACs in
// dhcp.hosts are served), checked byte by byte with a raw client.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT, startMoat, type MoatProcess } from "../harness/moat.ts";
import { canMakeNamespaces, TestLan, waitFor } from "./lan.ts";
import { dhcpMessage, readReply } from "./build.ts";

let lan: TestLan | null = null;
let moat: MoatProcess | null = null;
afterEach(async () => {
  await moat?.dispose();
  await lan?.dispose();
  moat = lan = null;
});

async function serve(extra: (prefix: string) => string) {
  lan = new TestLan().up();
  moat = await startMoat({
    configToml: `[dhcp]\nactive = true\nstart = "${lan.prefix}.100"\nend = "${lan.prefix}.120"\n${extra(lan.prefix)}\n`,
  });
  await waitFor(() => moat!.output.includes("DHCP: serving"), 10000, "DHCP to start");
  const dev = lan.addDevice("02:00:00:00:51:01");
  dev.exec(["ip", "addr", "add", `${lan.prefix}.200/24`, "dev", "eth0"]);
  const send = (packets: Buffer[]) =>
    JSON.parse(
      dev.exec([
        BUN,
        join(ROOT, "test/dhcp/raw-client.ts"),
        lan!.hostIp,
        "1500",
        ...packets.map((p) => p.toString("hex")),
      ]),
    ) as string[][];
  return { lan, moat, send };
}

const leases = async (m: MoatProcess) =>
  ((await (await m.api("/api/dhcp/leases")).json()) as { leases: Array<{ ip: string; hwaddr: string }> }).leases;

describe.skipIf(!canMakeNamespaces())("DHCP options", () => {
  test("rapidCommit: a DISCOVER with option 80 gets an ACK with option 80 and a lease; without it, an OFFER", async () => {
    const { moat, send } = await serve(() => "rapidCommit = true");
    const [[rapid], [plain]] = send([
      dhcpMessage({ xid: 0x80, mac: "02:00:00:00:51:0a", type: 1, options: [[80, 0]] }),
      dhcpMessage({ xid: 0x81, mac: "02:00:00:00:51:0b", type: 1 }),
    ]) as [[string], [string]];
    const ack = readReply(rapid);
    expect(ack).toMatchObject({ op: 2, xid: 0x80, type: 5 });
    expect(ack.options.get(80)?.length).toBe(0);
    expect(readReply(plain)).toMatchObject({ xid: 0x81, type: 2 });
    expect(readReply(plain).options.has(80)).toBe(false);
    expect((await leases(moat)).map((l) => [l.hwaddr, l.ip])).toEqual([["02:00:00:00:51:0a", ack.yiaddr]]);
  });

  test("ignoreUnknownClients: only a MAC in dhcp.hosts gets an offer", async () => {
    const { lan, send } = await serve(
      (p) => `ignoreUnknownClients = true\nhosts = ["02:00:00:00:51:0c,${p}.105,known"]`,
    );
    const [unknown, [known]] = send([
      dhcpMessage({ xid: 0x90, mac: "02:00:00:00:51:0d", type: 1 }),
      dhcpMessage({ xid: 0x91, mac: "02:00:00:00:51:0c", type: 1 }),
    ]) as [string[], [string]];
    expect(unknown).toEqual([]);
    expect(readReply(known)).toMatchObject({ xid: 0x91, type: 2, yiaddr: `${lan.prefix}.105` });
  });
});
