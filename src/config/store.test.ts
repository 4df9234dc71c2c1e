// The config store on its own: defaults, layers, the exact problem texts, atomic saves, notifications.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigStore, ConfigError, envLeaf, LEAVES } from "./index.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
// Not a real hash: the store only needs a function, and the test must see the plain text disappear.
const fakeHash = (p: string) => `H${Bun.hash(p).toString(16)}`;
const store = (env: Record<string, string> = {}, toml?: string) => {
  const file = join(dir, `c${n++}.toml`);
  if (toml !== undefined) writeFileSync(file, toml);
  return new ConfigStore({ file, env, hashPassword: fakeHash });
};

test("Pi-hole's defaults", () => {
  const c = store().current;
  expect(c.webserver.session.timeout).toBe(1800);
  expect(c.webserver.api.max_sessions).toBe(16);
  expect(c.webserver.api.piholeCompat).toBe(false);
  expect(c.dns.blockTTL).toBe(2);
  expect(c.dns.cache.size).toBe(10000);
  expect(c.dns.rateLimit).toEqual({ count: 1000, interval: 60 });
  expect(c.dns.blocking).toEqual({ active: true, mode: "NULL", edns: "TEXT" });
  expect(c.database.maxDBdays).toBe(91);
  expect(Object.isFrozen(c.dns)).toBe(true);
});

test("both environment spellings map to the same leaf, and unknown names are only warnings", () => {
  expect(envLeaf("FTLCONF_webserver_api_max_sessions")?.path).toBe("webserver.api.max_sessions");
  expect(envLeaf("MOAT_WEBSERVER_API_MAX_SESSIONS")?.path).toBe("webserver.api.max_sessions");
  const s = store({
    FTLCONF_dns_upstreams: "127.0.0.1#5300; ::1",
    MOAT_DNS_BLOCKING_ACTIVE: "false",
    FTLCONF_nope: "1",
  });
  expect(s.current.dns.upstreams).toEqual(["127.0.0.1#5300", "::1"]);
  expect(s.current.dns.blocking.active).toBe(false);
  expect(s.envForced.has("dns.upstreams")).toBe(true);
  expect(s.warnings).toEqual(["ignoring unknown setting FTLCONF_nope"]);
});

test("environment beats file, file beats defaults", () => {
  const s = store({ FTLCONF_dns_port: "5353" }, "[dns]\nport = 5300\nblockTTL = 7\n");
  expect(s.current.dns.port).toBe(5353);
  expect(s.current.dns.blockTTL).toBe(7);
});

test("update: Pi-hole's wording of type errors, invalid options, validator failures and env-forced items", () => {
  const s = store({ FTLCONF_dns_port: "5353" });
  expect(s.update([{ path: "dns.blockESNI", value: "yes" }])).toEqual({
    ok: false,
    problem: { message: "Config item is invalid", hint: "dns.blockESNI: not of type bool" },
  });
  expect(s.update([{ path: "dns.piholePTR", value: "MAYBE" }])).toEqual({
    ok: false,
    problem: { message: "Config item is invalid", hint: "dns.piholePTR: invalid option" },
  });
  expect(s.update([{ path: "dns.cnameRecords", value: ["a.example"] }])).toEqual({
    ok: false,
    problem: {
      message: "Config item validation failed",
      hint: "dns.cnameRecords[0]: not a valid CNAME definition (too few elements)",
    },
  });
  expect(s.update([{ path: "dns.cnameRecords", value: [1] }])).toEqual({
    ok: false,
    problem: { message: "Config item is invalid", hint: "dns.cnameRecords: array has invalid elements" },
  });
  expect(s.update([{ path: "dns.port", value: 53 }])).toEqual({
    ok: false,
    problem: { message: "Config items set via environment variables cannot be changed via the API", hint: "dns.port" },
  });
});

test("update is all or nothing, saves atomically and tells subscribers what changed", () => {
  const s = store();
  const seen: string[][] = [];
  s.subscribe((_next, _prev, changed) => seen.push([...changed]));
  expect(
    s.update([
      { path: "dns.blockTTL", value: 9 },
      { path: "dns.port", value: "x" },
    ]).ok,
  ).toBe(false);
  expect(s.current.dns.blockTTL).toBe(2);
  expect(
    s.update([
      { path: "dns.blockTTL", value: 9 },
      { path: "dns.hosts", value: ["10.0.0.2 nas.lan"] },
    ]),
  ).toEqual({ ok: true, changed: ["dns.blockTTL", "dns.hosts"] });
  expect(seen).toEqual([["dns.blockTTL", "dns.hosts"]]);
  const text = readFileSync(s.file, "utf8");
  expect(text).toContain("blockTTL = 9");
  expect(text).toContain('"10.0.0.2 nas.lan"');
  expect(readdirSync(dir).some((f) => f.includes(".tmp-"))).toBe(false);
  // The saved file reads back to the same values.
  const again = new ConfigStore({ file: s.file, hashPassword: fakeHash });
  expect(again.current.dns.blockTTL).toBe(9);
  expect(again.current.dns.hosts).toEqual(["10.0.0.2 nas.lan"]);
});

test("the password item stores only its hash", () => {
  const s = store();
  expect(s.update([{ path: "webserver.api.password", value: "pw" }])).toEqual({
    ok: true,
    changed: ["webserver.api.pwhash"],
  });
  expect(s.current.webserver.api.pwhash).toBe(fakeHash("pw"));
  expect(readFileSync(s.file, "utf8")).not.toMatch(/^\s*password =/m);
});

test("a plain password written into the file by hand is hashed and removed", () => {
  const s = store({}, '[webserver.api]\npassword = "hunter2"\n');
  expect(s.current.webserver.api.pwhash).toBe(fakeHash("hunter2"));
  expect(readFileSync(s.file, "utf8")).not.toContain("hunter2");
});

test("bad file values throw ConfigError naming the key", () => {
  expect(() => store({}, "[webserver.session]\ntimeout = -5\n")).toThrow(ConfigError);
  expect(() => store({}, "[webserver.session]\ntimeout = -5\n")).toThrow(
    "webserver.session.timeout: not of type unsigned integer",
  );
});

test("every leaf's default passes its own validation", async () => {
  const { coerce } = await import("./leaf.ts");
  for (const e of LEAVES)
    expect({ path: e.path, ok: coerce(e.leaf, e.leaf.default).ok }).toEqual({ path: e.path, ok: true });
});

test("a password from the environment is also kept in the file, once, so a start without the variable keeps it", () => {
  const holds = (plain: string, hash: string) => fakeHash(plain) === hash;
  const file = join(dir, `c${n++}.toml`);
  const open = (env: Record<string, string>) =>
    new ConfigStore({ file, env, hashPassword: fakeHash, holdsPassword: holds });
  open({ FTLCONF_webserver_api_password: "from env" });
  expect(readFileSync(file, "utf8")).toContain(`pwhash = "${fakeHash("from env")}"`);
  const before = readFileSync(file, "utf8");
  open({ FTLCONF_webserver_api_password: "from env" });
  expect(readFileSync(file, "utf8")).toBe(before);
  const later = open({});
  expect(later.current.webserver.api.pwhash).toBe(fakeHash("from env"));
  expect(later.envForced.has("webserver.api.password")).toBe(false);
  // without a way to check a hash, the environment's password stays out of the file (as before)
  const other = join(dir, `c${n++}.toml`);
  new ConfigStore({ file: other, env: { FTLCONF_webserver_api_password: "x" }, hashPassword: fakeHash });
  expect(readFileSync(other, "utf8")).not.toContain("pwhash");
});
