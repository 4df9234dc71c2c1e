// Teleporter against real servers: hostile archives refused with nothing changed, a backup in
// Pi-hole's layout (Pi-hole schema, Balloon hash) restored, a round trip between two Moats, the
// import selection, and the CLI.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashPassword } from "../../src/auth/password.ts";
import { readGravityKey } from "../../src/filter/gravity/tables.ts";
import { readSnapshotFile, snapshotFileOf } from "../../src/filter/snapshot-file.ts";
import { readZip, writeZip } from "../../src/teleporter/zip.ts";
import { BUN, ROOT, run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, login, type Json } from "./helpers.ts";
import { gravityDump, piholeBackup, piholeGravityDb, piholeToml, zipOf } from "./pihole-backup.ts";

let a: MoatProcess;
let b: MoatProcess;
const PIHOLE_PASSWORD = "from-pihole";
let pwhash: string;
let sidA = "";

beforeAll(async () => {
  [a, b] = await Promise.all([startMoat(), startMoat()]);
  pwhash = hashPassword(PIHOLE_PASSWORD);
}, 60000);
afterAll(async () => {
  await Promise.all([a?.dispose(), b?.dispose()]);
});

async function upload(
  m: MoatProcess,
  zip: Uint8Array,
  sid = "",
  selection?: unknown,
): Promise<{ status: number; body: Json }> {
  const fd = new FormData();
  fd.set("file", new Blob([zip], { type: "application/zip" }), "backup.zip");
  if (selection !== undefined) fd.set("import", JSON.stringify(selection));
  const r = await m.api("/api/teleporter", { method: "POST", body: fd, headers: sid ? { sid } : {} });
  return { status: r.status, body: (await r.json()) as Json };
}

/** Changes the central-directory field at `field` of the first entry. */
function patchCentral(zip: Uint8Array, field: number, value: number): Uint8Array {
  const out = zip.slice();
  const v = new DataView(out.buffer);
  for (let i = 0; i < out.length - 4; i++) {
    if (v.getUint32(i, true) === 0x02014b50) {
      v.setUint32(i + field, value, true);
      return out;
    }
  }
  throw new Error("no central directory");
}

async function state(m: MoatProcess) {
  return {
    config: (await call(m, "GET", "/api/config", undefined, sidA)).body.config,
    gravity: gravityDump(m.dataDir),
    file: readFileSync(join(m.dataDir, "pihole.toml"), "utf8"),
  };
}

test("hostile, corrupt and oversized archives are refused and change nothing", async () => {
  const before = await state(a);
  const toml = piholeToml(pwhash);
  const gravity = piholeGravityDb();
  const emptySqlite = (() => {
    const dir = mkdtempSync(join(tmpdir(), "moat-x-"));
    const db = new Database(join(dir, "x.db"), { create: true });
    db.exec("CREATE TABLE foo (a)");
    db.close();
    const bytes = new Uint8Array(readFileSync(join(dir, "x.db")));
    rmSync(dir, { recursive: true });
    return bytes;
  })();
  const good = zipOf({ "etc/pihole/pihole.toml": toml });
  const sizeAt = 24; // central directory: uncompressed size
  const crcAt = 16;
  const cases: Array<[string, Uint8Array, string, string]> = [
    [
      "not a zip",
      new TextEncoder().encode("this is not a zip archive at all, just text"),
      "Invalid file",
      "not a ZIP archive",
    ],
    [
      "path traversal",
      zipOf({ "etc/pihole/pihole.toml": toml, "../../../tmp/moat-evil": "x" }),
      "Invalid file",
      "path traversal",
    ],
    [
      "absolute path",
      zipOf({ "/etc/passwd": "root::0:0::/:/bin/sh", "etc/pihole/pihole.toml": toml }),
      "Invalid file",
      "absolute path",
    ],
    ["zip bomb", zipOf({ "etc/pihole/gravity.db": new Uint8Array(24 * 1024 * 1024) }), "Invalid file", "zip bomb"],
    [
      "size lie",
      patchCentral(zipOf({ "etc/pihole/pihole.toml": toml }), sizeAt, 100),
      "Invalid file",
      "inflates beyond its declared size",
    ],
    ["CRC mismatch", patchCentral(good, crcAt, 12345), "Invalid file", "CRC mismatch"],
    ["truncated", good.subarray(0, good.length - 30), "Invalid file", "not a ZIP archive"],
    [
      "not a database",
      zipOf({
        "etc/pihole/gravity.db": "SQLite format 3\0 but not really",
        "etc/pihole/pihole.toml": toml.replace("blockTTL = 5", "blockTTL = 99"),
      }),
      "Invalid file",
      "etc/pihole/gravity.db: not a readable SQLite database",
    ],
    [
      "wrong database",
      zipOf({ "etc/pihole/gravity.db": emptySqlite, "etc/pihole/pihole.toml": toml }),
      "Invalid file",
      "etc/pihole/gravity.db: not a Pi-hole gravity database (missing table group, adlist, domainlist, client, info)",
    ],
    [
      "bad TOML",
      zipOf({ "etc/pihole/pihole.toml": "[dns\nport = ", "etc/pihole/gravity.db": gravity }),
      "Invalid file",
      "etc/pihole/pihole.toml: not valid TOML",
    ],
    [
      "nothing to import",
      zipOf({ "etc/hosts": "127.0.0.1 localhost\n" }),
      "Invalid file",
      "neither etc/pihole/pihole.toml nor etc/pihole/gravity.db",
    ],
  ];
  for (const [what, zip, message, hint] of cases) {
    const r = await upload(a, zip);
    expect({ what, status: r.status, key: r.body.error?.key, message: r.body.error?.message }).toEqual({
      what,
      status: 400,
      key: "bad_request",
      message,
    });
    expect(String(r.body.error.hint)).toContain(hint);
  }
  // over 50 MiB
  let r = await upload(a, new Uint8Array(50 * 1024 * 1024 + 1));
  expect(r.status).toBe(400);
  expect(r.body.error.message).toBe("ZIP archive too large");
  // no file at all
  const res = await a.api("/api/teleporter", { method: "POST", body: new FormData() });
  expect(res.status).toBe(400);
  expect(((await res.json()) as Json).error.message).toBe("No ZIP archive received");
  r = await upload(a, good, "", "{not json");
  expect(r.body.error).toMatchObject({ key: "bad_request", message: "Invalid request" });
  expect(await state(a)).toEqual(before);
}, 60000);

test("a backup in Pi-hole's layout restores settings, lists and the Balloon password", async () => {
  const r = await upload(a, piholeBackup(pwhash));
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
  ]);
  // the Pi-hole password now protects the API, and works
  expect((await call(a, "GET", "/api/config")).status).toBe(401);
  sidA = await login(a, PIHOLE_PASSWORD);
  const cfg = (await call(a, "GET", "/api/config", undefined, sidA)).body.config;
  expect(cfg.dns.upstreams).toEqual(["127.0.0.1#5335"]);
  expect(cfg.dns.hosts).toEqual(["192.168.1.10 nas.lan", "192.168.1.11 printer.lan"]);
  expect(cfg.dns.cnameRecords).toEqual(["files.lan,nas.lan"]);
  expect(cfg.dns.blocking.mode).toBe("NX");
  expect(cfg.dns.cache.size).toBe(20000);
  expect(cfg.dns.blockTTL).toBe(5);
  expect(cfg.misc.privacylevel).toBe(1);
  expect(cfg.webserver.port).toBe(`127.0.0.1:${a.httpPort}`); // forced by the environment: kept
  expect(cfg.dhcp).toMatchObject({ active: false, start: "192.168.1.100", end: "192.168.1.200" });
  expect(cfg.ntp.ipv4.active).toBe(true);
  const g = gravityDump(a.dataDir);
  expect(g.group!.map((x: any) => [x.id, x.name, x.enabled])).toEqual([
    [0, "Default", 1],
    [1, "kids", 1],
    [2, "iot", 0],
  ]);
  expect(g.domainlist!.map((x: any) => [x.id, x.type, x.domain])).toEqual([
    [1, 1, "denied.example"],
    [2, 0, "allowed.example"],
    [3, 3, "(^|\\.)tracker\\.example$"],
    [4, 1, "kids-only.example"],
  ]);
  expect(g.domainlist_by_group).toEqual([
    { domainlist_id: 1, group_id: 0 },
    { domainlist_id: 2, group_id: 0 },
    { domainlist_id: 3, group_id: 0 },
    { domainlist_id: 4, group_id: 1 },
  ]);
  expect(g.client).toHaveLength(1);
  expect(g.client_by_group).toEqual([
    { client_id: 1, group_id: 0 },
    { client_id: 1, group_id: 1 },
  ]);
  expect(g.adlist_by_group).toEqual([
    { adlist_id: 1, group_id: 0 },
    { adlist_id: 1, group_id: 1 },
  ]);
  expect(g.gravity).toHaveLength(2);
}, 60000);

async function dig(m: MoatProcess, name: string, type = "A"): Promise<string> {
  const r = await run(["dig", "+short", "+tries=3", "+time=3", "-p", String(m.dnsPort), "@127.0.0.1", name, type]);
  return r.stdout.trim();
}

test("round trip: export from one Moat, import into another, same lists, settings and answers", async () => {
  const res = await a.api("/api/teleporter", { headers: { sid: sidA } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/zip");
  expect(res.headers.get("content-disposition")).toMatch(
    /^attachment; filename="pi-hole_.+_teleporter_\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d\.zip"$/,
  );
  const zip = new Uint8Array(await res.arrayBuffer());
  const entries = readZip(zip);
  expect([...entries.keys()]).toEqual([
    "etc/pihole/gravity.db",
    "etc/pihole/pihole.toml",
    "etc/pihole/pihole-FTL.db",
    "etc/hosts",
    "etc/pihole/dhcp.leases",
    "etc/pihole/moat-custom-rules.txt",
  ]);
  expect(new TextDecoder().decode(entries.get("etc/hosts"))).toContain("192.168.1.10 nas.lan");
  // `unzip` (what a Pi-hole user has) reads our archive
  const dir = mkdtempSync(join(tmpdir(), "moat-unzip-"));
  await Bun.write(join(dir, "b.zip"), zip);
  expect((await run(["unzip", "-tq", join(dir, "b.zip")])).code).toBe(0);
  rmSync(dir, { recursive: true });

  const r = await upload(b, zip);
  expect(r.status).toBe(200);
  expect(r.body.files).toContain("etc/pihole/gravity.db->domainlist");
  const sidB = await login(b, PIHOLE_PASSWORD);
  expect(gravityDump(b.dataDir)).toEqual(gravityDump(a.dataDir));
  const cfgA = (await call(a, "GET", "/api/config", undefined, sidA)).body.config;
  const cfgB = (await call(b, "GET", "/api/config", undefined, sidB)).body.config;
  // ports and database paths belong to each instance (environment, data directory)
  for (const c of [cfgA, cfgB]) {
    delete c.webserver.port;
    delete c.dns.port;
    for (const k of ["database", "gravity", "macvendor"]) delete c.files[k];
  }
  expect(cfgB).toEqual(cfgA);
  if (a.output.includes("DNS listening") && b.output.includes("DNS listening")) {
    for (const [name, type] of [
      ["nas.lan", "A"],
      ["files.lan", "CNAME"],
      ["denied.example", "A"],
      ["x.tracker.example", "A"],
    ] as const) {
      const [ra, rb] = await Promise.all([dig(a, name, type), dig(b, name, type)]);
      expect({ name, answer: rb }).toEqual({ name, answer: ra });
    }
    expect(await dig(b, "nas.lan")).toBe("192.168.1.10");
  }
}, 60000);

test("the import selection restores only what is asked for", async () => {
  const sidB = await login(b, PIHOLE_PASSWORD);
  const zip = zipOf({
    "etc/pihole/pihole.toml": piholeToml(pwhash).replace("blockTTL = 5", "blockTTL = 42"),
    "etc/pihole/gravity.db": piholeGravityDb(false),
  });
  const r = await upload(b, zip, sidB, {
    config: false,
    gravity: {
      group: false,
      adlist: false,
      domainlist: true,
      domainlist_by_group: true,
      client: false,
      client_by_group: false,
      adlist_by_group: false,
    },
  });
  expect(r.status).toBe(200);
  expect(r.body.files).toEqual(["etc/pihole/gravity.db->domainlist", "etc/pihole/gravity.db->domainlist_by_group"]);
  const g = gravityDump(b.dataDir);
  expect(g.domainlist).toEqual([]);
  expect(g.group).toHaveLength(3);
  expect(g.client).toHaveLength(1);
  expect((await call(b, "GET", "/api/config/dns/blockTTL", undefined, sidB)).body.config.dns.blockTTL).toBe(5);
}, 30000);

test("a restore names the settings it could not use and puts the others in force at once", async () => {
  const sidB = await login(b, PIHOLE_PASSWORD);
  const zip = zipOf({
    "etc/pihole/pihole.toml": piholeToml(pwhash).replace("blockTTL = 5", "blockTTL = 44\n  threads = -1"),
  });
  const r = await upload(b, zip, sidB);
  expect(r.status).toBe(200);
  expect(r.body.files).toEqual(["etc/pihole/pihole.toml"]);
  expect(r.body.skipped).toEqual([expect.stringMatching(/^dns\.threads: /)]);
  // the restore ran in a child process: the server took the file in before it answered
  expect((await call(b, "GET", "/api/config/dns/blockTTL", undefined, sidB)).body.config.dns.blockTTL).toBe(44);
}, 30000);

test("moat teleporter export|import on the command line", async () => {
  await b.stop();
  const dir = mkdtempSync(join(tmpdir(), "moat-cli-"));
  try {
    const file = join(dir, "backup.zip");
    let r = await run([BUN, join(ROOT, "src/main.ts"), "teleporter", "export", file, "--data-dir", a.dataDir]);
    expect(r.code).toBe(0);
    const target = join(dir, "data");
    r = await run([BUN, join(ROOT, "src/main.ts"), "teleporter", "import", file, "--data-dir", target]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("imported etc/pihole/gravity.db->domainlist");
    expect(gravityDump(target).domainlist).toEqual(gravityDump(a.dataDir).domainlist);
    expect(readFileSync(join(target, "pihole.toml"), "utf8")).toContain(pwhash);
    // the filter's sets of the restored rows are on disk: a server starts (or, after its own restore,
    // rebuilds) from the file instead of from the rows
    const restored = new Database(join(target, "gravity.db"), { readonly: true });
    try {
      expect(readSnapshotFile(snapshotFileOf(restored.filename), readGravityKey(restored))).not.toBeNull();
    } finally {
      restored.close();
    }
    await Bun.write(join(dir, "bad.zip"), writeZip([{ name: "../evil", data: new Uint8Array(3) }]));
    r = await run([BUN, join(ROOT, "src/main.ts"), "teleporter", "import", join(dir, "bad.zip"), "--data-dir", target]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("path traversal");
    expect(r.stderr).toContain("nothing was changed");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60000);
