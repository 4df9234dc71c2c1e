// Pi-hole's whole settings tree in /api/config: every section and key with Pi-hole's types and
// defaults, Moat's own keys only outside compatibility mode, PATCH on an element path, unknown keys
// reported, and Pi-hole's validators (multi-alias CNAME records answered over DNS, file paths).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { PIHOLE_CONFIG_KEYS, PIHOLE_DEFAULTS } from "../conformance/pihole-config.ts";
import { decodeReply, encodeQuery, sendUdp } from "../dns/helpers.ts";
import { call, expectError, login, type Json } from "./helpers.ts";

const PASSWORD = "tree pass";
let plain: MoatProcess;
let compat: MoatProcess;
let sid: string;
let compatSid: string;

beforeAll(async () => {
  [plain, compat] = await Promise.all([
    startMoat({ configToml: `[webserver.api]\npassword = "${PASSWORD}"\n`, env: { FTLCONF_misc_nice: "-5" } }),
    startMoat({
      configToml: `[webserver.api]\npassword = "${PASSWORD}"\npiholeCompat = true\n[gravity]\nupdateInterval = 0\n`,
    }),
  ]);
  [sid, compatSid] = await Promise.all([login(plain, PASSWORD), login(compat, PASSWORD)]);
}, 60000);
afterAll(async () => {
  await Promise.all([plain.dispose(), compat.dispose()]);
});

/** Dotted key → value of every leaf of a config tree. */
function leaves(tree: Json, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === "object" && v !== null && !Array.isArray(v)) for (const [p, x] of leaves(v, path)) out.set(p, x);
    else out.set(path, v);
  }
  return out;
}

const jsonType = (v: unknown) => (Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);

test("compatibility mode: exactly Pi-hole's keys, with Pi-hole's JSON types and defaults", async () => {
  const r = await call(compat, "GET", "/api/config", undefined, compatSid);
  expect(r.status).toBe(200);
  const got = leaves(r.body.config);
  expect([...got.keys()].sort()).toEqual(Object.keys(PIHOLE_CONFIG_KEYS).sort());
  for (const [key, type] of Object.entries(PIHOLE_CONFIG_KEYS)) {
    const t = jsonType(got.get(key));
    expect(`${key}: ${type === "number" && t === "integer" ? "number" : t}`).toBe(`${key}: ${type}`);
  }
  for (const [key, value] of Object.entries(PIHOLE_DEFAULTS)) expect([key, got.get(key)]).toEqual([key, value]);
  expect(Object.keys(r.body.config)).toEqual([
    "dns",
    "dhcp",
    "ntp",
    "resolver",
    "database",
    "webserver",
    "files",
    "misc",
    "debug",
  ]);
});

test("compatibility mode: Moat's own keys are still there when asked for by name, and in the file", async () => {
  const api = (await call(compat, "GET", "/api/config/webserver/api", undefined, compatSid)).body.config.webserver.api;
  expect(api.piholeCompat).toBeUndefined();
  const own = await call(compat, "GET", "/api/config/webserver/api/piholeCompat", undefined, compatSid);
  expect(own.body.config).toEqual({ webserver: { api: { piholeCompat: true } } });
  expect((await call(compat, "GET", "/api/config/gravity", undefined, compatSid)).body.config.gravity).toMatchObject({
    updateInterval: 0,
    downloadTimeout: 60,
  });
  const file = Bun.TOML.parse(readFileSync(join(compat.dataDir, "pihole.toml"), "utf8")) as Json;
  expect(file.gravity.updateInterval).toBe(0);
  // PATCHing a Moat key in compatibility mode works, and the detailed view hides it as well
  expect(
    (await call(compat, "PATCH", "/api/config", { config: { gravity: { downloadTimeout: 30 } } }, compatSid)).status,
  ).toBe(200);
  expect(
    (await call(compat, "GET", "/api/config/gravity/downloadTimeout", undefined, compatSid)).body.config.gravity
      .downloadTimeout,
  ).toBe(30);
  const detailed = (await call(compat, "GET", "/api/config?detailed=true", undefined, compatSid)).body;
  expect(detailed.config.gravity).toBeUndefined();
  expect(detailed.topics.map((t: Json) => t.name)).toEqual([
    "dns",
    "dhcp",
    "ntp",
    "resolver",
    "database",
    "webserver",
    "files",
    "misc",
    "debug",
  ]);
});

test("default mode: Pi-hole's keys plus Moat's own; file paths are where this instance keeps its data", async () => {
  const got = leaves((await call(plain, "GET", "/api/config", undefined, sid)).body.config);
  for (const key of Object.keys(PIHOLE_CONFIG_KEYS)) expect([key, got.has(key)]).toEqual([key, true]);
  for (const key of [
    "webserver.api.piholeCompat",
    "webserver.api.loginRateLimit",
    "webserver.api.metricsToken",
    "gravity.updateInterval",
  ])
    expect([key, got.has(key)]).toEqual([key, true]);
  expect(got.get("files.gravity")).toBe(join(plain.dataDir, "gravity.db"));
  expect(got.get("files.database")).toBe(join(plain.dataDir, "pihole-FTL.db"));
});

test("PATCH on an element path applies the body and answers with that subtree", async () => {
  const r = await call(
    plain,
    "PATCH",
    "/api/config/webserver/api/password",
    { config: { webserver: { api: { password: "second pass" } } } },
    sid,
  );
  expect(r.status).toBe(200);
  expect(r.body.config).toEqual({ webserver: { api: { password: "********" } } });
  // a password change ends every session; the new password logs in
  expect((await call(plain, "POST", "/api/auth", { password: PASSWORD })).status).toBe(401);
  sid = await login(plain, "second pass");
  const dns = await call(plain, "PATCH", "/api/config/dns/blockTTL", { config: { dns: { blockTTL: 9 } } }, sid);
  expect(dns.body.config).toEqual({ dns: { blockTTL: 9 } });
  expect((await call(plain, "GET", "/api/config/dns/blockTTL", undefined, sid)).body.config.dns.blockTTL).toBe(9);
  // Pi-hole's own API test: an env-forced item through its element path
  const forced = await plain.api("/api/config/misc/nice", {
    method: "PATCH",
    headers: { sid },
    body: JSON.stringify({ config: { misc: { nice: -10 } } }),
  });
  expect(forced.status).toBe(400);
  const body = (await forced.json()) as Json;
  expect(body.error).toEqual({
    key: "bad_request",
    message: "Config items set via environment variables cannot be changed via the API",
    hint: "misc.nice",
  });
  expect(typeof body.took).toBe("number");
  // sending the forced value unchanged is fine
  expect((await call(plain, "PATCH", "/api/config/misc/nice", { config: { misc: { nice: -5 } } }, sid)).status).toBe(
    200,
  );
});

test("unknown keys and sections are reported, with a suggestion, and nothing is applied", async () => {
  expectError(
    await call(plain, "PATCH", "/api/config", { config: { dns: { blockTTL: 4, upstream: ["9.9.9.9"] } } }, sid),
    400,
    "bad_request",
    "Config item is invalid",
    'dns.upstream: unknown config item (did you mean "dns.upstreams"?)',
  );
  expectError(
    await call(plain, "PATCH", "/api/config", { config: { nosuch: { x: 1 } } }, sid),
    400,
    "bad_request",
    "Config item is invalid",
    "nosuch: unknown config item",
  );
  expectError(
    await call(plain, "PATCH", "/api/config", { config: { ntp: { sync: { rtc: { utcx: true } } } } }, sid),
    400,
    "bad_request",
    "Config item is invalid",
    'ntp.sync.rtc.utcx: unknown config item (did you mean "ntp.sync.rtc.utc"?)',
  );
  expect((await call(plain, "GET", "/api/config/dns/blockTTL", undefined, sid)).body.config.dns.blockTTL).toBe(9);
});

test("Pi-hole's validators: file paths, netmasks, web paths", async () => {
  const patch = (config: unknown) => call(plain, "PATCH", "/api/config", { config }, sid);
  expectError(
    await patch({ files: { pcap: "%gh4b" } }),
    400,
    "bad_request",
    "Config item validation failed",
    'files.pcap: not a valid file path ("%gh4b")',
  );
  expectError(
    await patch({ files: { log: { ftl: "" } } }),
    400,
    "bad_request",
    "Config item validation failed",
    'files.log.ftl: not a valid file path ("")',
  );
  expectError(
    await patch({ webserver: { paths: { webhome: "/admin" } } }),
    400,
    "bad_request",
    "Config item validation failed",
    'webserver.paths.webhome: file path does not start and end with a slash ("/admin")',
  );
  expectError(
    await patch({ dhcp: { netmask: "255.0.255.0" } }),
    400,
    "bad_request",
    "Config item validation failed",
    'dhcp.netmask: not a valid netmask ("255.0.255.0"), the one-bits are not contiguous',
  );
  expectError(
    await patch({ dhcp: { start: "10.0.0" } }),
    400,
    "bad_request",
    "Config item validation failed",
    "dhcp.start: not a valid IPv4 address",
  );
  expectError(
    await patch({ webserver: { interface: { theme: "pink" } } }),
    400,
    "bad_request",
    "Config item is invalid",
    "webserver.interface.theme: invalid option",
  );
  expect((await patch({ files: { pcap: "/tmp/dns capture.pcap" }, dhcp: { netmask: "255.255.255.0" } })).status).toBe(
    200,
  );
});

test("multi-alias CNAME records are accepted and every alias answers with the target", async () => {
  const patch = (config: unknown) => call(plain, "PATCH", "/api/config", { config }, sid);
  expectError(
    await patch({ dns: { cnameRecords: ["a.lan,,nas.lan"] } }),
    400,
    "bad_request",
    "Config item validation failed",
    "dns.cnameRecords[0]: contains an empty string at position 1",
  );
  const r = await patch({
    dns: { hosts: ["10.7.7.7 nas.lan"], cnameRecords: ["files.lan,media.lan,nas.lan,600", "www.lan,nas.lan"] },
  });
  expect(r.status).toBe(200);
  for (const [alias, ttl] of [
    ["files.lan", 600],
    ["media.lan", 600],
    ["www.lan", undefined],
  ] as const) {
    const q = encodeQuery(alias);
    const raw = await sendUdp(plain.dnsPort, q);
    expect(raw).not.toBeNull();
    const reply = decodeReply(raw!);
    expect(reply.msg.id).toBe(decodeReply(q).msg.id);
    expect(reply.msg.questions?.[0]?.name).toBe(alias);
    const cname = reply.answers.find((a) => a.type === "CNAME");
    expect(cname).toMatchObject({ name: alias, data: "nas.lan" });
    if (ttl !== undefined) expect((cname as { ttl?: number }).ttl).toBe(ttl);
    expect(reply.answers.find((a) => a.type === "A")).toMatchObject({ name: "nas.lan", data: "10.7.7.7" });
  }
});
