// Read-your-writes: once the API has answered a change, the very next DNS query sees it. Each
// check asks once, right after the reply, with no retry: domains, their enabled state, groups,
// clients, a list's enabled state and a gravity run, local records and the blocking switch.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress } from "../dns/helpers.ts";
import { call } from "./helpers.ts";

const FWD = "192.0.2.44";
let moat: MoatProcess;
let up: Upstream;
let lists: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  lists = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("0.0.0.0 listed.ryw.test\n") });
  up = await startUpstream({ addr: FWD });
  moat = await startMoat({ env: { FTLCONF_dns_upstreams: up.address, FTLCONF_dns_rateLimit_count: "0" } });
});
afterAll(async () => {
  await Promise.all([moat?.dispose(), up?.stop()]);
  lists?.stop(true);
});

/** The address DNS gives now, asked once. */
const now = async (name: string, from = "127.0.0.1") => firstAddress(await ask(moat.dnsPort, name, { from }));

test("domain entries: add, disable, enable, delete", async () => {
  expect(await now("ads.ryw.test")).toBe(FWD);
  expect((await call(moat, "POST", "/api/domains/deny/exact", { domain: "ads.ryw.test" })).status).toBe(201);
  expect(await now("ads.ryw.test")).toBe("0.0.0.0");
  expect((await call(moat, "PUT", "/api/domains/deny/exact/ads.ryw.test", { enabled: false })).status).toBe(200);
  expect(await now("ads.ryw.test")).toBe(FWD);
  expect((await call(moat, "PUT", "/api/domains/deny/exact/ads.ryw.test", { enabled: true })).status).toBe(200);
  expect(await now("ads.ryw.test")).toBe("0.0.0.0");
  expect((await call(moat, "DELETE", "/api/domains/deny/exact/ads.ryw.test")).status).toBe(204);
  expect(await now("ads.ryw.test")).toBe(FWD);
  expect((await call(moat, "POST", "/api/domains/deny/regex", { domain: "^track[0-9]+\\.ryw\\.test$" })).status).toBe(
    201,
  );
  expect(await now("track42.ryw.test")).toBe("0.0.0.0");
});

test("groups and clients: a client joins a group, the group is disabled", async () => {
  const g = await call(moat, "POST", "/api/groups", { name: "ryw-kids" });
  expect(g.status).toBe(201);
  const gid = g.json.groups[0].id as number;
  expect(
    (await call(moat, "POST", "/api/domains/deny/exact", { domain: "games.ryw.test", groups: [gid] })).status,
  ).toBe(201);
  // 127.0.0.2 is in no group of its own yet: Default only, where the entry does not apply
  expect(await now("games.ryw.test", "127.0.0.2")).toBe(FWD);
  expect((await call(moat, "POST", "/api/clients", { client: "127.0.0.2", groups: [gid] })).status).toBe(201);
  expect(await now("games.ryw.test", "127.0.0.2")).toBe("0.0.0.0");
  expect(await now("games.ryw.test", "127.0.0.1")).toBe(FWD);
  expect((await call(moat, "PUT", "/api/groups/ryw-kids", { enabled: false })).status).toBe(200);
  expect(await now("games.ryw.test", "127.0.0.2")).toBe(FWD);
  expect((await call(moat, "PUT", "/api/groups/ryw-kids", { enabled: true })).status).toBe(200);
  expect(await now("games.ryw.test", "127.0.0.2")).toBe("0.0.0.0");
  expect((await call(moat, "DELETE", "/api/clients/127.0.0.2")).status).toBe(204);
  expect(await now("games.ryw.test", "127.0.0.2")).toBe(FWD);
});

test("lists: a gravity run, then the list disabled and enabled", async () => {
  const address = `http://127.0.0.1:${lists.port}/list.txt`;
  expect((await call(moat, "POST", "/api/lists?type=block", { address })).status).toBe(201);
  const run = await moat.api("/api/action/gravity", { method: "POST" });
  expect(await run.text()).toContain("Done");
  expect(await now("listed.ryw.test")).toBe("0.0.0.0");
  const item = `/api/lists/${encodeURIComponent(address)}?type=block`;
  expect((await call(moat, "PUT", item, { enabled: false })).status).toBe(200);
  expect(await now("listed.ryw.test")).toBe(FWD);
  expect((await call(moat, "PUT", item, { enabled: true })).status).toBe(200);
  expect(await now("listed.ryw.test")).toBe("0.0.0.0");
});

test("local records and the blocking switch", async () => {
  expect((await call(moat, "PUT", "/api/config/dns/hosts/10.9.8.7%20nas.ryw.test")).status).toBe(201);
  expect(await now("nas.ryw.test")).toBe("10.9.8.7");
  expect(
    (await call(moat, "PATCH", "/api/config", { config: { dns: { cnameRecords: ["alias.ryw.test,nas.ryw.test"] } } }))
      .status,
  ).toBe(200);
  expect((await ask(moat.dnsPort, "alias.ryw.test")).answers.map((a) => a.type)).toEqual(["CNAME", "A"]);
  expect((await call(moat, "DELETE", "/api/config/dns/hosts/10.9.8.7%20nas.ryw.test")).status).toBe(204);
  expect(await now("nas.ryw.test")).toBe(FWD);
  expect(await now("track7.ryw.test")).toBe("0.0.0.0");
  expect((await call(moat, "POST", "/api/dns/blocking", { blocking: false })).status).toBe(200);
  expect(await now("track7.ryw.test")).toBe(FWD);
  expect((await call(moat, "POST", "/api/dns/blocking", { blocking: true })).status).toBe(200);
  expect(await now("track7.ryw.test")).toBe("0.0.0.0");
});
