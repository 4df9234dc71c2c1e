// The last places where Pi-hole FTL v6.4 answers differently from Moat's own mode, each asked of a
// Moat in compatibility mode and of one in its own mode (docs/pihole-differences.md): the hash
// echoed by PATCH …/app_pwhash (FTL's bats test "Create, set, and use application password"),
// addresses without netmask, nameUpdated as a number, the query log without the database floors,
// and versions that PADD shows without a false "Updates are available".
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, login, type Json } from "../config/helpers.ts";

const PASSWORD = "compat";
let compat: MoatProcess;
let plain: MoatProcess;

beforeAll(async () => {
  const toml = (c: boolean) => `[webserver.api]\npassword = "${PASSWORD}"\npiholeCompat = ${c}\n`;
  [compat, plain] = await Promise.all([startMoat({ configToml: toml(true) }), startMoat({ configToml: toml(false) })]);
}, 60000);
afterAll(async () => {
  await Promise.all([compat?.dispose(), plain?.dispose()]);
});

const sids = new Map<MoatProcess, string>();
/** A GET with a session, logging in again when a PATCH of a password hash has ended it. */
async function get(m: MoatProcess, path: string): Promise<Json> {
  let r = await call(m, "GET", path, undefined, sids.get(m));
  if (r.status === 401) {
    sids.set(m, await login(m, PASSWORD));
    r = await call(m, "GET", path, undefined, sids.get(m));
  }
  expect(r.status).toBe(200);
  return r.body;
}

test("PATCH /api/config/webserver/api/app_pwhash echoes the hash in compatibility mode, and the app password works", async () => {
  for (const [m, isCompat] of [
    [compat, true],
    [plain, false],
  ] as const) {
    const sid = await login(m, PASSWORD);
    const app = await call(m, "GET", "/api/auth/app", undefined, sid);
    expect(app.status).toBe(200);
    const hash = app.body.app.hash as string;
    expect(hash).toMatch(/^\$BALLOON-SHA256\$/);
    const r = await call(
      m,
      "PATCH",
      "/api/config/webserver/api/app_pwhash",
      { config: { webserver: { api: { app_pwhash: hash } } } },
      sid,
    );
    expect(r.status).toBe(200);
    // FTL's bats test compares the whole line: {"config":{"webserver":{"api":{"app_pwhash":<hash>}}},"took":…}
    expect(Object.keys(r.body)).toEqual(["config", "took"]);
    expect(r.body.config).toEqual({ webserver: { api: { app_pwhash: isCompat ? hash : "********" } } });
    // Moat's own mode keeps the hashes masked everywhere; Pi-hole reads them back as they are
    const fresh = await login(m, PASSWORD);
    const api = (await call(m, "GET", "/api/config/webserver/api", undefined, fresh)).body.config.webserver.api;
    expect([api.app_pwhash, api.totp_secret, api.password]).toEqual([isCompat ? hash : "********", "", "********"]);
    expect(api.pwhash).toMatch(isCompat ? /^\$BALLOON-SHA256\$/ : /^\*{8}$/);
    const viaApp = await call(m, "POST", "/api/auth", { password: app.body.app.password });
    expect([viaApp.status, viaApp.body.session.valid]).toEqual([200, true]);
  }
}, 60000);

test("interface addresses carry netmask only in Moat's own mode (FTL has prefixlen)", async () => {
  for (const [m, isCompat] of [
    [compat, true],
    [plain, false],
  ] as const) {
    for (const path of ["/api/network/interfaces", "/api/network/gateway?detailed=true"]) {
      const lo = ((await get(m, path)).interfaces as Json[]).find((i) => i.name === "lo")!;
      const v4 = (lo.addresses as Json[]).find((a) => a.address === "127.0.0.1")!;
      expect([path, v4.prefixlen, v4.family]).toEqual([path, 8, "inet"]);
      expect([path, "netmask" in v4]).toEqual([path, !isCompat]);
      if (!isCompat) expect(v4.netmask).toBe("255.0.0.0");
    }
  }
});

test("an address never named: nameUpdated 0 in compatibility mode (FTL writes a number), null in Moat's own", async () => {
  const now = Math.floor(Date.now() / 1000);
  for (const [m, isCompat] of [
    [compat, true],
    [plain, false],
  ] as const) {
    const db = new Database(join(m.dataDir, "pihole-FTL.db"));
    db.run("PRAGMA busy_timeout = 5000");
    db.run(
      "INSERT INTO network (hwaddr, interface, firstSeen, lastQuery, numQueries) VALUES ('aa:bb:cc:00:00:01', 'eth0', ?, ?, 3)",
      [now - 60, now + 3600],
    );
    const id = (db.query("SELECT id FROM network WHERE hwaddr = 'aa:bb:cc:00:00:01'").get() as { id: number }).id;
    db.run("INSERT INTO network_addresses (network_id, ip, lastSeen) VALUES (?, '192.0.2.77', ?)", [id, now]);
    db.close();
    const dev = ((await get(m, "/api/network/devices")).devices as Json[]).find(
      (d) => d.hwaddr === "aa:bb:cc:00:00:01",
    )!;
    expect(dev.ips).toEqual([{ ip: "192.0.2.77", name: null, lastSeen: now, nameUpdated: isCompat ? 0 : null }]);
  }
});

test("the query log carries the database floors only in Moat's own mode (FTL has them in /api/info/database)", async () => {
  for (const path of ["/api/queries", "/api/queries?disk=true"]) {
    const c = await get(compat, path);
    expect([path, Object.keys(c).sort()]).toEqual([
      path,
      ["cursor", "draw", "queries", "recordsFiltered", "recordsTotal", "took"],
    ]);
    const p = await get(plain, path);
    expect([path, typeof p.earliest_timestamp, typeof p.earliest_timestamp_disk]).toEqual([path, "number", "number"]);
  }
  const db = await get(compat, "/api/info/database");
  expect([typeof db.earliest_timestamp, typeof db.earliest_timestamp_disk]).toEqual(["number", "number"]);
});

test("the literal template /api/search/%7Bdomain%7D: 400 in Moat's own mode, nothing found in compatibility mode; the table of differences says so", async () => {
  const c = await get(compat, "/api/search/%7Bdomain%7D");
  expect([c.search.domains, c.search.gravity]).toEqual([[], []]);
  if (!sids.has(plain)) sids.set(plain, await login(plain, PASSWORD));
  const p = await call(plain, "GET", "/api/search/%7Bdomain%7D", undefined, sids.get(plain));
  expect([p.status, p.body.error.key, p.body.error.message]).toEqual([
    400,
    "bad_request",
    "Invalid request: Invalid domain name",
  ]);
  // every behaviour that depends on the mode is a row of the table, the Teleporter's header included
  // (test/conformance/pihole-api.test.ts checks that header itself)
  const rows = readFileSync(join(import.meta.dir, "../../docs/pihole-differences.md"), "utf8")
    .split("\n")
    .filter((l) => l.startsWith("| "));
  expect(rows.some((r) => r.includes("/api/search/%7Bdomain%7D") && r.includes("400"))).toBe(true);
  expect(rows.some((r) => r.includes("pihole.toml") && r.includes("Teleporter"))).toBe(true);
});

/** A null read by `jq --raw-output` is the text "null". */
const jq = (v: unknown) => (v === null || v === undefined ? "null" : String(v));
/** PADD's VersionConverter: letters dropped, then "%d%03d%03d%03d" of the dotted parts. */
const converted = (v: string) =>
  v
    .replace(/[A-Za-z]/g, "")
    .split(".")
    .slice(0, 4)
    .reduce((n, part, i) => n + (Number.parseInt(part, 10) || 0) * 1000 ** (3 - i), 0);

/**
 * What PADD (padd.sh, GetVersionInformation) makes of one component: the version it prints and
 * whether it raises "Updates are available". On "master" it compares the versions (remote read
 * through the misspelt key `remmote`, so always null); on any other branch it prints the branch
 * and calls local.hash ≠ remote.hash out of date.
 */
function padd(c: Json): { shown: string; update: boolean } {
  const branch = jq(c.local.branch);
  const version = jq(c.local.version)
    .replace(/[A-Za-z]/g, "")
    .split("-")[0]!;
  if (branch === "master") {
    const remote = jq(c.remmote?.version)
      .replace(/[A-Za-z]/g, "")
      .split("-")[0]!;
    return { shown: version, update: converted(version) < converted(remote) };
  }
  if (branch === "") return { shown: "?", update: false };
  return { shown: branch.slice(0, 7), update: jq(c.local.hash) !== jq(c.remote.hash) };
}

test("PADD shows Moat's version and no update notice: branch master, nothing said of newer releases", async () => {
  for (const m of [compat, plain]) {
    const own = (await get(plain, "/api/info/version")).version.moat.version as string;
    expect(own).toMatch(/^v\d+\.\d+\.\d+/);
    for (const version of [(await get(m, "/api/info/version")).version, (await get(m, "/api/padd")).version]) {
      expect(version.docker).toEqual({ local: null, remote: null });
      for (const part of ["core", "web", "ftl"]) {
        expect([part, version[part].local.branch, version[part].local.version]).toEqual([part, "master", own]);
        // Moat cannot know of a newer release: it says nothing rather than "this is the newest"
        expect([part, version[part].remote]).toEqual([part, { version: null, hash: null }]);
        expect([part, padd(version[part])]).toEqual([part, { shown: own.slice(1), update: false }]);
      }
    }
  }
});
