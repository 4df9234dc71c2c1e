// Teleporter between real installations: both sides have subscribed lists that gravity has filled,
// which is what every Pi-hole user has. The export carries the DHCP leases file and (in Pi-hole
// compatibility mode) Pi-hole's header in pihole.toml; importing it into another Moat and into
// itself replaces the gravity rows with their lists, and dig answers the same on both.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readZip } from "../../src/teleporter/zip.ts";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { runDig, until } from "../dns/helpers.ts";
import { call, login, type Json } from "./helpers.ts";

const PASSWORD = "teleport gravity";
const FWD = "192.0.2.77";
const LEASES =
  "1795400000 aa:bb:cc:dd:ee:01 192.168.7.10 laptop 01:aa:bb:cc:dd:ee:01\n1795400100 aa:bb:cc:dd:ee:02 192.168.7.11 * *\n";
const NAMES = ["ads-a.tele.test", "ads-b.tele.test", "denied-a.tele.test", "other.tele.test", "nas-a.tele.test"];
let lists: ReturnType<typeof Bun.serve>;
let up: Upstream;
let a: MoatProcess;
let b: MoatProcess;
let sidA: string;
let sidB: string;

beforeAll(async () => {
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new Response(new URL(req.url).pathname === "/a.txt" ? "0.0.0.0 ads-a.tele.test\n" : "ads-b.tele.test\n"),
  });
  up = await startUpstream({ addr: FWD });
  const opts = {
    configToml: `[webserver.api]\npassword = "${PASSWORD}"\npiholeCompat = true\n`,
    env: { FTLCONF_dns_upstreams: up.address, FTLCONF_dns_rateLimit_count: "0" },
  };
  [a, b] = await Promise.all([startMoat(opts), startMoat(opts)]);
  [sidA, sidB] = await Promise.all([login(a, PASSWORD), login(b, PASSWORD)]);
  // A: list a + a deny entry + a local record; B: list b. Both run gravity, so gravity rows exist on both.
  for (const [m, sid, list] of [
    [a, sidA, "a"],
    [b, sidB, "b"],
  ] as const) {
    expect(
      (await call(m, "POST", "/api/lists?type=block", { address: `http://127.0.0.1:${lists.port}/${list}.txt` }, sid))
        .status,
    ).toBe(201);
    const run = await m.api("/api/action/gravity", { method: "POST", headers: { sid } });
    expect(await run.text()).toContain("Done");
  }
  expect((await call(a, "POST", "/api/domains/deny/exact", { domain: "denied-a.tele.test" }, sidA)).status).toBe(201);
  expect(
    (await call(a, "PATCH", "/api/config", { config: { dns: { hosts: ["10.5.5.5 nas-a.tele.test"] } } }, sidA)).status,
  ).toBe(200);
  writeFileSync(join(a.dataDir, "dhcp.leases"), LEASES);
}, 90000);
afterAll(async () => {
  await Promise.all([a?.dispose(), b?.dispose(), up?.stop()]);
  lists?.stop(true);
});

async function answers(m: MoatProcess): Promise<string[]> {
  return Promise.all(
    NAMES.map(
      async (n) =>
        `${n} ${(await runDig(["@127.0.0.1", "-p", String(m.dnsPort), n, "A", "+short", "+tries=1", "+time=3"])).trim()}`,
    ),
  );
}

async function upload(m: MoatProcess, sid: string, zip: Uint8Array): Promise<{ status: number; body: Json }> {
  const fd = new FormData();
  fd.set("file", new Blob([zip], { type: "application/zip" }), "teleporter.zip");
  const r = await m.api("/api/teleporter", { method: "POST", body: fd, headers: { sid } });
  return { status: r.status, body: (await r.json()) as Json };
}

const gravityRows = (m: MoatProcess) =>
  call(m, "GET", "/api/info/ftl", undefined, m === a ? sidA : sidB).then((r) => r.body.ftl.database.gravity as number);

test("before: each side blocks its own list, and both have gravity rows", async () => {
  const wantA = [
    "ads-a.tele.test 0.0.0.0",
    `ads-b.tele.test ${FWD}`,
    "denied-a.tele.test 0.0.0.0",
    `other.tele.test ${FWD}`,
    "nas-a.tele.test 10.5.5.5",
  ];
  // the deny entry reaches DNS with the next filter snapshot, built off the DNS thread
  await until(async () => JSON.stringify(await answers(a)) === JSON.stringify(wantA), 10000, "A's deny entry");
  expect(await answers(b)).toEqual([
    `ads-a.tele.test ${FWD}`,
    "ads-b.tele.test 0.0.0.0",
    `denied-a.tele.test ${FWD}`,
    `other.tele.test ${FWD}`,
    `nas-a.tele.test ${FWD}`,
  ]);
  expect(await gravityRows(a)).toBe(1);
  expect(await gravityRows(b)).toBe(1);
}, 30000);

let zip: Uint8Array;

test("the export carries the leases file and, in compatibility mode, Pi-hole's header line", async () => {
  const res = await a.api("/api/teleporter", { headers: { sid: sidA } });
  expect(res.status).toBe(200);
  zip = new Uint8Array(await res.arrayBuffer());
  const entries = readZip(zip);
  expect(new TextDecoder().decode(entries.get("etc/pihole/dhcp.leases"))).toBe(LEASES);
  const toml = new TextDecoder().decode(entries.get("etc/pihole/pihole.toml"));
  expect(toml).toMatch(/^# Pi-hole configuration file \(v[^)\n]+\)\n/);
  // the settings below the header are intact
  const parsed = Bun.TOML.parse(toml) as Json;
  expect(parsed.dns.hosts).toEqual(["10.5.5.5 nas-a.tele.test"]);
});

test("import into another installation with lists and gravity: replaced in one go, dig answers the same", async () => {
  const r = await upload(b, sidB, zip);
  expect(r.status).toBe(200);
  expect(r.body.files).toEqual([
    "etc/pihole/pihole.toml",
    "etc/pihole/dhcp.leases",
    "etc/pihole/gravity.db->group",
    "etc/pihole/gravity.db->adlist",
    "etc/pihole/gravity.db->adlist_by_group",
    "etc/pihole/gravity.db->domainlist",
    "etc/pihole/gravity.db->domainlist_by_group",
    "etc/pihole/gravity.db->client",
    "etc/pihole/gravity.db->client_by_group",
    "etc/pihole/moat-custom-rules.txt",
  ]);
  expect(readFileSync(join(b.dataDir, "dhcp.leases"), "utf8")).toBe(LEASES);
  // the password came with the settings: log in again
  sidB = await login(b, PASSWORD);
  const listsB = (await call(b, "GET", "/api/lists", undefined, sidB)).body.lists.map((l: Json) => l.address);
  expect(listsB).toEqual([`http://127.0.0.1:${lists.port}/a.txt`]);
  expect(await gravityRows(b)).toBe(1);
  const want = await answers(a);
  let got: string[] = [];
  await until(
    async () => JSON.stringify((got = await answers(b))) === JSON.stringify(want),
    10000,
    "B answering like A",
  ).catch(() => {});
  expect(got).toEqual(want);
}, 30000);

test("import into itself changes nothing", async () => {
  const before = await answers(a);
  const r = await upload(a, sidA, zip);
  expect(r.status).toBe(200);
  expect(r.body.files).toContain("etc/pihole/gravity.db->adlist");
  sidA = await login(a, PASSWORD);
  expect(await gravityRows(a)).toBe(1);
  await Bun.sleep(300);
  expect(await answers(a)).toEqual(before);
}, 30000);
