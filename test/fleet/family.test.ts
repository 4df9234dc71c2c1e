// Family controls shared by the fleet: a group made on one node with blocked services, safe search and a
// schedule, and a pause, reach the other node through a real redis-server and are answered there by dig;
// undoing them on the second node reaches the first. The custom rules (AdGuard Home's syntax) travel the same way.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { MoatProcess } from "../harness/moat.ts";
import { startRedis, type RedisServer } from "../harness/redis.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { until } from "../dns/helpers.ts";
import { call } from "../lists/helpers.ts";
import { dig, startNodes, untilDig } from "./helpers.ts";

const FWD = "192.0.2.81";
let redis: RedisServer;
let up: Upstream;
let n1: MoatProcess;
let n2: MoatProcess;

beforeAll(async () => {
  [redis, up] = await Promise.all([startRedis(), startUpstream({ addr: FWD })]);
  [n1, n2] = (await startNodes(["n1", "n2"], { redis: redis.url, upstream: up.address })) as [MoatProcess, MoatProcess];
}, 60000);
afterAll(async () => {
  await Promise.all([n1?.dispose(), n2?.dispose(), up?.stop(), redis?.dispose()]);
});

test("services, safe search, a schedule and a pause set on one node apply on the other", async () => {
  const g = await call(n1, "POST", "/api/groups", { name: "fleet-kids" });
  expect(g.status).toBe(201);
  const gid = g.json.groups[0].id as number;
  expect((await call(n1, "POST", "/api/clients", { client: "127.0.0.1", groups: [gid] })).status).toBe(201);
  expect((await call(n1, "PUT", "/api/services/groups/fleet-kids", { services: ["tiktok"] })).status).toBe(200);
  expect((await call(n1, "PUT", "/api/safesearch/groups/fleet-kids", { engines: ["duckduckgo"] })).status).toBe(200);
  const schedule = {
    windows: [{ days: [0, 1, 2, 3, 4, 5, 6], start: "00:00", end: "24:00" }],
    services: ["reddit"],
    lists: [],
    everything: false,
  };
  expect((await call(n1, "PUT", "/api/schedules/groups/fleet-kids", schedule)).status).toBe(200);
  await untilDig(n2, "www.tiktok.com", "0.0.0.0");
  await untilDig(n2, "www.reddit.com", "0.0.0.0");
  expect(await dig(n2, "duckduckgo.com")).toBe("safe.duckduckgo.com.");
  expect((await call(n2, "GET", "/api/schedules/groups/fleet-kids")).json.groups[0].schedule).toEqual(schedule);
  expect((await call(n1, "PUT", "/api/upstreams/groups/fleet-kids", { upstreams: ["192.0.2.99#5353"] })).status).toBe(
    200,
  );
  await until(
    async () =>
      JSON.stringify((await call(n2, "GET", "/api/upstreams/groups/fleet-kids")).json.groups[0].upstreams) ===
      JSON.stringify(["192.0.2.99#5353"]),
    8000,
    "the group's upstreams on n2",
  );
  expect((await call(n1, "PUT", "/api/upstreams/groups/fleet-kids", { upstreams: [] })).status).toBe(200);
  await untilDig(n2, "after-upstreams.fleet.test", FWD);

  expect((await call(n1, "POST", "/api/pauses/10.0.0.0%2F8", { minutes: 30 })).status).toBe(200);
  await until(
    async () =>
      (await call(n2, "GET", "/api/pauses")).json.pauses.some((p: { client: string }) => p.client === "10.0.0.0/8"),
    8000,
    "the pause on n2",
  );

  // undone on n2, seen on n1
  expect((await call(n2, "PUT", "/api/services/groups/fleet-kids", { services: [] })).status).toBe(200);
  await untilDig(n1, "www.tiktok.com", FWD);
  expect((await n2.api("/api/pauses/10.0.0.0%2F8", { method: "DELETE" })).status).toBe(204);
  await until(async () => (await call(n1, "GET", "/api/pauses")).json.pauses.length === 0, 8000, "the resume on n1");
}, 30_000);

test("the custom rules set on one node are in force on the other, and their change comes back", async () => {
  const rules = "||fleet-rule.test^\n@@||ok.fleet-rule.test^\n0.0.0.0 fleet-hosts.test";
  expect((await call(n1, "PUT", "/api/rules/custom", { text: rules })).status).toBe(200);
  await untilDig(n2, "www.fleet-rule.test", "0.0.0.0");
  await untilDig(n2, "fleet-hosts.test", "0.0.0.0");
  expect(await dig(n2, "ok.fleet-rule.test")).toBe(FWD);
  expect((await call(n2, "GET", "/api/rules/custom")).json.rules.text).toBe(rules);
  expect((await call(n2, "PUT", "/api/rules/custom", { text: "||other-rule.test^" })).status).toBe(200);
  await untilDig(n1, "other-rule.test", "0.0.0.0");
  await untilDig(n1, "www.fleet-rule.test", FWD);
}, 30_000);
