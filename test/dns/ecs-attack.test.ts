// Attack: a client that puts an EDNS client subnet (ECS) into its queries must not become another
// client. It stays in its own group (a child's device cannot leave the "kids" group), under its own
// rate limit, and the statistics show it, not the addresses it made up. A sender listed in
// dns.ecs.trustedSources (a router or proxy in front of Moat) does name the client with ECS.
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as packet from "dns-packet";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "../lists/helpers.ts";
import { decodeReply, firstAddress, sendUdp, until } from "./helpers.ts";

const FWD = "192.0.2.88";
const KID = "127.0.0.42",
  OTHER = "127.0.0.43",
  FLOODER = "127.0.0.44",
  PROXY = "127.0.0.45";
let moat: MoatProcess;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: FWD });
  moat = await startMoat({
    configToml: `
[dns]
upstreams = ["${up.address}"]
[dns.ecs]
trustedSources = ["${PROXY}"]
[dns.rateLimit]
count = 20
interval = 60
`,
  });
  const g = await call(moat, "POST", "/api/groups", { name: "kids" });
  expect(g.status).toBe(201);
  const kids = g.json.groups[0].id;
  expect(
    (await call(moat, "POST", "/api/domains/deny/exact", { domain: "games.ecs.test", groups: [kids] })).status,
  ).toBe(201);
  expect((await call(moat, "POST", "/api/clients", { client: KID, groups: [kids] })).status).toBe(201);
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

let id = 1;
function withEcs(name: string, ip: string | null): Uint8Array {
  const options = ip ? [{ code: "CLIENT_SUBNET", ip, sourcePrefixLength: 32, scopePrefixLength: 0 }] : [];
  return packet.encode({
    type: "query",
    id: id++,
    flags: packet.RECURSION_DESIRED,
    questions: [{ type: "A", name, class: "IN" }],
    additionals: [{ type: "OPT", name: ".", udpPayloadSize: 1232, options } as unknown as packet.Answer],
  });
}

async function askAs(from: string, name: string, ecs: string | null) {
  const raw = await sendUdp(moat.dnsPort, withEcs(name, ecs), from, 5000);
  expect(raw).not.toBeNull();
  return decodeReply(raw!);
}

test("a child's device claiming another address with ECS stays in its group: still blocked", async () => {
  await until(
    async () => firstAddress(await askAs(KID, "games.ecs.test", null)) === "0.0.0.0",
    15000,
    "the kids block",
  );
  expect(firstAddress(await askAs(OTHER, "games.ecs.test", null))).toBe(FWD);
  for (const claim of [OTHER, "10.66.0.1", "192.168.1.1"])
    expect(firstAddress(await askAs(KID, "games.ecs.test", claim))).toBe("0.0.0.0");
  // a trusted proxy may say the query is the kid's, or another device's
  expect(firstAddress(await askAs(PROXY, "games.ecs.test", KID))).toBe("0.0.0.0");
  expect(firstAddress(await askAs(PROXY, "games.ecs.test", OTHER))).toBe(FWD);
});

test("a new made-up address in every query does not walk around the rate limit", async () => {
  const rcodes: string[] = [];
  for (let i = 0; i < 30; i++) rcodes.push((await askAs(FLOODER, `flood-${i}.ecs.test`, `10.66.1.${i + 1}`)).rcode);
  expect(rcodes.slice(0, 20).every((r) => r === "NOERROR")).toBe(true);
  expect(rcodes.slice(20).every((r) => r === "REFUSED")).toBe(true);
});

test("the statistics show the sender, not the clients it invented; a trusted proxy's ECS names the client", async () => {
  await askAs(PROXY, "via-proxy.ecs.test", "10.77.0.9");
  let clients: string[] = [];
  await until(
    async () => {
      const r = await call(moat, "GET", "/api/queries?length=1000");
      clients = [...new Set<string>(r.json.queries.map((q: { client: { ip: string } }) => q.client.ip))];
      return clients.includes("10.77.0.9");
    },
    15000,
    "the proxied query in the log",
  );
  expect(clients.filter((c) => c.startsWith("10.66.") || c === "192.168.1.1")).toEqual([]);
  expect(clients).toEqual(expect.arrayContaining([KID, FLOODER]));
  const top = await call(moat, "GET", "/api/stats/top_clients?count=100");
  expect(top.json.clients.map((c: { ip: string }) => c.ip).filter((ip: string) => ip.startsWith("10.66."))).toEqual([]);
});
