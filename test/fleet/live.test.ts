// Live state across three real nodes and a real redis-server: the blocking switch and its timer,
// restartdns (the cache flush) and gravity once — one node downloads the lists, the others take
// the finished result (no download of their own) and block with it; only the lease holder runs
// the schedule.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { startRedis, type RedisServer } from "../harness/redis.ts";
import { call } from "../lists/helpers.ts";
import { until } from "../dns/helpers.ts";
import { dig, fleetView, startNodes, untilDig } from "./helpers.ts";
import { join } from "node:path";
import { buildSnapshotData, type BuildInfo } from "../../src/filter/build.ts";
import { POLICIES } from "../../src/policies/registry.ts";

const FWD = "192.0.2.72";
let redis: RedisServer;
let up: Upstream;
let nodes: MoatProcess[] = [];
let listHits = 0;
let lists: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      listHits++;
      return new Response("0.0.0.0 listed.fleet.test\n0.0.0.0 tracker.fleet.test\n");
    },
  });
  [redis, up] = await Promise.all([startRedis(), startUpstream({ addr: FWD })]);
  nodes = await startNodes(["n1", "n2", "n3"], { redis: redis.url, upstream: up.address });
}, 60000);
afterAll(async () => {
  await Promise.all([...nodes.map((n) => n.dispose()), up?.stop(), redis?.dispose()]);
  lists?.stop(true);
});

test("blocking off with a timer on one node: off on all, and back on everywhere when it ends", async () => {
  const [n1, n2, n3] = nodes as [MoatProcess, MoatProcess, MoatProcess];
  expect((await call(n1, "POST", "/api/domains/deny/exact", { domain: "pause.fleet.test" })).status).toBe(201);
  await untilDig(n3, "pause.fleet.test", "0.0.0.0");
  const r = await call(n2, "POST", "/api/dns/blocking", { blocking: false, timer: 4 });
  expect(r.json.blocking).toBe(false);
  await Promise.all([untilDig(n1, "pause.fleet.test", FWD), untilDig(n3, "pause.fleet.test", FWD)]);
  const b = (await call(n3, "GET", "/api/dns/blocking")).json;
  expect(b.blocking).toBe(false);
  expect(b.timer).toBeGreaterThan(0);
  expect(b.timer).toBeLessThanOrEqual(4);
  await Promise.all(nodes.map((n) => untilDig(n, "pause.fleet.test", "0.0.0.0", 10000)));
  for (const n of nodes)
    expect((await call(n, "GET", "/api/dns/blocking")).json).toMatchObject({ blocking: true, timer: null });
  // a plain switch without a timer, and back
  expect((await call(n3, "POST", "/api/dns/blocking", { blocking: false })).status).toBe(200);
  await untilDig(n1, "pause.fleet.test", FWD);
  expect((await call(n1, "POST", "/api/dns/blocking", { blocking: true })).status).toBe(200);
  await Promise.all([untilDig(n2, "pause.fleet.test", "0.0.0.0"), untilDig(n3, "pause.fleet.test", "0.0.0.0")]);
});

test("restartdns on one node flushes the cache of every node", async () => {
  const [n1, n2, n3] = nodes as [MoatProcess, MoatProcess, MoatProcess];
  expect(await dig(n3, "cached.fleet.test")).toBe(FWD);
  expect(await dig(n3, "cached.fleet.test")).toBe(FWD);
  expect(up.count("cached.fleet.test")).toBe(1);
  expect((await call(n1, "POST", "/api/action/restartdns")).status).toBe(200);
  await until(async () => n3.output.includes("restartdns from n1"), 8000, "n3 told of the restart");
  expect(await dig(n3, "cached.fleet.test")).toBe(FWD);
  expect(up.count("cached.fleet.test")).toBe(2);
  expect(await n2.outputWith("restartdns from n1")).toContain("restartdns from n1");
});

test("gravity once: one node downloads, the others take its result and block with it", async () => {
  const [n1, n2, n3] = nodes as [MoatProcess, MoatProcess, MoatProcess];
  const address = `http://127.0.0.1:${lists.port}/list.txt`;
  expect((await call(n2, "POST", "/api/lists?type=block", { address })).status).toBe(201);
  await until(async () => (await call(n1, "GET", "/api/lists")).json.lists?.length === 1, 8000, "the list on n1");
  const run = await n1.api("/api/action/gravity", { method: "POST" });
  expect(await run.text()).toContain("Done");
  expect(await dig(n1, "listed.fleet.test")).toBe("0.0.0.0");
  await Promise.all([untilDig(n2, "tracker.fleet.test", "0.0.0.0"), untilDig(n3, "listed.fleet.test", "0.0.0.0")]);
  expect(listHits).toBe(1);
  for (const n of [n2, n3])
    expect(await n.outputWith(/gravity version \d+ from n1 taken/)).toMatch(
      /gravity version \d+ from n1 taken \(2 rows, nothing downloaded\)/,
    );
  // the rows, their rowids and the run's token came with the snapshot file: it is used as it is
  for (const n of [n2, n3]) {
    const info = {} as BuildInfo;
    buildSnapshotData(join(n.dataDir, "gravity.db"), POLICIES.list, info);
    expect(info.source).toBe("file");
  }
  // the list's counts came along
  const l = (await call(n3, "GET", "/api/lists")).json.lists[0];
  expect(l.number).toBe(2);
  const f = await fleetView(n2);
  expect(["n1", "n2", "n3"]).toContain(f.gravity.leader);
  expect(f.gravity.version).toBeGreaterThan(0);
});

test("the schedule runs on the lease holder only", async () => {
  const [n1] = nodes as [MoatProcess];
  const leader = (await fleetView(n1)).gravity.leader as string;
  const before = listHits;
  expect((await call(n1, "PATCH", "/api/config", { config: { gravity: { updateInterval: 2 } } })).status).toBe(200);
  await until(async () => listHits >= before + 2, 15000, "two scheduled runs");
  expect((await call(n1, "PATCH", "/api/config", { config: { gravity: { updateInterval: 0 } } })).status).toBe(200);
  await nodes[["n1", "n2", "n3"].indexOf(leader)]?.outputWith("gravity update started (schedule)");
  const ran = ["n1", "n2", "n3"].filter((_, i) => nodes[i]!.output.includes("gravity update started (schedule)"));
  expect(ran).toEqual([leader]);
});
