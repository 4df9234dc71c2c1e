// Settings input the config API refuses: numbers out of their range (enforced the same way by PATCH
// /api/config, the TOML file and a Teleporter pihole.toml: src/config/leaf.ts's coerce), upstreams the
// forwarder cannot use (what the dashboard's Settings page sent), and CNAME records that loop.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, ConfigStore, LEAVES } from "../../src/config/index.ts";
import { planConfig } from "../../src/teleporter/import-config.ts";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, expectError } from "./helpers.ts";

let m: MoatProcess;
const dir = mkdtempSync(join(tmpdir(), "moat-ranges-"));
beforeAll(async () => {
  m = await startMoat();
}, 60000);
afterAll(async () => {
  await m.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** The settings the report named, each with a value far out of range. */
const HUGE: Array<[string, number]> = [
  ["webserver.session.timeout", 1e308],
  ["dns.blockTTL", 1e308],
  ["dns.cache.size", 1e308],
  ["dns.rateLimit.count", 1e308],
  ["webserver.api.maxHistory", 1e308],
  ["database.maxDBdays", 1e308],
  ["webserver.api.loginRateLimit", 1e308],
  ["dns.cache.optimizer", -1e308],
  ["webserver.api.maxHistory", 86401],
];

const nest = (path: string, value: unknown): Record<string, unknown> =>
  path.split(".").reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;

test("every number of the settings tree has a finite minimum and maximum", () => {
  const open = LEAVES.filter(
    (e) =>
      (e.leaf.kind === "int" || e.leaf.kind === "uint" || e.leaf.kind === "float") &&
      !(Number.isFinite(e.leaf.min) && Number.isFinite(e.leaf.max)),
  ).map((e) => e.path);
  expect(open).toEqual([]);
  // the integers of FTL's day counts must still fit 32-bit seconds
  for (const e of LEAVES) if (e.leaf.max !== undefined) expect(e.leaf.max).toBeLessThanOrEqual(2 ** 31 - 1);
});

test("PATCH /api/config refuses numbers out of range, and the value stays", async () => {
  for (const [path, value] of HUGE) {
    const r = await call(m, "PATCH", "/api/config", { config: nest(path, value) });
    expectError(r, 400, "bad_request", "Config item is invalid");
    expect(r.body.error.hint).toMatch(new RegExp(`^${path.replace(/\./g, "\\.")}: must be at (most|least) -?\\d+$`));
  }
  const cur = (await call(m, "GET", "/api/config")).body.config;
  expect(cur.webserver.session.timeout).toBe(1800);
  expect(cur.dns.blockTTL).toBe(2);
  expect(cur.dns.cache.optimizer).toBe(3600);
  // the edges themselves are accepted
  const edge = await call(m, "PATCH", "/api/config", { config: { webserver: { api: { maxHistory: 86400 } } } });
  expect(edge.status).toBe(200);
});

test("/api/config?detailed=true shows each number's range", async () => {
  const r = await call(m, "GET", "/api/config/dns/blockTTL?detailed=true");
  expect(r.status).toBe(200);
  expect(JSON.stringify(r.body)).toContain("a number from 0 to 86400");
});

test("text settings have a limit too: 4096 characters, 10,000 list elements", async () => {
  const long = "x".repeat(4097);
  let r = await call(m, "PATCH", "/api/config", { config: { webserver: { domain: long } } });
  expectError(r, 400, "bad_request", "Config item is invalid", "webserver.domain: longer than 4096 characters");
  expect(JSON.stringify(r.body).length).toBeLessThan(1000);
  r = await call(m, "PATCH", "/api/config", { config: { dns: { hosts: [`192.0.2.1 ${long}`] } } });
  expectError(r, 400, "bad_request", "Config item is invalid", "dns.hosts: an element is longer than 4096 characters");
  r = await call(m, "PATCH", "/api/config", { config: { misc: { dnsmasq_lines: Array(10001).fill("x") } } });
  expectError(r, 400, "bad_request", "Config item is invalid", "misc.dnsmasq_lines: more than 10000 elements");
  const d = await call(m, "GET", "/api/config/webserver/domain?detailed=true");
  expect(JSON.stringify(d.body)).toContain("a string of at most 4096 characters");
});

test("the TOML file: a number out of range is refused with the file, line and key", () => {
  const file = join(dir, "pihole.toml");
  writeFileSync(file, "[dns]\nblockTTL = 1e308\n");
  expect(() => new ConfigStore({ file, env: {}, hashPassword: (p) => p })).toThrow(ConfigError);
  expect(() => new ConfigStore({ file, env: {}, hashPassword: (p) => p })).toThrow(
    "line 2: dns.blockTTL: must be at most 86400",
  );
});

test("a Teleporter pihole.toml: out-of-range numbers are skipped and named, the rest restored", () => {
  const file = join(dir, "restore.toml");
  writeFileSync(file, "");
  const store = new ConfigStore({ file, env: {}, hashPassword: (p) => p });
  const plan = planConfig(
    store,
    "[webserver.session]\ntimeout = 1e308\n[dns]\nblockTTL = 5\n[dns.cache]\noptimizer = -1e308\n[database]\nmaxDBdays = 1e308\n",
  );
  expect(plan.skipped).toEqual(
    expect.arrayContaining([
      "webserver.session.timeout: must be at most 31536000",
      "dns.cache.optimizer: must be at least -31536000",
      "database.maxDBdays: must be at most 24855",
    ]),
  );
  expect(plan.changes).toContainEqual({ path: "dns.blockTTL", value: 5 });
  expect(plan.changes.some((c) => c.path === "webserver.session.timeout" && c.value === 1e308)).toBe(false);
});

test("an upstream that is no address: what the Settings page sends is refused, nothing is stored", async () => {
  // the page's save (src/web/ui/pages/settings.tsx → patchConfig): the whole DNS form in one PATCH
  const page = {
    dns: {
      upstreams: ["9.9.9.9", "not-an-ip"],
      revServers: [],
      blocking: { mode: "NULL" },
      rateLimit: { count: 1000, interval: 60 },
    },
  };
  const r = await call(m, "PATCH", "/api/config", { config: page });
  expectError(
    r,
    400,
    "bad_request",
    "Config item validation failed",
    "dns.upstreams[1]: not a valid upstream (expected IP[#port]; a server by name is tls://name or https://name/dns-query)",
  );
  expectError(
    await call(m, "PUT", "/api/config/dns/upstreams/not-an-ip"),
    400,
    "bad_request",
    "Config item validation failed",
  );
  expect((await call(m, "GET", "/api/config/dns/upstreams")).body.config.dns.upstreams).toEqual([]);
  // what the forwarder uses is still taken
  const ok = await call(m, "PATCH", "/api/config", {
    config: { dns: { upstreams: ["9.9.9.9#53", "tls://dns.quad9.net", "https://dns.quad9.net/dns-query"] } },
  });
  expect(ok.status).toBe(200);
  expect((await call(m, "PATCH", "/api/config", { config: { dns: { upstreams: [] } } })).status).toBe(200);
});

test("CNAME records that point to themselves or loop through each other are refused", async () => {
  const cases: Array<[string[], string]> = [
    [["loop.lan,loop.lan"], 'not a valid CNAME definition ("loop.lan" points to itself)'],
    [["Loop.lan,loop.lan.,60"], 'not a valid CNAME definition ("loop.lan" points to itself)'],
    [
      ["a.lan,b.lan", "b.lan,c.lan", "c.lan,a.lan"],
      "not a valid CNAME definition (the records loop: a.lan → b.lan → c.lan → a.lan)",
    ],
    [
      ["x.lan,a.lan", "a.lan,b.lan", "b.lan,a.lan"],
      "not a valid CNAME definition (the records loop: a.lan → b.lan → a.lan)",
    ],
  ];
  for (const [records, problem] of cases) {
    const r = await call(m, "PATCH", "/api/config", { config: { dns: { cnameRecords: records } } });
    expectError(r, 400, "bad_request", "Config item validation failed", `dns.cnameRecords: ${problem}`);
  }
  // adding the record that closes a loop, one at a time
  expect(
    (await call(m, "PATCH", "/api/config", { config: { dns: { cnameRecords: ["a.lan,b.lan", "w.lan,a.lan"] } } }))
      .status,
  ).toBe(200);
  expectError(
    await call(m, "PUT", `/api/config/dns/cnameRecords/${encodeURIComponent("b.lan,w.lan")}`),
    400,
    "bad_request",
    "Config item validation failed",
  );
  expect((await call(m, "GET", "/api/config/dns/cnameRecords")).body.config.dns.cnameRecords).toEqual([
    "a.lan,b.lan",
    "w.lan,a.lan",
  ]);
  // a chain that ends is fine
  expect(
    (
      await call(m, "PATCH", "/api/config", {
        config: { dns: { cnameRecords: ["a.lan,b.lan", "b.lan,c.lan", "d.lan,c.lan"] } },
      })
    ).status,
  ).toBe(200);
});
