// Forwarding features around the upstreams, against the real server and two real upstream processes:
// answers in which an upstream blocked a name itself, conditional forwarding (dns.revServers), the EDNS
// client subnet as the client (dns.EDNS0ECS), the listening modes and port changed live, and the TCP
// idle timeout.
import * as packet from "dns-packet";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, decodeReply, firstAddress, sendUdp, until } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;
let router: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.40" });
  router = await startUpstream({ addr: "192.168.55.1" });
  const port = await freePort();
  moat = await startMoat({
    dnsPortInConfig: port,
    configToml: `
[dns]
port = ${port}
upstreams = ["${up.address}"]
revServers = ["true,192.168.55.0/24,${router.address},fritz.box", "false,10.9.0.0/16,${router.address},off.example"]
`,
  });
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
  await router?.stop();
});

async function setConfig(config: unknown): Promise<void> {
  const r = await moat.api("/api/config", { method: "PATCH", body: JSON.stringify({ config }) });
  expect([r.status, r.status === 200 ? "" : await r.text()]).toEqual([200, ""]);
}

/** The newest query-log row for a domain. */
async function logged(domain: string): Promise<{ status: string; client: { ip: string }; upstream: string | null }> {
  const r = await moat.api(`/api/queries?domain=${encodeURIComponent(domain)}&length=1`);
  expect(r.status).toBe(200);
  const rows = (
    (await r.json()) as { queries: Array<{ status: string; client: { ip: string }; upstream: string | null }> }
  ).queries;
  expect(rows.length).toBe(1);
  return rows[0]!;
}

test("answers in which the upstream blocked the name get the EXTERNAL_BLOCKED statuses, from the cache too", async () => {
  const cases: Array<[string, string]> = [
    ["null-a.test", "EXTERNAL_BLOCKED_NULL"],
    ["umbrella-a.test", "EXTERNAL_BLOCKED_IP"],
    ["nxra-a.test", "EXTERNAL_BLOCKED_NXRA"],
    ["ede15-a.test", "EXTERNAL_BLOCKED_EDE15"],
    ["plain-a.test", "FORWARDED"],
    ["nx-a.test", "FORWARDED"],
  ];
  for (const [name] of cases) await ask(moat.dnsPort, name);
  for (const [name, status] of cases) expect([name, (await logged(name)).status]).toEqual([name, status]);
  // the second query comes from the cache and keeps the upstream's verdict
  expect(firstAddress(await ask(moat.dnsPort, "null-a.test"))).toBe("0.0.0.0");
  expect(up.count("null-a.test")).toBe(1);
  expect((await logged("null-a.test")).status).toBe("EXTERNAL_BLOCKED_NULL");
  expect((await logged("plain-a.test")).status).toBe("FORWARDED");
  const summary = (await (await moat.api("/api/stats/summary")).json()) as { queries: { blocked: number } };
  expect(summary.queries.blocked).toBeGreaterThanOrEqual(5);
});

test("conditional forwarding: the local domain and the network's PTRs go to the router, the rest upstream", async () => {
  expect(firstAddress(await ask(moat.dnsPort, "nas.fritz.box"))).toBe("192.168.55.1");
  expect(router.count("nas.fritz.box")).toBe(1);
  expect(up.count("nas.fritz.box")).toBe(0);
  // bogusPriv would answer this private PTR with NXDOMAIN itself; the router answers it (NODATA here)
  const ptr = await ask(moat.dnsPort, "7.55.168.192.in-addr.arpa", { type: "PTR" });
  expect(ptr.rcode).toBe("NOERROR");
  expect(router.count("7.55.168.192.in-addr.arpa")).toBe(1);
  // a private PTR outside the network, and a disabled entry's domain, are not forwarded there
  expect((await ask(moat.dnsPort, "7.56.168.192.in-addr.arpa", { type: "PTR" })).rcode).toBe("NXDOMAIN");
  expect(firstAddress(await ask(moat.dnsPort, "host.off.example"))).toBe("192.0.2.40");
  expect(router.count("7.56.168.192.in-addr.arpa") + router.count("host.off.example")).toBe(0);
  expect(firstAddress(await ask(moat.dnsPort, "elsewhere.example"))).toBe("192.0.2.40");
  const ups = (await (await moat.api("/api/stats/upstreams")).json()) as {
    upstreams: Array<{ port: number; count: number }>;
  };
  expect(ups.upstreams.find((u) => u.port === router.port)?.count).toBeGreaterThanOrEqual(2);
});

function queryWithEcs(name: string, ip: string, prefix: number): Uint8Array {
  return packet.encode({
    type: "query",
    id: 4242,
    flags: packet.RECURSION_DESIRED,
    questions: [{ type: "A", name, class: "IN" }],
    additionals: [
      {
        type: "OPT",
        name: ".",
        udpPayloadSize: 1232,
        options: [{ code: "CLIENT_SUBNET", ip, sourcePrefixLength: prefix, scopePrefixLength: 0 }],
      } as unknown as packet.Answer,
    ],
  });
}

test("EDNS0ECS: from a trusted sender a /32 client subnet is the client; a wider subnet, the setting off, or an untrusted sender keeps the sender", async () => {
  await sendUdp(moat.dnsPort, queryWithEcs("ecs-untrusted.test", "127.0.0.76", 32));
  expect((await logged("ecs-untrusted.test")).client.ip).toBe("127.0.0.1");
  await setConfig({ dns: { ecs: { trustedSources: ["127.0.0.0/30"] } } });
  const a = decodeReply((await sendUdp(moat.dnsPort, queryWithEcs("ecs-host.test", "127.0.0.77", 32)))!);
  expect(firstAddress(a)).toBe("192.0.2.40");
  expect((await logged("ecs-host.test")).client.ip).toBe("127.0.0.77");
  await sendUdp(moat.dnsPort, queryWithEcs("ecs-net.test", "10.1.2.0", 24));
  expect((await logged("ecs-net.test")).client.ip).toBe("127.0.0.1");
  await setConfig({ dns: { EDNS0ECS: false } });
  await sendUdp(moat.dnsPort, queryWithEcs("ecs-off.test", "127.0.0.78", 32));
  expect((await logged("ecs-off.test")).client.ip).toBe("127.0.0.1");
  await setConfig({ dns: { EDNS0ECS: true, ecs: { trustedSources: [] } } });
});

test("listening modes and the port change live: BIND on lo answers on its addresses only; a new port takes over", async () => {
  const probe = (host: string, port = moat.dnsPort) =>
    sendUdp(
      port,
      packet.encode({
        type: "query",
        id: 7,
        flags: packet.RECURSION_DESIRED,
        questions: [{ type: "A", name: "mode.test", class: "IN" }],
      }),
      "127.0.0.1",
      700,
      host,
    );
  expect(await probe("127.0.0.2")).not.toBeNull(); // the wildcard socket covers every loopback address
  await setConfig({ dns: { listeningMode: "BIND", interface: "lo" } });
  await until(async () => (await probe("127.0.0.2")) === null, 10000, "127.0.0.2 to stop answering");
  expect(await probe("127.0.0.1")).not.toBeNull();
  await setConfig({ dns: { listeningMode: "LOCAL", interface: "" } });
  await until(async () => (await probe("127.0.0.2")) !== null, 10000, "127.0.0.2 to answer again");
  const next = await freePort();
  await setConfig({ dns: { port: next } });
  await until(async () => (await probe("127.0.0.1", next)) !== null, 10000, "the new port to answer");
  expect(await probe("127.0.0.1", moat.dnsPort)).toBeNull();
  await setConfig({ dns: { port: moat.dnsPort } });
  await until(async () => (await probe("127.0.0.1")) !== null, 10000, "the old port to answer again");
});

test("TCP: a connection that stays idle is closed by the server", async () => {
  let closed = false;
  const opened = Date.now();
  await Bun.connect({
    hostname: "127.0.0.1",
    port: moat.dnsPort,
    socket: {
      data() {},
      close() {
        closed = true;
      },
    },
  });
  await until(async () => closed, 30_000, "the idle TCP connection to be closed");
  // not before the idle timeout (10 s): an active client is never cut off early
  expect(Date.now() - opened).toBeGreaterThanOrEqual(9_000);
}, 40_000);
