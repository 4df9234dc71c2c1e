// Family controls travel in the Teleporter archive (they live in its gravity.db): a group's blocked
// services, safe search and schedule, and the paused clients, exported from one Moat and restored into
// another, where DNS then blocks as the first did. The custom rules travel as a file of their own.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readZip } from "../../src/teleporter/zip.ts";
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

test("the custom rules travel as a file of their own and are in force after the restore", async () => {
  const rules = "||rule-blocked.test^\n@@||ok.rule-blocked.test^\n! a comment\n0.0.0.0 hosts-rule.test";
  expect((await call(a, "PUT", "/api/rules/custom", { text: rules })).status).toBe(200);
  const res = await a.api("/api/teleporter");
  expect(res.status).toBe(200);
  const zip = new Uint8Array(await res.arrayBuffer());
  expect(new TextDecoder().decode(readZip(zip).get("etc/pihole/moat-custom-rules.txt"))).toBe(rules);

  // restored without the domain entries: the rules stay as they are
  expect((await call(b, "PUT", "/api/rules/custom", { text: "||before.test^" })).status).toBe(200);
  const restore = async (importSel?: unknown) => {
    const fd = new FormData();
    fd.set("file", new Blob([zip], { type: "application/zip" }), "backup.zip");
    if (importSel) fd.set("import", JSON.stringify(importSel));
    return await b.api("/api/teleporter", { method: "POST", body: fd });
  };
  expect((await restore({ config: false, dhcp_leases: false, gravity: { domainlist: false } })).status).toBe(200);
  expect((await call(b, "GET", "/api/rules/custom")).body.rules.text).toBe("||before.test^");

  const imp = await restore();
  expect(imp.status).toBe(200);
  expect(((await imp.json()) as { files: string[] }).files).toContain("etc/pihole/moat-custom-rules.txt");
  expect((await call(b, "GET", "/api/rules/custom")).body.rules.text).toBe(rules);
  // the archive brought the kids' unreachable upstream back too (the test above)
  expect((await call(b, "PUT", "/api/upstreams/groups/kids", { upstreams: [] })).status).toBe(200);
  expect(await dig(b, "www.rule-blocked.test")).toBe("0.0.0.0");
  expect(await dig(b, "hosts-rule.test")).toBe("0.0.0.0");
  expect(await dig(b, "ok.rule-blocked.test")).toBe("192.0.2.55");
  expect(await dig(b, "before.test")).toBe("192.0.2.55");
}, 30_000);
