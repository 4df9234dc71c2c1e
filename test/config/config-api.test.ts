// /api/config against the real server: every validation message Pi-hole gives, round trips,
// env-forced items, array items with percent-encoded values, detailed metadata, write-only
// secrets, app/CLI sessions, sessions ended by a password change, and read-only mode.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, expectError, login } from "./helpers.ts";

let m: MoatProcess;
let sid: string;
const PASSWORD = "correct horse";

beforeAll(async () => {
  m = await startMoat({
    configToml: `[webserver.api]\npassword = "${PASSWORD}"\n`,
    env: { FTLCONF_dns_upstreams: "127.0.0.1#5300;127.0.0.2", FTLCONF_webserver_api_cli_pw: "true" },
  });
  sid = await login(m, PASSWORD);
}, 60000);
afterAll(async () => {
  await m.dispose();
});

const patch = (config: unknown, s = sid) => call(m, "PATCH", "/api/config", { config }, s);

test("config needs a session", async () => {
  expectError(await call(m, "GET", "/api/config"), 401, "unauthorized", "Unauthorized");
  expectError(await call(m, "PATCH", "/api/config", { config: {} }), 401, "unauthorized", "Unauthorized");
});

test("GET: the whole tree, subtrees by path, unknown path 404", async () => {
  const all = await call(m, "GET", "/api/config", undefined, sid);
  expect(all.status).toBe(200);
  expect(Object.keys(all.body.config)).toEqual(
    expect.arrayContaining(["dns", "resolver", "database", "webserver", "misc"]),
  );
  expect(all.body.config.dns.upstreams).toEqual(["127.0.0.1#5300", "127.0.0.2"]);
  const sub = await call(m, "GET", "/api/config/dns/cache", undefined, sid);
  expect(sub.body).toMatchObject({
    config: { dns: { cache: { size: 10000, optimizer: 3600, upstreamBlockedTTL: 86400 } } },
  });
  expect(Object.keys(sub.body.config)).toEqual(["dns"]);
  const leaf = await call(m, "GET", "/api/config/dns/upstreams", undefined, sid);
  expect(leaf.body.config).toEqual({ dns: { upstreams: ["127.0.0.1#5300", "127.0.0.2"] } });
  expectError(
    await call(m, "GET", "/api/config/dns/nosuch", undefined, sid),
    404,
    "not_found",
    "Not found",
    "/api/config/dns/nosuch",
  );
});

test("write-only secrets are never shown", async () => {
  const api = (await call(m, "GET", "/api/config/webserver/api", undefined, sid)).body.config.webserver.api;
  expect(api.password).toBe("********");
  expect(api.pwhash).toBe("********");
  expect(api.totp_secret).toBe("");
  expect(api.app_pwhash).toBe("");
  const raw = readFileSync(join(m.dataDir, "pihole.toml"), "utf8");
  expect(raw).toContain("$BALLOON-SHA256$");
  const all = JSON.stringify((await call(m, "GET", "/api/config?detailed=true", undefined, sid)).body);
  expect(all).not.toContain("BALLOON");
  // Sending the mask back (what a sync tool does with a GET reply) changes nothing.
  const r = await patch({ webserver: { api: { password: "********", pwhash: "********" } } });
  expect(r.status).toBe(200);
  expect(readFileSync(join(m.dataDir, "pihole.toml"), "utf8")).toBe(raw);
  expect((await call(m, "GET", "/api/config/dns/port", undefined, sid)).status).toBe(200); // session still valid
});

test("every validation message and hint", async () => {
  expectError(
    await patch({ dns: { blockESNI: "yes" } }),
    400,
    "bad_request",
    "Config item is invalid",
    "dns.blockESNI: not of type bool",
  );
  expectError(
    await patch({ dns: { piholePTR: "SOMETIMES" } }),
    400,
    "bad_request",
    "Config item is invalid",
    "dns.piholePTR: invalid option",
  );
  expectError(
    await patch({ dns: { cnameRecords: ["a.lan,b.lan", 5] } }),
    400,
    "bad_request",
    "Config item is invalid",
    "dns.cnameRecords: array has invalid elements",
  );
  expectError(
    await patch({ dns: { cnameRecords: ["a.lan"] } }),
    400,
    "bad_request",
    "Config item validation failed",
    "dns.cnameRecords[0]: not a valid CNAME definition (too few elements)",
  );
  expectError(
    await patch({ dns: { hosts: ["10.0.0.1 ok.lan", "300.1.1.1 nas.lan"] } }),
    400,
    "bad_request",
    "Config item validation failed",
    "dns.hosts[1]: not a valid HOSTS definition (invalid IP address)",
  );
  expectError(
    await patch({ dns: { domain: { name: "bad..name" } } }),
    400,
    "bad_request",
    "Config item validation failed",
    "dns.domain.name: not a valid domain",
  );
  expectError(
    await patch({ misc: { privacylevel: 4 } }),
    400,
    "bad_request",
    "Config item is invalid",
    "misc.privacylevel: must be at most 3",
  );
  expectError(
    await patch({ dns: { cache: { size: -1 } } }),
    400,
    "bad_request",
    "Config item is invalid",
    "dns.cache.size: not of type unsigned integer",
  );
  expectError(
    await patch({ dns: { rateLimit: { count: 1.5 } } }),
    400,
    "bad_request",
    "Config item is invalid",
    "dns.rateLimit.count: not of type unsigned integer",
  );
  expectError(
    await patch({ dns: { port: 53 } }),
    400,
    "bad_request",
    "Config items set via environment variables cannot be changed via the API",
    "dns.port",
  );
  expectError(await patch({ dns: 5 }), 400, "bad_request", "Config item is invalid", "dns: not of type object");
  expectError(
    await call(m, "PATCH", "/api/config", { conf: {} }, sid),
    400,
    "body_error",
    'No "config" object in body data',
  );
  expectError(
    await call(m, "PATCH", "/api/config", { config: [1] }, sid),
    400,
    "body_error",
    'No "config" object in body data',
  );
  expectError(
    await call(m, "PATCH", "/api/config", "{bad", sid),
    400,
    "bad_request",
    "Invalid request body data (no valid JSON), error at hint",
  );
  // All or nothing: a valid item next to an invalid one is not applied.
  expectError(await patch({ dns: { blockTTL: 7, piholePTR: "X" } }), 400, "bad_request", "Config item is invalid");
  expect((await call(m, "GET", "/api/config/dns/blockTTL", undefined, sid)).body.config.dns.blockTTL).toBe(2);
});

test("environment-forced items are refused, unless unchanged", async () => {
  expectError(
    await patch({ dns: { upstreams: ["9.9.9.9"] } }),
    400,
    "bad_request",
    "Config items set via environment variables cannot be changed via the API",
    "dns.upstreams",
  );
  expectError(
    await call(m, "PUT", "/api/config/dns/upstreams/9.9.9.9", undefined, sid),
    400,
    "bad_request",
    "Config items set via environment variables cannot be changed via the API",
    "dns.upstreams",
  );
  // a whole GET reply sent back (sync tools) is fine: forced items carry their current value
  const all = (await call(m, "GET", "/api/config", undefined, sid)).body.config;
  const r = await patch(all);
  expect(r.status).toBe(200);
});

test("PATCH then GET round trip, persisted in the file", async () => {
  const r = await patch({
    dns: {
      blockTTL: 7,
      blocking: { mode: "NX" },
      hosts: ["10.1.2.3 nas.lan"],
      cnameRecords: ["files.lan,nas.lan,300"],
      revServers: ["true,192.168.0.0/24,192.168.0.1,fritz.box"],
    },
    misc: { privacylevel: 1 },
  });
  expect(r.status).toBe(200);
  expect(r.body.config.dns.blockTTL).toBe(7);
  const got = (await call(m, "GET", "/api/config", undefined, sid)).body.config;
  expect(got.dns.blocking.mode).toBe("NX");
  expect(got.dns.hosts).toEqual(["10.1.2.3 nas.lan"]);
  expect(got.dns.cnameRecords).toEqual(["files.lan,nas.lan,300"]);
  expect(got.dns.revServers).toEqual(["true,192.168.0.0/24,192.168.0.1,fritz.box"]);
  expect(got.misc.privacylevel).toBe(1);
  const file = Bun.TOML.parse(readFileSync(join(m.dataDir, "pihole.toml"), "utf8")) as any;
  expect(file.dns.blocking.mode).toBe("NX");
  expect(file.dns.blockTTL).toBe(7);
  expect(file.dns.upstreams).toBeUndefined(); // env layer never lands in the file
});

test("array items: PUT/DELETE with percent-encoded values", async () => {
  let r = await call(m, "PUT", "/api/config/dns/hosts/10.9.9.9%20printer.lan%20lp.lan", undefined, sid);
  expect(r.status).toBe(201);
  expectError(
    await call(m, "PUT", "/api/config/dns/hosts/10.9.9.9%20printer.lan%20lp.lan", undefined, sid),
    400,
    "bad_request",
    "Item already present",
    "Uniqueness of items is enforced",
  );
  r = await call(m, "PUT", "/api/config/dns/cnameRecords/www.lan%2Cnas.lan%2C300", undefined, sid);
  expect(r.status).toBe(201);
  expectError(
    await call(m, "PUT", "/api/config/dns/cnameRecords/only-one.lan", undefined, sid),
    400,
    "bad_request",
    "Config item validation failed",
    "dns.cnameRecords[2]: not a valid CNAME definition (too few elements)",
  );
  let got = (await call(m, "GET", "/api/config/dns", undefined, sid)).body.config.dns;
  expect(got.hosts).toEqual(["10.1.2.3 nas.lan", "10.9.9.9 printer.lan lp.lan"]);
  expect(got.cnameRecords).toEqual(["files.lan,nas.lan,300", "www.lan,nas.lan,300"]);
  r = await call(m, "DELETE", "/api/config/dns/hosts/10.1.2.3%20nas.lan", undefined, sid);
  expect(r.status).toBe(204);
  expectError(
    await call(m, "DELETE", "/api/config/dns/hosts/10.1.2.3%20nas.lan", undefined, sid),
    404,
    "not_found",
    "Item not found",
    "10.1.2.3 nas.lan",
  );
  got = (await call(m, "GET", "/api/config/dns/hosts", undefined, sid)).body.config.dns;
  expect(got.hosts).toEqual(["10.9.9.9 printer.lan lp.lan"]);
  expectError(
    await call(m, "PUT", "/api/config/dns/port/5353", undefined, sid),
    400,
    "bad_request",
    "Invalid path depth",
  );
  expectError(await call(m, "PUT", "/api/config/dns/hosts", undefined, sid), 400, "bad_request", "Invalid path depth");
  expectError(await call(m, "DELETE", "/api/config/dns", undefined, sid), 400, "bad_request", "Invalid path depth");
});

test("detailed metadata", async () => {
  const r = await call(m, "GET", "/api/config/dns?detailed=true", undefined, sid);
  expect(r.status).toBe(200);
  const dns = r.body.config.dns;
  expect(dns.upstreams).toMatchObject({
    type: "string array",
    value: ["127.0.0.1#5300", "127.0.0.2"],
    default: [],
    modified: true,
    flags: { restart_dnsmasq: true, session_reset: false, env_var: true },
  });
  expect(typeof dns.upstreams.description).toBe("string");
  expect(dns.blockTTL).toMatchObject({
    type: "unsigned integer",
    value: 7,
    default: 2,
    modified: true,
    flags: { env_var: false },
  });
  expect(dns.piholePTR.type).toBe("enum (string)");
  expect(dns.piholePTR.allowed.map((a: any) => a.item)).toEqual(["PI.HOLE", "NONE", "HOSTNAME", "HOSTNAMEFQDN"]);
  expect(dns.cache.size.modified).toBe(false);
  expect(Array.isArray(r.body.topics)).toBe(true);
  expect(Array.isArray(r.body.dns_servers)).toBe(true);
  const api = (await call(m, "GET", "/api/config/webserver/api?detailed=true", undefined, sid)).body.config.webserver
    .api;
  expect(api.pwhash).toMatchObject({ value: "********", modified: true, flags: { session_reset: true } });
  expect(api.password).toMatchObject({ value: "********", type: "password (write-only string)" });
});

test("app sessions without app_sudo and CLI sessions may read but not change config", async () => {
  const app = await call(m, "GET", "/api/auth/app", undefined, sid);
  expect(app.status).toBe(200);
  // setting the app password ends every session (session_reset), including ours
  expect((await patch({ webserver: { api: { app_pwhash: app.body.app.hash } } })).status).toBe(200);
  expectError(await call(m, "GET", "/api/config/dns/port", undefined, sid), 401, "unauthorized", "Unauthorized");
  sid = await login(m, PASSWORD);
  const appSid = await login(m, app.body.app.password);
  expect((await call(m, "GET", "/api/config/dns/port", undefined, appSid)).status).toBe(200);
  const hintApp =
    "The current app session is not allowed to modify Pi-hole config settings (webserver.api.app_sudo is false)";
  expectError(
    await patch({ misc: { privacylevel: 2 } }, appSid),
    403,
    "forbidden",
    "Unable to change configuration (read-only)",
    hintApp,
  );
  expectError(
    await call(m, "PUT", "/api/config/dns/hosts/10.0.0.7%20x.lan", undefined, appSid),
    403,
    "forbidden",
    "Unable to change configuration (read-only)",
    hintApp,
  );
  expectError(
    await call(m, "DELETE", "/api/config/dns/hosts/10.9.9.9%20printer.lan%20lp.lan", undefined, appSid),
    403,
    "forbidden",
    "Unable to change configuration (read-only)",
    hintApp,
  );
  const cliSid = await login(m, readFileSync(join(m.dataDir, "cli_pw"), "utf8"));
  expectError(
    await patch({ misc: { privacylevel: 2 } }, cliSid),
    403,
    "forbidden",
    "Unable to change configuration (read-only)",
    "The current CLI session is not allowed to modify Pi-hole config settings",
  );
  // importing a backup changes the config too
  const fd = new FormData();
  fd.set("file", new Blob([new Uint8Array(16)]), "backup.zip");
  const tele = await m.api("/api/teleporter", { method: "POST", body: fd, headers: { sid: appSid } });
  expect(tele.status).toBe(403);
  expect(((await tele.json()) as any).error).toEqual({
    key: "forbidden",
    message: "Unable to change configuration (read-only)",
    hint: hintApp,
  });
  // with app_sudo the app session may
  expect((await patch({ webserver: { api: { app_sudo: true } } })).status).toBe(200);
  expect((await patch({ misc: { privacylevel: 2 } }, appSid)).status).toBe(200);
  expect((await call(m, "GET", "/api/config/misc/privacylevel", undefined, sid)).body.config.misc.privacylevel).toBe(2);
});

test("a password change ends all sessions; the new password works", async () => {
  const other = await login(m, PASSWORD);
  expect((await patch({ webserver: { api: { password: "new secret" } } })).status).toBe(200);
  expectError(await call(m, "GET", "/api/config/dns/port", undefined, sid), 401, "unauthorized", "Unauthorized");
  expectError(await call(m, "GET", "/api/config/dns/port", undefined, other), 401, "unauthorized", "Unauthorized");
  expect((await call(m, "POST", "/api/auth", { password: PASSWORD })).status).toBe(401);
  sid = await login(m, "new secret");
  // a TOTP secret change also ends sessions
  expect((await patch({ webserver: { api: { totp_secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" } } })).status).toBe(200);
  expectError(await call(m, "GET", "/api/config/dns/port", undefined, sid), 401, "unauthorized", "Unauthorized");
  expect(readFileSync(join(m.dataDir, "pihole.toml"), "utf8")).toContain("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP");
}, 30000);

test("read-only mode refuses every change", async () => {
  // TOTP is on now; turn it off by restarting with the file edited, as an administrator would
  await m.stop();
  const file = join(m.dataDir, "pihole.toml");
  await Bun.write(
    file,
    readFileSync(file, "utf8")
      .replace(/totp_secret = ".*"/, 'totp_secret = ""')
      .replace(/\[misc\]/, "[misc]\n  readOnly = true"),
  );
  await m.start();
  sid = await login(m, "new secret");
  expect((await call(m, "GET", "/api/config/misc/readOnly", undefined, sid)).body.config.misc.readOnly).toBe(true);
  expectError(
    await patch({ misc: { readOnly: false } }),
    403,
    "forbidden",
    "The config is currently in read-only mode",
  );
  expectError(
    await call(m, "PUT", "/api/config/dns/hosts/10.0.0.8%20y.lan", undefined, sid),
    403,
    "forbidden",
    "The config is currently in read-only mode",
  );
  expectError(
    await call(m, "DELETE", "/api/config/dns/hosts/10.9.9.9%20printer.lan%20lp.lan", undefined, sid),
    403,
    "forbidden",
    "The config is currently in read-only mode",
  );
  // settings survived the restart
  const dns = (await call(m, "GET", "/api/config/dns", undefined, sid)).body.config.dns;
  expect(dns.blocking.mode).toBe("NX");
  expect(dns.hosts).toEqual(["10.9.9.9 printer.lan lp.lan"]);
}, 60000);
