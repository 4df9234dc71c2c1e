// Configuration replication across three real Moat nodes joined through a real redis-server: a
// change made on any node is answered by dig on the others; edits made at the same moment on two
// nodes both survive (different entries) or end alike everywhere (same entry); ids agree; a
// teleporter import on one node reaches all; GET /api/fleet shows who published what.
import { expect, test } from "bun:test";
import type { MoatProcess } from "../harness/moat.ts";
import { call } from "../lists/helpers.ts";
import { until } from "../dns/helpers.ts";
import { dig, fleetView, threeNodes, untilDig } from "./helpers.ts";

const FWD = "192.0.2.71";
const fleet = threeNodes(FWD);

test("a change on each node is answered by dig on the others", async () => {
  const [n1, n2, n3] = fleet.nodes as [MoatProcess, MoatProcess, MoatProcess];
  expect(await dig(n2, "ads.fleet.test")).toBe(FWD);
  // a deny entry on n1
  expect((await call(n1, "POST", "/api/domains/deny/exact", { domain: "ads.fleet.test" })).status).toBe(201);
  await Promise.all([untilDig(n2, "ads.fleet.test", "0.0.0.0"), untilDig(n3, "ads.fleet.test", "0.0.0.0")]);
  // a local DNS record (shared config) on n2
  expect((await call(n2, "PUT", "/api/config/dns/hosts/10.9.8.7%20printer.fleet.test")).status).toBe(201);
  await Promise.all([untilDig(n1, "printer.fleet.test", "10.9.8.7"), untilDig(n3, "printer.fleet.test", "10.9.8.7")]);
  // a group, a client in it and an entry for that group, all on n3; then the group disabled on n1
  const g = await call(n3, "POST", "/api/groups", { name: "fleet-kids" });
  expect(g.status).toBe(201);
  const gid = g.json.groups[0].id as number;
  expect((await call(n3, "POST", "/api/clients", { client: "127.0.0.1", groups: [0, gid] })).status).toBe(201);
  expect(
    (await call(n3, "POST", "/api/domains/deny/exact", { domain: "games.fleet.test", groups: [gid] })).status,
  ).toBe(201);
  await Promise.all([untilDig(n1, "games.fleet.test", "0.0.0.0"), untilDig(n2, "games.fleet.test", "0.0.0.0")]);
  await until(
    async () => (await call(n1, "GET", "/api/groups/fleet-kids")).json.groups?.[0]?.id === gid,
    8000,
    "group on n1",
  );
  expect((await call(n1, "PUT", "/api/groups/fleet-kids", { enabled: false })).status).toBe(200);
  await Promise.all([untilDig(n2, "games.fleet.test", FWD), untilDig(n3, "games.fleet.test", FWD)]);
  // a node-local key stays local
  expect(
    (
      await call(n1, "PATCH", "/api/config", {
        config: { dns: { cache: { optimizer: 100 }, reply: { host: { IPv4: "10.1.1.1" } } } },
      })
    ).status,
  ).toBe(200);
  await until(
    async () => (await call(n3, "GET", "/api/config/dns/cache/optimizer")).json.config.dns.cache.optimizer === 100,
    8000,
    "shared key on n3",
  );
  expect((await call(n3, "GET", "/api/config/dns/reply/host/IPv4")).json.config.dns.reply.host.IPv4).toBe("");
});

test("edits at the same moment on two nodes: both entries survive, one entry ends alike, ids agree", async () => {
  const [n1, n2, n3] = fleet.nodes as [MoatProcess, MoatProcess, MoatProcess];
  const [a, b] = await Promise.all([
    call(n1, "POST", "/api/domains/deny/exact", { domain: "one.race.fleet.test", comment: "from n1" }),
    call(n2, "POST", "/api/domains/deny/exact", { domain: "two.race.fleet.test", comment: "from n2" }),
  ]);
  expect([a.status, b.status]).toEqual([201, 201]);
  for (const n of fleet.nodes)
    await Promise.all([untilDig(n, "one.race.fleet.test", "0.0.0.0"), untilDig(n, "two.race.fleet.test", "0.0.0.0")]);
  // the same entry changed on two nodes at once: every node ends with the same comment
  await Promise.all([
    call(n1, "PUT", "/api/domains/deny/exact/one.race.fleet.test", { comment: "n1 says", enabled: true }),
    call(n3, "PUT", "/api/domains/deny/exact/one.race.fleet.test", { comment: "n3 says", enabled: true }),
  ]);
  const listOf = async (n: MoatProcess) =>
    JSON.stringify(
      ((await call(n, "GET", "/api/domains")).json.domains as Array<Record<string, unknown>>).map((d) => [
        d.id,
        d.domain,
        d.type,
        d.kind,
        d.comment,
        d.enabled,
        d.groups,
      ]),
    );
  await until(
    async () => {
      const [x, y, z] = await Promise.all(fleet.nodes.map(listOf));
      return x === y && y === z;
    },
    10000,
    "the same domain table on all nodes",
  );
  const final = JSON.parse(await listOf(n2)) as unknown[][];
  expect(["n1 says", "n3 says"]).toContain(final.find((d) => d[1] === "one.race.fleet.test")![4] as string);
  expect(final.filter((d) => String(d[1]).endsWith("race.fleet.test")).length).toBe(2);
});

test("GET /api/fleet: every node, its versions and who published the state in force", async () => {
  const [n1] = fleet.nodes as [MoatProcess];
  await until(
    async () => (await fleetView(n1)).nodes.filter((x: any) => x.healthy).length === 3,
    8000,
    "three healthy nodes",
  );
  const f = await fleetView(n1);
  expect(f.enabled).toBe(true);
  expect(f.node).toBe("n1");
  expect(f.connected).toBe(true);
  expect(f.nodes.map((x: any) => x.node)).toEqual(["n1", "n2", "n3"]);
  expect(["n1", "n2", "n3"]).toContain(f.kinds.lists.node);
  expect(f.kinds.lists.version).toBeGreaterThan(0);
  expect(f.kinds.lists.pending).toBe(false);
  expect(Math.abs(f.kinds.lists.at - Date.now() / 1000)).toBeLessThan(120);
  await until(async () => (await fleetView(n1)).nodes.every((x: any) => x.lag === 0), 8000, "no lag");
});

test("a teleporter import on one node reaches all", async () => {
  const [n1, n2, n3] = fleet.nodes as [MoatProcess, MoatProcess, MoatProcess];
  expect((await call(n1, "POST", "/api/domains/deny/exact", { domain: "saved.fleet.test" })).status).toBe(201);
  await untilDig(n3, "saved.fleet.test", "0.0.0.0");
  const backup = new Uint8Array(await (await n1.api("/api/teleporter")).arrayBuffer());
  expect((await call(n1, "DELETE", "/api/domains/deny/exact/saved.fleet.test")).status).toBe(204);
  await untilDig(n3, "saved.fleet.test", FWD);
  const fd = new FormData();
  fd.set("file", new Blob([backup], { type: "application/zip" }), "backup.zip");
  const r = await n2.api("/api/teleporter", { method: "POST", body: fd });
  expect(r.status).toBe(200);
  await r.arrayBuffer();
  await Promise.all([untilDig(n1, "saved.fleet.test", "0.0.0.0"), untilDig(n3, "saved.fleet.test", "0.0.0.0")]);
  // the shared settings of the backup came along; the importing node stays itself in the fleet
  expect((await call(n3, "GET", "/api/config/dns/hosts")).json.config.dns.hosts).toContain(
    "10.9.8.7 printer.fleet.test",
  );
  expect(await Bun.file(`${n2.dataDir}/pihole.toml`).text()).toContain('node = "n2"');
});
