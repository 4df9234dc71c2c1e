// Client host names (resolver.*): a client's address is named by a PTR lookup through Moat's own
// chain (here the local record dns.hosts gives it), and a client entry given as that host name then
// puts the client's queries in its groups. Real DNS from loopback aliases, real API.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "../lists/helpers.ts";
import { ask, firstAddress, until } from "./helpers.ts";

const FWD = "192.0.2.45";
let moat: MoatProcess;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: FWD });
  moat = await startMoat({
    configToml: `[dns]\nupstreams = ["${up.address}"]\nhosts = ["127.0.0.42 kidslaptop", "127.0.0.43 parentsdesk"]\n`,
  });
  const g = await call(moat, "POST", "/api/groups", { name: "kids" });
  expect(g.status).toBe(201);
  const kids = g.json.groups[0].id;
  expect((await call(moat, "POST", "/api/domains/deny/exact", { domain: "games.test", groups: [kids] })).status).toBe(
    201,
  );
  expect((await call(moat, "POST", "/api/clients", { client: "kidslaptop", groups: [kids] })).status).toBe(201);
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

test("a client entry by host name applies once the client's PTR name is known", async () => {
  const games = async (from: string) => firstAddress(await ask(moat.dnsPort, "games.test", { from }));
  // the first queries make the clients known; their names follow within a scan or two
  expect(await games("127.0.0.43")).toBe(FWD);
  await until(async () => (await games("127.0.0.42")) === "0.0.0.0", 20_000, "kidslaptop to be in the kids group");
  expect(await games("127.0.0.43")).toBe(FWD);
  // the names show in the statistics, and the lookups themselves are not in the query log
  const top = await call(moat, "GET", "/api/stats/top_clients");
  const names = Object.fromEntries(
    (top.json.clients as Array<{ ip: string; name: string | null }>).map((c) => [c.ip, c.name]),
  );
  expect(names["127.0.0.42"]).toBe("kidslaptop");
  expect(names["127.0.0.43"]).toBe("parentsdesk");
  const log = await call(moat, "GET", "/api/queries?domain=*in-addr.arpa");
  expect(log.json.queries).toEqual([]);
}, 30_000);
