// Client names, DataTables ordering and webserver.api.excludeDomains / excludeClients against the
// real server: the known records are imported from the long-term database at start, the network
// table names one client, and the exclusions are set through PATCH /api/config.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { getJson, knownRecords, seededDataDir } from "./fixture.ts";

const NOW = Math.floor(Date.now() / 1000);
let moat: MoatProcess;
let dir: string;

beforeAll(async () => {
  dir = seededDataDir(knownRecords(NOW));
  const db = new Database(join(dir, "pihole-FTL.db"));
  db.run(
    "INSERT INTO network (id, hwaddr, interface, firstSeen, lastQuery, numQueries) VALUES (1, 'aa:bb:cc:dd:ee:ff', 'eth0', ?, ?, 7)",
    [NOW - 3600, NOW],
  );
  db.run(
    "INSERT INTO network_addresses (network_id, ip, lastSeen, name, nameUpdated) VALUES (1, '127.0.0.2', ?, 'laptop.lan', ?)",
    [NOW, NOW],
  );
  db.close();
  moat = await startMoat({ dataDir: dir });
}, 30_000);
afterAll(async () => {
  await moat?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, status = 200) => getJson(moat, path, status);
async function setExcludes(excludeDomains: string[], excludeClients: string[]): Promise<void> {
  const r = await moat.api("/api/config", {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ config: { webserver: { api: { excludeDomains, excludeClients } } } }),
  });
  expect(r.status).toBe(200);
}
const range = `from=${NOW - 86400}&until=${NOW + 60}`;

test("client names from the network table in top clients, history and the query log", async () => {
  expect((await get("/api/stats/top_clients")).clients).toEqual([
    { ip: "127.0.0.1", name: "", count: 10 },
    { ip: "127.0.0.2", name: "laptop.lan", count: 7 },
    { ip: "127.0.0.3", name: "", count: 3 },
  ]);
  expect((await get(`/api/stats/database/top_clients?${range}`)).clients[1]).toEqual({
    ip: "127.0.0.2",
    name: "laptop.lan",
    count: 7,
  });
  expect((await get("/api/history/clients")).clients["127.0.0.2"]).toEqual({ name: "laptop.lan", total: 7 });
  expect((await get(`/api/history/database/clients?${range}`)).clients["127.0.0.2"]).toEqual({
    name: "laptop.lan",
    total: 7,
  });
  const q = await get("/api/queries?client_ip=127.0.0.2");
  expect(q.queries.length).toBe(7);
  expect(q.queries.every((x: any) => x.client.name === "laptop.lan")).toBe(true);
  // the name filter finds the client by its network name
  const byName = await get("/api/queries?client_name=LAPTOP*");
  expect(byName.recordsFiltered).toBe(7);
  expect(new Set(byName.queries.map((x: any) => x.client.ip))).toEqual(new Set(["127.0.0.2"]));
  expect((await get("/api/queries?client_name=desktop*")).recordsFiltered).toBe(0);
});

test("DataTables ordering by a named column, both directions; unknown columns keep newest first", async () => {
  const order = (col: number, data: string, dir: string) =>
    `order%5B0%5D%5Bcolumn%5D=${col}&order%5B0%5D%5Bdir%5D=${dir}&columns%5B${col}%5D%5Bdata%5D=${data}`;
  const asc = (await get(`/api/queries?${order(2, "domain", "asc")}`)).queries.map((x: any) => x.domain);
  expect(asc).toEqual([...asc].sort());
  expect(asc[0]).toBe("a.example");
  const desc = (await get(`/api/queries?${order(2, "domain", "desc")}`)).queries.map((x: any) => x.domain);
  expect(desc[0]).toBe("track.example");
  expect(desc).toEqual([...desc].sort().reverse());
  const rt = (await get(`/api/queries?${order(7, "reply.time", "descending")}`)).queries.map((x: any) => x.reply.time);
  expect(rt[0]).toBeCloseTo(0.03, 6);
  expect(rt).toEqual([...rt].sort((a, b) => b - a));
  const def = (await get("/api/queries")).queries.map((x: any) => x.id);
  expect((await get(`/api/queries?${order(2, "nonsense", "asc")}`)).queries.map((x: any) => x.id)).toEqual(def);
  expect(def).toEqual([...def].sort((a, b) => b - a));
});

test("excludeDomains and excludeClients hide rows from the top lists and the query log", async () => {
  await setExcludes(["^ads\\.", "^C\\.EXAMPLE$"], ["laptop"]);
  try {
    const top = await get("/api/stats/top_domains");
    expect(top.domains).toEqual([
      { domain: "a.example", count: 8 },
      { domain: "b.example", count: 4 },
    ]);
    // the totals stay those of all queries, as in Pi-hole
    expect(top).toMatchObject({ total_queries: 20, blocked_queries: 6 });
    expect((await get("/api/stats/top_domains?blocked=true")).domains.map((x: any) => x.domain)).toEqual([
      "track.example",
      "cdn.example",
    ]);
    // 127.0.0.2 is hidden by its network name
    expect((await get("/api/stats/top_clients")).clients.map((x: any) => x.ip)).toEqual(["127.0.0.1", "127.0.0.3"]);
    const q = await get("/api/queries?length=100");
    // 20 - 7 (laptop, which also sent every ads.example query) - 2 (c.example)
    expect(q.recordsFiltered).toBe(11);
    expect(q.queries.length).toBe(11);
    expect(
      q.queries.some((x: any) => x.domain === "ads.example" || x.domain === "c.example" || x.client.ip === "127.0.0.2"),
    ).toBe(false);
    expect(q.recordsTotal).toBe(20);
    // the long-term log, read on a thread of its own, hides the same rows (the network's names included)
    const d = await get("/api/queries?length=100&disk=true");
    expect(d.recordsFiltered).toBe(11);
    expect(d.queries.map((x: any) => x.id)).toEqual(q.queries.map((x: any) => x.id));
    expect(d.queries.find((x: any) => x.client.ip === "127.0.0.1")?.client).toEqual(
      q.queries.find((x: any) => x.client.ip === "127.0.0.1")?.client,
    );
    // a regex that does not compile: the query log refuses like Pi-hole, the top lists ignore it
    await setExcludes(["("], []);
    const bad = await moat.api("/api/queries");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toMatchObject({
      key: "bad_request",
      message: "Failed to compile regex",
      hint: "(",
    });
    expect((await get("/api/stats/top_domains")).domains.length).toBe(3);
  } finally {
    await setExcludes([], []);
  }
  expect((await get("/api/queries")).recordsFiltered).toBe(20);
});
