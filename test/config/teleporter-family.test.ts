// Family controls travel in the Teleporter archive (they live in its gravity.db): a group's blocked
// services, safe search and schedule, and the paused clients, exported from one Moat and restored into
// another, where DNS then blocks as the first did.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "./helpers.ts";

let a: MoatProcess;
let b: MoatProcess;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.55" });
  const env = { FTLCONF_dns_upstreams: up.address };
  [a, b] = await Promise.all([startMoat({ env }), startMoat({ env })]);
}, 60000);
afterAll(async () => {
  await Promise.all([a?.dispose(), b?.dispose(), up?.stop()]);
});

async function dig(m: MoatProcess, name: string): Promise<string> {
  const r = await run(["dig", "+short", "+tries=2", "+time=2", "-p", String(m.dnsPort), "@127.0.0.1", name]);
  return r.stdout.trim();
}

test("a group's services, safe search and schedule, and a pause, survive export and import", async () => {
  expect((await call(a, "POST", "/api/groups", { name: "kids" })).status).toBe(201);
  const kids = (await call(a, "GET", "/api/groups/kids")).body.groups[0].id;
  expect((await call(a, "POST", "/api/clients", { client: "127.0.0.1", groups: [kids] })).status).toBe(201);
  expect((await call(a, "PUT", "/api/services/groups/kids", { services: ["tiktok", "roblox"] })).status).toBe(200);
  expect((await call(a, "PUT", "/api/safesearch/groups/kids", { engines: ["bing"] })).status).toBe(200);
  const schedule = {
    windows: [{ days: [1, 2, 3, 4], start: "21:00", end: "07:00" }],
    services: ["youtube"],
    lists: [],
    everything: false,
  };
  expect((await call(a, "PUT", "/api/schedules/groups/kids", schedule)).status).toBe(200);
  expect((await call(a, "POST", "/api/pauses/tablet", {})).status).toBe(200);
  expect(
    (await call(a, "PUT", "/api/upstreams/groups/kids", { upstreams: ["tls://dns.family.test@192.0.2.9"] })).status,
  ).toBe(200);

  const res = await a.api("/api/teleporter");
  expect(res.status).toBe(200);
  const fd = new FormData();
  fd.set("file", new Blob([await res.arrayBuffer()], { type: "application/zip" }), "backup.zip");
  const imp = await b.api("/api/teleporter", { method: "POST", body: fd });
  expect(imp.status).toBe(200);

  expect((await call(b, "GET", "/api/services/groups/kids")).body.groups).toEqual([
    { name: "kids", services: ["roblox", "tiktok"] },
  ]);
  expect((await call(b, "GET", "/api/safesearch/groups/kids")).body.groups).toEqual([
    { name: "kids", engines: ["bing"] },
  ]);
  expect((await call(b, "GET", "/api/schedules/groups/kids")).body.groups).toEqual([{ name: "kids", schedule }]);
  expect((await call(b, "GET", "/api/pauses")).body.pauses).toEqual([{ client: "tablet", until: null }]);
  expect((await call(b, "GET", "/api/upstreams/groups/kids")).body.groups).toEqual([
    { name: "kids", upstreams: ["tls://dns.family.test@192.0.2.9"] },
  ]);
  // the kids' upstream is not reachable here: keep the DNS checks below on dns.upstreams
  expect((await call(b, "PUT", "/api/upstreams/groups/kids", { upstreams: [] })).status).toBe(200);
  // and DNS on the second Moat applies them (dig asks from 127.0.0.1, the kids' client)
  expect(await dig(b, "www.tiktok.com")).toBe("0.0.0.0");
  expect((await dig(b, "www.bing.com")).split("\n")[0]).toBe("strict.bing.com.");
  expect(await dig(b, "example.com")).toBe("192.0.2.55");
}, 30_000);
