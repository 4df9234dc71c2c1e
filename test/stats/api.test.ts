// The statistics API against the real server: a data directory whose long-term database holds a
// known set of queries is imported at start (database.DBimport), then every endpoint is checked
// for exact numbers and shapes, the query-log filters and paging, and /metrics with its token.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { getJson, knownRecords, seededDataDir } from "./fixture.ts";
import { parseProm } from "./prom.ts";

const NOW = Math.floor(Date.now() / 1000);
let moat: MoatProcess;
let dir: string;

beforeAll(async () => {
  dir = seededDataDir(knownRecords(NOW));
  moat = await startMoat({ dataDir: dir, env: { FTLCONF_webserver_api_metricsToken: "s3cret-token" } });
}, 30_000);
afterAll(async () => {
  await moat?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, status = 200) => getJson(moat, path, status);
const range = `from=${NOW - 86400}&until=${NOW + 60}`;

test("summary: exact totals, every type, status and reply key", async () => {
  const s = await get("/api/stats/summary");
  expect(s.queries).toMatchObject({
    total: 20,
    blocked: 6,
    percent_blocked: 30,
    unique_domains: 6,
    forwarded: 10,
    cached: 4,
  });
  expect(Object.keys(s.queries.types)).toEqual([
    "A",
    "AAAA",
    "ANY",
    "SRV",
    "SOA",
    "PTR",
    "TXT",
    "NAPTR",
    "MX",
    "DS",
    "RRSIG",
    "DNSKEY",
    "NS",
    "OTHER",
    "SVCB",
    "HTTPS",
  ]);
  expect(s.queries.types).toMatchObject({ A: 14, AAAA: 4, HTTPS: 2, OTHER: 0 });
  // Pi-hole's 19 statuses and Moat's own CLIENT_REFUSED (dns.access; left out in compat mode)
  expect(Object.keys(s.queries.status).length).toBe(20);
  expect(s.queries.status.CLIENT_REFUSED).toBe(0);
  expect(s.queries.status).toMatchObject({ GRAVITY: 3, REGEX: 2, DENYLIST_CNAME: 1, FORWARDED: 10, CACHE: 4 });
  expect(Object.keys(s.queries.replies).length).toBe(14);
  expect(s.queries.replies).toMatchObject({ IP: 18, NXDOMAIN: 2 });
  expect(s.clients).toEqual({ active: 3, total: 3 });
  expect(s.gravity).toEqual({ domains_being_blocked: expect.any(Number), last_update: expect.any(Number) });
});

test("top domains, top clients, query types, recent blocked", async () => {
  expect((await get("/api/stats/top_domains")).domains).toEqual([
    { domain: "a.example", count: 8 },
    { domain: "b.example", count: 4 },
    { domain: "c.example", count: 2 },
  ]);
  const b = await get("/api/stats/top_domains?blocked=true&count=2");
  expect(b).toMatchObject({
    domains: [
      { domain: "ads.example", count: 3 },
      { domain: "track.example", count: 2 },
    ],
    total_queries: 20,
    blocked_queries: 6,
  });
  expect((await get("/api/stats/top_clients")).clients).toEqual([
    { ip: "127.0.0.1", name: "", count: 10 },
    { ip: "127.0.0.2", name: "", count: 7 },
    { ip: "127.0.0.3", name: "", count: 3 },
  ]);
  expect((await get("/api/stats/top_clients?blocked=true&count=1")).clients).toEqual([
    { ip: "127.0.0.2", name: "", count: 3 },
  ]);
  expect((await get("/api/stats/query_types")).types).toMatchObject({ A: 14, AAAA: 4, HTTPS: 2 });
  expect((await get("/api/stats/recent_blocked?count=2")).blocked).toEqual(["cdn.example", "track.example"]);
  expect((await get("/api/stats/recent_blocked")).blocked).toEqual(["cdn.example"]);
});

test("upstreams: pseudo entries, counts and mean reply time in seconds", async () => {
  const u = await get("/api/stats/upstreams");
  expect(u.forwarded_queries).toBe(10);
  expect(u.total_queries).toBe(20);
  expect(u.upstreams.map((x: any) => [x.ip, x.port, x.count])).toEqual([
    ["blocklist", -1, 6],
    ["cache", -1, 4],
    ["127.0.0.1", 5300, 8],
    ["127.0.0.1", 5301, 2],
  ]);
  expect(u.upstreams[2].statistics.response).toBeCloseTo(0.01, 6);
  expect(u.upstreams[3].statistics.response).toBeCloseTo(0.03, 6);
});

test("history: 145 ten-minute slots summing to the totals; client history with others", async () => {
  const h = (await get("/api/history")).history;
  expect(h.length).toBe(145);
  expect(h[1].timestamp - h[0].timestamp).toBe(600);
  const sum = (k: string) => h.reduce((a: number, s: any) => a + s[k], 0);
  expect([sum("total"), sum("blocked"), sum("cached"), sum("forwarded")]).toEqual([20, 6, 4, 10]);
  const c = await get("/api/history/clients?N=1");
  expect(c.clients).toEqual({ "127.0.0.1": { name: null, total: 10 } });
  expect(c.history.length).toBe(145);
  expect(c.history.reduce((a: number, s: any) => a + s.data["127.0.0.1"] + s.data.others, 0)).toBe(20);
  expect(Object.keys((await get("/api/history/clients?N=0")).clients).length).toBe(3);
});

test("database variants agree with the live numbers for the same window", async () => {
  const live = await get("/api/stats/summary");
  expect(await get(`/api/stats/database/summary?${range}`)).toMatchObject({
    sum_queries: live.queries.total,
    sum_blocked: live.queries.blocked,
    percent_blocked: 30,
    total_clients: 3,
  });
  for (const p of ["top_domains", "top_domains?blocked=true", "top_clients", "top_clients?blocked=true"]) {
    const l = await get(`/api/stats/${p}`);
    const d = await get(`/api/stats/database/${p}${p.includes("?") ? "&" : "?"}${range}`);
    expect({ ...d, took: 0 }).toEqual({ ...l, took: 0 });
  }
  expect((await get(`/api/stats/database/query_types?${range}`)).types).toEqual(
    (await get("/api/stats/query_types")).types,
  );
  const lu = await get("/api/stats/upstreams");
  const du = await get(`/api/stats/database/upstreams?${range}`);
  expect(du.upstreams.map((x: any) => [x.ip, x.port, x.count])).toEqual(
    lu.upstreams.map((x: any) => [x.ip, x.port, x.count]),
  );
  const lh = (await get("/api/history")).history;
  const dh = (await get(`/api/history/database?from=${lh[0].timestamp}&until=${NOW + 60}`)).history;
  // `until` reaches a minute past now, so near a 10-minute boundary the database side has one more (empty) slot.
  const n = Math.min(dh.length, lh.length);
  expect(n).toBeGreaterThanOrEqual(144);
  expect(dh.slice(0, n).map((s: any) => s.total)).toEqual(lh.slice(0, n).map((s: any) => s.total));
  const dc = await get(`/api/history/database/clients?${range}&N=1`);
  expect(dc.clients).toEqual({ "127.0.0.1": { name: null, total: 10 } });
});

test("database variants need both from and until", async () => {
  for (const p of [
    "stats/database/summary?from=1",
    "stats/database/top_domains?until=2",
    "history/database",
    "stats/database/upstreams",
    "stats/database/query_types?from=x&until=2",
  ]) {
    const b = await get(`/api/${p}`, 400);
    expect(b.error).toEqual({
      key: "bad_request",
      message: 'You need to specify both "from" and "until" in the request.',
      hint: null,
    });
  }
});

test("query log: shape, filters, cursor paging, disk variant and exact errors", async () => {
  const all = await get("/api/queries");
  expect(all).toMatchObject({ recordsTotal: 20, recordsFiltered: 20, cursor: 20, draw: 0 });
  expect(all.queries.length).toBe(20);
  expect(all.queries[0]).toEqual({
    answers: null,
    id: 20,
    time: expect.any(Number),
    type: "HTTPS",
    domain: "c.example",
    cname: null,
    status: "FORWARDED",
    client: { ip: "127.0.0.1", name: null },
    dnssec: "UNKNOWN",
    reply: { type: "NXDOMAIN", time: 0.03 },
    list_id: null,
    upstream: "127.0.0.1#5301",
    ede: { code: -1, text: null },
  });
  const n = async (q: string) => (await get(`/api/queries?${q}`)).recordsFiltered;
  expect(await n("domain=ads.example")).toBe(3);
  expect(await n("domain=*.example")).toBe(20);
  expect(await n("client_ip=127.0.0.2")).toBe(7);
  expect(await n("client_name=*")).toBe(0);
  expect(await n("upstream=127.0.0.1%235300")).toBe(8);
  expect(await n("upstream=blocklist")).toBe(6);
  expect(await n("upstream=cache")).toBe(4);
  expect(await n("type=AAAA")).toBe(4);
  expect(await n("status=REGEX")).toBe(2);
  expect(await n("reply=NXDOMAIN")).toBe(2);
  expect(await n("dnssec=UNKNOWN")).toBe(20);
  expect(await n(`from=${NOW - 590}&until=${NOW}`)).toBe(1);
  expect(await n(`from=${NOW - 600}&until=${NOW}`)).toBe(2);
  expect(await n("domain=*.example&status=GRAVITY&client_ip=127.0.0.2")).toBe(3);
  expect(await n("columns[3][search][value]=track")).toBe(2);
  const ids: number[] = [];
  for (let start = 0; start < 20; start += 6)
    ids.push(...(await get(`/api/queries?length=6&start=${start}&cursor=20`)).queries.map((q: any) => q.id));
  expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => 20 - i));
  expect((await get("/api/queries?cursor=5&length=2")).queries.map((q: any) => q.id)).toEqual([5, 4]);
  const disk = await get("/api/queries?disk=true&status=GRAVITY");
  expect(disk.recordsFiltered).toBe(3);
  expect(disk.queries.map((q: any) => q.id)).toEqual([15, 14, 13]);
  for (const [q, message, hint] of [
    ["cursor=21", "Requested cursor is invalid", "Cursor larger than largest database index"],
    ["type=BOGUS", "Requested type is invalid", "BOGUS"],
    ["status=NOPE", "Requested status is invalid", "NOPE"],
    ["reply=NOPE", "Requested reply is invalid", "NOPE"],
    ["dnssec=NOPE", "Requested dnssec is invalid", "NOPE"],
  ]) {
    expect((await get(`/api/queries?${q}`, 400)).error).toEqual({ key: "bad_request", message, hint });
    // the long-term log is read on a thread of its own: its refusals come back the same
    expect((await get(`/api/queries?disk=true&${q}`, 400)).error).toEqual({ key: "bad_request", message, hint });
  }
  const s = (await get("/api/queries/suggestions")).suggestions;
  expect(s.domain.sort()).toEqual([
    "a.example",
    "ads.example",
    "b.example",
    "c.example",
    "cdn.example",
    "track.example",
  ]);
  expect(s.client_ip.sort()).toEqual(["127.0.0.1", "127.0.0.2", "127.0.0.3"]);
  expect(s.upstream.sort()).toEqual(["127.0.0.1#5300", "127.0.0.1#5301"]);
  expect(s.status.length).toBe(20);
  expect(s.status).toContain("CLIENT_REFUSED");
});

test("info, padd, logs, network and dhcp answer with real shapes", async () => {
  const sys = (await get("/api/info/system")).system;
  expect(sys.memory.ram.total).toBeGreaterThan(0);
  expect(sys.cpu.nprocs).toBeGreaterThan(0);
  expect(sys.cpu.load.raw.length).toBe(3);
  expect(typeof sys.uptime).toBe("number");
  const host = (await get("/api/info/host")).host;
  expect(host.uname.sysname).toBe("Linux");
  expect(Object.keys((await get("/api/info/sensors")).sensors)).toEqual(["list", "cpu_temp", "hot_limit", "unit"]);
  const ftl = (await get("/api/info/ftl")).ftl;
  expect(ftl).toMatchObject({ pid: expect.any(Number), privacy_level: 0, clients: { total: 3, active: 3 } });
  expect(ftl.pid).not.toBe(process.pid);
  expect(await get("/api/info/database")).toMatchObject({
    queries: 20,
    queries_disk: 20,
    sqlite_version: expect.any(String),
  });
  // this server has no upstream, which is its one message
  expect((await get("/api/info/messages")).messages).toEqual([
    {
      id: 1,
      timestamp: expect.any(Number),
      type: "DNSMASQ_WARN",
      plain: "no upstream servers configured",
      html: "no upstream servers configured",
    },
  ]);
  expect((await get("/api/info/messages/count")).count).toBe(1);
  let r = await moat.api("/api/info/messages/7", { method: "DELETE" });
  expect(r.status).toBe(404);
  r = await moat.api("/api/info/messages/abc", { method: "DELETE" });
  expect(r.status).toBe(400);
  expect(((await r.json()) as any).error.key).toBe("uri_error");
  expect(Object.keys((await get("/api/info/metrics")).metrics.dns)).toEqual(["cache", "replies"]);
  const padd = await get("/api/padd");
  expect(padd).toMatchObject({
    recent_blocked: "cdn.example",
    top_domain: "a.example",
    top_blocked: "ads.example",
    top_client: "127.0.0.1",
    active_clients: 3,
    blocking: "enabled",
    queries: { total: 20, blocked: 6, percent_blocked: 30 },
  });
  for (const k of [
    "iface",
    "node_name",
    "host_model",
    "config",
    "%cpu",
    "%mem",
    "pid",
    "sensors",
    "system",
    "version",
    "cache",
    "gravity_size",
  ])
    expect(padd).toHaveProperty([k]);
  expect(Object.keys(await get("/api/padd?full=false"))).not.toContain("iface");
  const log1 = await get("/api/logs/ftl");
  expect(log1.log.some((l: any) => /imported 20 queries/.test(l.message))).toBe(true);
  const log2 = await get(`/api/logs/ftl?nextID=${log1.nextID}`);
  expect(log2.log.length).toBe(log2.nextID - log1.nextID);
  const devs = (await get("/api/network/devices?max_devices=0")).devices;
  expect(devs.flatMap((d: any) => d.ips.map((i: any) => i.ip)).sort()).toEqual(["127.0.0.1", "127.0.0.2", "127.0.0.3"]);
  r = await moat.api(`/api/network/devices/${devs[0].id}`, { method: "DELETE" });
  expect(r.status).toBe(204);
  r = await moat.api("/api/network/devices/999999", { method: "DELETE" });
  expect(r.status).toBe(404);
  r = await moat.api("/api/network/devices/x", { method: "DELETE" });
  expect(((await r.json()) as any).error).toMatchObject({
    key: "invalid_request",
    message: "Missing or invalid {id} parameter",
  });
  expect(Array.isArray((await get("/api/network/routes")).routes)).toBe(true);
  expect((await get("/api/network/interfaces")).interfaces.some((i: any) => i.name === "lo")).toBe(true);
  expect(Object.keys(await get("/api/network/gateway?detailed=true"))).toEqual([
    "gateway",
    "routes",
    "interfaces",
    "took",
  ]);
  expect((await get("/api/dhcp/leases")).leases).toEqual([]);
  expect((await moat.api("/api/dhcp/leases/10.0.0.9", { method: "DELETE" })).status).toBe(404);
  expect(
    ((await (await moat.api("/api/dhcp/leases/nonsense", { method: "DELETE" })).json()) as any).error.message,
  ).toBe("The provided IP address is invalid");
});

test("/metrics: Prometheus text with the bearer token only", async () => {
  let r = await moat.api("/metrics");
  expect(r.status).toBe(401);
  expect(((await r.json()) as any).error.key).toBe("unauthorized");
  r = await moat.api("/metrics", { headers: { authorization: "Bearer wrong-token!" } });
  expect(r.status).toBe(401);
  await r.arrayBuffer();
  r = await moat.api("/metrics", { headers: { authorization: "Bearer s3cret-token" } });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  const fams = parseProm(await r.text());
  const val = (name: string, labels: Record<string, string> = {}) =>
    fams.get(name)?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      ?.value;
  expect(fams.get("moat_queries_total")!.type).toBe("counter");
  expect(val("moat_queries_total", { status: "GRAVITY" })).toBe(3);
  expect(val("moat_queries_by_type_total", { type: "AAAA" })).toBe(4);
  expect(val("moat_queries_blocked_total")).toBe(6);
  expect(val("moat_queries_24h")).toBe(20);
  const h = fams.get("moat_upstream_response_seconds")!;
  expect(h.type).toBe("histogram");
  expect(h.samples.find((s) => s.name.endsWith("_count"))!.value).toBe(10);
  expect(h.samples.find((s) => s.labels.le === "0.025")!.value).toBe(8);
  expect(val("moat_api_sessions")).toBe(0);
  expect([fams.get("moat_querylog_dropped_total")?.type, val("moat_querylog_dropped_total")]).toEqual(["counter", 0]);
  expect(val("process_resident_memory_bytes")).toBeGreaterThan(1e6);
  expect(fams.has("moat_gravity_domains")).toBe(true);
});
