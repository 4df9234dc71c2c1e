// Pi-hole's API, operation by operation, against a Moat in compatibility mode: first empty (fresh
// databases, no query yet), then with real data: subscribed lists filled by gravity, allow/deny
// entries and regexes, a group and a client, DNS traffic from dig, and a teleporter round trip.
// Every GET of Pi-hole's table is asked (literally,
// path templates included, as Pi-hole's own checker asks) through one of the SID channels chosen at
// random, and every property of the reply is checked against the schema Moat documents for it at
// /api/docs/json (the TypeBox schemas beside the routes): present unless optional, nothing extra,
// the right JSON type, null only where allowed, no Moat-only parts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readZip } from "../../src/teleporter/zip.ts";
import { getWithBody } from "../harness/get-with-body.ts";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { runDig, until } from "../dns/helpers.ts";
import { check, looseSpots, type Schema } from "./check-schema.ts";
import { PIHOLE_CONFIG_KEYS } from "./pihole-config.ts";
import { PIHOLE_OPERATIONS } from "./pihole-endpoints.ts";
import { PIHOLE_REPLIES, compareWithPihole } from "./pihole-replies.ts";
import { rng } from "../harness/rng.ts"; // seeded, so a failing run repeats with CONFORMANCE_SEED

const PASSWORD = "conformance";
const SEED = Number(process.env.CONFORMANCE_SEED ?? Date.now() % 1_000_000);
/** The SID in a GET's JSON body: how Pi-hole's own checker sends its first request. */
const GET_BODY_CHANNEL = true;

let lists: ReturnType<typeof Bun.serve>;
let up: Upstream;
let m: MoatProcess;
let session: { sid: string; csrf: string };
let docs: {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
};

const random = rng(SEED);

type Channel = "header sid" | "header X-FTL-SID" | "cookie+csrf" | "query" | "body";
const CHANNELS: Channel[] = [
  "header sid",
  "header X-FTL-SID",
  "cookie+csrf",
  "query",
  ...(GET_BODY_CHANNEL ? (["body"] as Channel[]) : []),
];

/** A GET carrying the SID the way `channel` does. */
function get(path: string, channel: Channel): Promise<Response> {
  const headers: Record<string, string> = {};
  let url = path;
  if (channel === "header sid") headers.sid = session.sid;
  else if (channel === "header X-FTL-SID") headers["X-FTL-SID"] = session.sid;
  else if (channel === "cookie+csrf")
    Object.assign(headers, { cookie: `sid=${session.sid}`, "X-FTL-CSRF": session.csrf });
  else if (channel === "query") url += `${path.includes("?") ? "&" : "?"}sid=${encodeURIComponent(session.sid)}`;
  else return getWithBody(m.base + url, JSON.stringify({ sid: session.sid }));
  return m.api(url, { method: "GET", headers });
}

async function api(method: string, path: string, body?: unknown): Promise<Response> {
  return m.api(path, {
    method,
    headers: { sid: session.sid },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const dig = (name: string, type = "A") =>
  runDig(["@127.0.0.1", "-p", String(m.dnsPort), name, type, "+tries=1", "+time=3", "+short"]);

beforeAll(async () => {
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("0.0.0.0 ads.conf.test\ntracker.conf.test\n||abp.conf.test^\n"),
  });
  up = await startUpstream({ addr: "192.0.2.99" });
  m = await startMoat({
    configToml: `[webserver.api]\npassword = "${PASSWORD}"\npiholeCompat = true\n`,
    env: { FTLCONF_dns_upstreams: up.address, FTLCONF_dns_rateLimit_count: "0" },
  });
  const login = await m.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  session = ((await login.json()) as { session: { sid: string; csrf: string } }).session;
  docs = (await (await get("/api/docs/json", "header sid")).json()) as typeof docs;
}, 60000);
afterAll(async () => {
  await Promise.all([m?.dispose(), up?.stop()]);
  lists?.stop(true);
});

let populated = false;
/** Fills the empty Moat (once): the data every reply of the populated run has something of. */
async function populate() {
  if (populated) return;
  populated = true;
  // lists, gravity, domains, a group and a client
  expect((await api("POST", "/api/groups", { name: "kids", comment: "children" })).status).toBe(201);
  expect(
    (
      await api("POST", "/api/lists?type=block", {
        address: `http://127.0.0.1:${lists.port}/hosts.txt`,
        comment: "main",
      })
    ).status,
  ).toBe(201);
  expect(await (await api("POST", "/api/action/gravity")).text()).toContain("Done");
  for (const [type, kind, domain] of [
    ["deny", "exact", "denied.conf.test"],
    ["allow", "exact", "allowed.conf.test"],
    ["deny", "regex", "(^|\\.)bad\\.conf\\.test$"],
    ["allow", "regex", "^good"],
  ])
    expect((await api("POST", `/api/domains/${type}/${kind}`, { domain, comment: `${type} ${kind}` })).status).toBe(
      201,
    );
  expect((await api("POST", "/api/clients", { client: "127.0.0.1", comment: "this machine" })).status).toBe(201);
  expect(
    (
      await api("PATCH", "/api/config", {
        config: { dns: { hosts: ["10.9.9.9 nas.conf.test"], cnameRecords: ["files.conf.test,nas.conf.test"] } },
      })
    ).status,
  ).toBe(200);

  // DNS traffic over real dig: blocked by gravity and by entries, forwarded, cached, local, AAAA
  // (the filter snapshot with the new entries goes live off the DNS thread: wait for it first)
  await until(
    async () =>
      (await dig("ads.conf.test")).trim() === "0.0.0.0" && (await dig("x.bad.conf.test")).trim() === "0.0.0.0",
    15000,
    "the lists in DNS",
  );
  for (const name of [
    "ads.conf.test",
    "tracker.conf.test",
    "x.abp.conf.test",
    "denied.conf.test",
    "x.bad.conf.test",
    "fwd.conf.test",
    "fwd.conf.test",
    "nas.conf.test",
    "files.conf.test",
    "pi.hole",
  ])
    await dig(name);
  await dig("fwd.conf.test", "AAAA");

  // a teleporter round trip: the archive goes back in
  const zip = new Uint8Array(await (await get("/api/teleporter", "header sid")).arrayBuffer());
  const fd = new FormData();
  fd.set("file", new Blob([zip], { type: "application/zip" }), "teleporter.zip");
  const imported = await m.api("/api/teleporter", { method: "POST", body: fd, headers: { sid: session.sid } });
  expect(imported.status).toBe(200);
  // the import restored the password hash and ended the sessions: log in again
  const again = await m.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  session = ((await again.json()) as { session: { sid: string; csrf: string } }).session;
}

const now = Math.floor(Date.now() / 1000);
/** The query parameters Pi-hole's spec marks required, with values like its examples. */
const required = (path: string) =>
  /^\/api\/(stats|history)\/database/.test(path) ? `?from=${now - 86400}&until=${now + 60}` : "";

const gets = PIHOLE_OPERATIONS.filter((o) => o.method === "get");

/** /api/config's tree (typed loosely in its schema) holds exactly Pi-hole's keys with Pi-hole's JSON types. */
function checkConfigKeys(body: Record<string, unknown>, problems: string[], where: string) {
  const flat = (o: unknown, prefix: string): Array<[string, unknown]> =>
    typeof o === "object" && o !== null && !Array.isArray(o)
      ? Object.entries(o).flatMap(([k, v]) => flat(v, prefix ? `${prefix}.${k}` : k))
      : [[prefix, o]];
  for (const [key, v] of flat(body.config, "")) {
    const want = PIHOLE_CONFIG_KEYS[key];
    const got = Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v;
    if (!want) problems.push(`${where}: config key ${key} is not Pi-hole's`);
    else if (got !== want && !(want === "number" && got === "integer"))
      problems.push(`${where}: config.${key} is ${got}, Pi-hole's is ${want}`);
  }
}

/** Beside the literal templates, the same operations with values that find the data, and their options. */
const concrete = (): Array<[template: string, path: string]> => [
  ["/api/clients/{client}", "/api/clients"],
  ["/api/clients/{client}", "/api/clients/127.0.0.1"],
  ["/api/domains/{type}/{kind}/{domain}", "/api/domains"],
  ["/api/domains/{type}/{kind}/{domain}", "/api/domains/deny/exact/denied.conf.test"],
  ["/api/groups/{name}", "/api/groups"],
  ["/api/groups/{name}", "/api/groups/kids"],
  ["/api/lists/{list}", "/api/lists"],
  ["/api/lists/{list}", `/api/lists/${encodeURIComponent(`http://127.0.0.1:${lists.port}/hosts.txt`)}?type=block`],
  ["/api/search/{domain}", "/api/search/ads.conf.test?debug=true"],
  ["/api/search/{domain}", "/api/search/conf.test?partial=true"],
  ["/api/config/{element}", "/api/config/dns"],
  ["/api/config/{element}", "/api/config/webserver/api/temp?detailed=true"],
  ["/api/network/gateway", "/api/network/gateway?detailed=true"],
  ["/api/padd", "/api/padd?full=false"],
  ["/api/queries", "/api/queries?disk=true&length=5"],
  ["/api/history/clients", "/api/history/clients?N=0"],
  ["/api/stats/top_domains", "/api/stats/top_domains?blocked=true"],
  ["/api/stats/top_clients", "/api/stats/top_clients?blocked=true"],
  ["/api/stats/recent_blocked", "/api/stats/recent_blocked?count=3"],
];

/** Every GET of Pi-hole's table (and `extra`), each reply checked against its documented schema: the problems found. */
async function checkEveryGet(extra: Array<[template: string, path: string]>): Promise<string[]> {
  const problems: string[] = [];
  const asks: Array<[string, string]> = [
    ...gets.map((op): [string, string] => [
      op.uri + op.parameters,
      (op.uri + op.parameters).replace(/[{}]/g, encodeURIComponent),
    ]),
    ...extra,
  ];
  for (const [template, path] of asks) {
    const channel = CHANNELS[Math.floor(random() * CHANNELS.length)]!;
    const res = await get(path + required(template), channel);
    const where = `GET ${path} (${channel})`;
    if (res.status !== 200) {
      problems.push(`${where}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
      continue;
    }
    const type = res.headers.get("content-type") ?? "";
    if (template === "/api/docs") {
      const html = await res.text();
      if (!/^<!doctype html>/i.test(html.trimStart())) problems.push(`${where}: not an HTML document`);
      continue;
    }
    if (template === "/api/teleporter") {
      if (!type.startsWith("application/zip")) problems.push(`${where}: content type ${type}`);
      const entries = readZip(new Uint8Array(await res.arrayBuffer()));
      for (const f of [
        "etc/pihole/gravity.db",
        "etc/pihole/pihole.toml",
        "etc/pihole/pihole-FTL.db",
        "etc/hosts",
        "etc/pihole/dhcp.leases",
      ])
        if (!entries.has(f)) problems.push(`${where}: ${f} missing from the archive`);
      if (
        !new TextDecoder().decode(entries.get("etc/pihole/pihole.toml")).startsWith("# Pi-hole configuration file (v")
      )
        problems.push(`${where}: pihole.toml lacks Pi-hole's header`);
      continue;
    }
    if (!type.startsWith("application/json")) {
      problems.push(`${where}: content type ${type}`);
      continue;
    }
    const body = (await res.json()) as Record<string, unknown>;
    if (path.startsWith("/api/config") && !path.includes("detailed")) checkConfigKeys(body, problems, where);
    if (typeof body.took !== "number") problems.push(`${where}: took is not a number`);
    delete body.took;
    const schema = docs.paths[template]?.get?.responses?.["200"]?.content?.["application/json"]?.schema;
    if (!schema) {
      problems.push(`${where}: no reply schema in /api/docs/json`);
      continue;
    }
    const facts = PIHOLE_REPLIES[template];
    if (!facts) problems.push(`${where}: no facts about Pi-hole's reply in pihole-replies.ts`);
    else for (const p of compareWithPihole(schema, facts)) problems.push(`${where} schema vs Pi-hole: ${p}`);
    for (const spot of looseSpots(schema))
      if (facts && !facts.includes("{*}")) problems.push(`${where}: the schema accepts anything at ${spot}`);
    for (const p of check(body, schema, true)) problems.push(`${where}: ${p}`);
  }
  // Elysia checks each reply against its schema too, and Moat logs a reply that does not fit
  for (const line of m.output.split("\n")) if (line.includes("does not match its schema")) problems.push(line);
  return problems;
}

// Runs first, before populate(): replies with nothing in them (empty arrays, zero counts, no
// newest query) take other branches than full ones, and Pi-hole's clients meet them on a fresh install.
test(`on an empty server every GET of Pi-hole's table answers with its documented shape (seed ${SEED})`, async () => {
  const q = (await (await get("/api/queries", "header sid")).json()) as { queries: unknown[] };
  expect(q.queries).toEqual([]);
  expect(await checkEveryGet([])).toEqual([]);
}, 60000);

test(`with data every GET of Pi-hole's table answers with its documented shape (seed ${SEED})`, async () => {
  await populate();
  expect(await checkEveryGet(concrete())).toEqual([]);
}, 120000);

test("the literal template paths find nothing, as in Pi-hole (and the data is really there)", async () => {
  await populate();
  const clients = (await (await get("/api/clients", "header sid")).json()) as { clients: unknown[] };
  expect(clients.clients).toHaveLength(1);
  const q = (await (await get("/api/queries?length=100", "query")).json()) as { queries: Array<{ status: string }> };
  const statuses = new Set(q.queries.map((x) => x.status));
  for (const s of ["GRAVITY", "DENYLIST", "REGEX", "FORWARDED", "CACHE"])
    expect([s, statuses.has(s)]).toEqual([s, true]);
});
