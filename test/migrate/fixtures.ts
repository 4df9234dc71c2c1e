// Real-shaped Pi-hole and AdGuard Home installs, written by the tests: a Pi-hole v6 directory, a v5
// one (its gravity.db in v5's schema, pihole-FTL.db with v5's `queries` table), a v5 Teleporter
// .tar.gz (JSON tables) and a v6 one (.zip), and AdGuardHome.yaml files of schema versions 27, 29 and 34.
// Every one holds the same household, so each test checks the same answers: 127.0.0.2 is a child's
// device (group "kids"), 127.0.0.3 a parent's.
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { legacyHash } from "../../src/auth/password.ts";
import { GRAVITY_SCHEMA } from "../../src/db/gravity-schema.ts";
import { QUERY_SCHEMA } from "../../src/db/query-schema.ts";
import { writeZip } from "../../src/teleporter/zip.ts";

export const NOW = Math.floor(Date.now() / 1000);
/** the API password of the v5 installs (setupVars.conf keeps its double SHA-256) */
export const V5_PASSWORD = "v5-secret";
/** queries in each Pi-hole fixture's history */
export const HISTORY = 40;

const made: string[] = [];

/** A new directory under the system's temporary one, removed by removeScratch(). */
export function scratch(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), `moat-migrate-${tag}-`));
  made.push(dir);
  return dir;
}

export function removeScratch(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

const LEASES = `${NOW + 86400} 52:54:00:aa:bb:01 192.168.1.61 laptop 01:52:54:00:aa:bb:01\n`;

/** The lists of the household in Pi-hole's tables (v6 schema: Moat's own, which is Pi-hole's). */
function fillGravity(db: Database, v5: boolean): void {
  db.exec(`
    INSERT INTO "group" (id, enabled, name, description) VALUES (1, 1, 'kids', 'children''s devices');
    INSERT INTO domainlist (id, type, domain, enabled, comment) VALUES
      (1, 1, 'denied.example', 1, 'deny exact'),
      (2, 0, 'allowed-ads.example', 1, NULL),
      (3, 3, '(^|\\.)tracker\\.example$', 1, 'deny regex'),
      (4, 1, 'kids-only.example', 1, NULL),
      (5, 1, 'off.example', 0, 'disabled');
    INSERT INTO adlist (id, address, enabled, comment) VALUES (1, 'https://lists.example/hosts.txt', 1, 'main list');
    INSERT INTO gravity (domain, adlist_id) VALUES ('ads.example', 1), ('allowed-ads.example', 1);
    INSERT OR REPLACE INTO info (property, value) VALUES ('gravity_count', '2');
    INSERT INTO client (id, ip, comment) VALUES (1, '127.0.0.2', 'tablet');
  `);
  // v6's triggers link new rows to the Default group; v5's schema here has none, so the links are written
  if (v5)
    db.exec(
      "INSERT INTO domainlist_by_group VALUES (1,0),(2,0),(3,0),(5,0); INSERT INTO adlist_by_group VALUES (1,0),(1,1); INSERT INTO client_by_group VALUES (1,1); INSERT INTO domainlist_by_group VALUES (4,1), (1,1), (2,1), (3,1);",
    );
  else
    db.exec(`
      DELETE FROM domainlist_by_group WHERE domainlist_id = 4;
      INSERT INTO domainlist_by_group (domainlist_id, group_id) VALUES (4, 1), (1, 1), (2, 1), (3, 1);
      DELETE FROM client_by_group WHERE client_id = 1;
      INSERT INTO client_by_group (client_id, group_id) VALUES (1, 1);
      INSERT INTO adlist_by_group (adlist_id, group_id) VALUES (1, 1);
    `);
}

/** Pi-hole v5.x's gravity.db (schema version 15): no adlist.type, no antigravity. */
const V5_GRAVITY = `
CREATE TABLE "group" (id INTEGER PRIMARY KEY AUTOINCREMENT, enabled BOOLEAN NOT NULL DEFAULT 1, name TEXT UNIQUE NOT NULL,
  date_added INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)), date_modified INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)), description TEXT);
INSERT INTO "group" (id, enabled, name, description) VALUES (0, 1, 'Default', 'The default group');
CREATE TABLE domainlist (id INTEGER PRIMARY KEY AUTOINCREMENT, type INTEGER NOT NULL DEFAULT 0, domain TEXT NOT NULL, enabled BOOLEAN NOT NULL DEFAULT 1,
  date_added INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)), date_modified INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)), comment TEXT, UNIQUE(domain, type));
CREATE TABLE adlist (id INTEGER PRIMARY KEY AUTOINCREMENT, address TEXT UNIQUE NOT NULL, enabled BOOLEAN NOT NULL DEFAULT 1,
  date_added INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)), date_modified INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)), comment TEXT,
  date_updated INTEGER, number INTEGER NOT NULL DEFAULT 0, invalid_domains INTEGER NOT NULL DEFAULT 0, status INTEGER NOT NULL DEFAULT 0);
CREATE TABLE adlist_by_group (adlist_id INTEGER NOT NULL REFERENCES adlist (id), group_id INTEGER NOT NULL REFERENCES "group" (id), PRIMARY KEY (adlist_id, group_id));
CREATE TABLE gravity (domain TEXT NOT NULL, adlist_id INTEGER NOT NULL REFERENCES adlist (id));
CREATE TABLE info (property TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO info VALUES ('version', '15');
CREATE TABLE domain_audit (id INTEGER PRIMARY KEY AUTOINCREMENT, domain TEXT UNIQUE NOT NULL, date_added INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)));
CREATE TABLE domainlist_by_group (domainlist_id INTEGER NOT NULL REFERENCES domainlist (id), group_id INTEGER NOT NULL REFERENCES "group" (id), PRIMARY KEY (domainlist_id, group_id));
CREATE TABLE client (id INTEGER PRIMARY KEY AUTOINCREMENT, ip TEXT NOT NULL UNIQUE, date_added INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)),
  date_modified INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)), comment TEXT);
CREATE TABLE client_by_group (client_id INTEGER NOT NULL REFERENCES client (id), group_id INTEGER NOT NULL REFERENCES "group" (id), PRIMARY KEY (client_id, group_id));
`;

/** HISTORY queries of the last hour: half of them blocked (status 1), from two clients */
function historyRows(): Array<[number, number, number, string, string, string | null]> {
  return Array.from({ length: HISTORY }, (_, i) => [
    NOW - 3600 + i * 10,
    1,
    i % 2 ? 1 : 2,
    i % 2 ? "ads.example" : `site${i}.example`,
    i % 3 ? "127.0.0.2" : "127.0.0.3",
    i % 2 ? null : "127.0.0.1#53",
  ]);
}

function v6QueryDb(file: string): void {
  const db = new Database(file, { create: true });
  db.exec(QUERY_SCHEMA);
  for (const [ts, type, status, domain, client, forward] of historyRows()) {
    db.run("INSERT OR IGNORE INTO domain_by_id (domain) VALUES (?)", [domain]);
    if (!db.query("SELECT 1 FROM client_by_id WHERE ip = ?").get(client))
      db.run("INSERT INTO client_by_id (ip) VALUES (?)", [client]);
    if (forward) db.run("INSERT OR IGNORE INTO forward_by_id (forward) VALUES (?)", [forward]);
    db.run(
      `INSERT INTO query_storage (timestamp, type, status, domain, client, forward, reply_type, reply_time)
       VALUES (?, ?, ?, (SELECT id FROM domain_by_id WHERE domain = ?), (SELECT id FROM client_by_id WHERE ip = ?), (SELECT id FROM forward_by_id WHERE forward = ?), 4, 0.01)`,
      [ts, type, status, domain, client, forward],
    );
  }
  db.close();
}

function v5QueryDb(file: string): void {
  const db = new Database(file, { create: true });
  db.exec(`CREATE TABLE ftl (id INTEGER PRIMARY KEY NOT NULL, value BLOB NOT NULL); INSERT INTO ftl VALUES (0, 9);
    CREATE TABLE queries (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp INTEGER NOT NULL, type INTEGER NOT NULL, status INTEGER NOT NULL,
      domain TEXT NOT NULL, client TEXT NOT NULL, forward TEXT, additional_info TEXT);`);
  for (const r of historyRows())
    db.run("INSERT INTO queries (timestamp, type, status, domain, client, forward) VALUES (?, ?, ?, ?, ?, ?)", r);
  db.close();
}

function piholeV6Toml(upstream: string, corp: string): string {
  return `# Pi-hole configuration file (v6.1.0)
[dns]
  upstreams = [
    "${upstream}"
  ] ### CHANGED, default = []
  hosts = [
    "192.168.1.10 nas.lan",
    "192.168.1.11 printer.lan"
  ] ### CHANGED, default = []
  cnameRecords = [
    "files.lan,nas.lan"
  ] ### CHANGED, default = []
  blockTTL = 5 ### CHANGED, default = 2
  queryLogging = true
  [dns.blocking]
    active = true
    mode = "NULL"
[dhcp]
  active = false
  hosts = [
    "52:54:00:aa:bb:02,192.168.1.62,printer"
  ] ### CHANGED, default = []
[misc]
  nice = -5 ### CHANGED, default = -10
  dnsmasq_lines = [
    "server=/corp.example/${corp}",
    "log-facility=/tmp/x.log"
  ] ### CHANGED, default = []
[webserver]
  [webserver.api]
    app_sudo = true ### CHANGED, default = false
`;
}

export function piholeV6Dir(upstream: string, corp: string): string {
  const dir = scratch("v6");
  writeFileSync(join(dir, "pihole.toml"), piholeV6Toml(upstream, corp));
  const db = new Database(join(dir, "gravity.db"), { create: true });
  db.exec(GRAVITY_SCHEMA);
  fillGravity(db, false);
  db.close();
  v6QueryDb(join(dir, "pihole-FTL.db"));
  writeFileSync(join(dir, "dhcp.leases"), LEASES);
  return dir;
}

const SETUPVARS = (upstream: string) => `PIHOLE_INTERFACE=eth0
QUERY_LOGGING=true
INSTALL_WEB_SERVER=true
BLOCKING_ENABLED=true
WEBPASSWORD=${legacyHash(V5_PASSWORD)}
PIHOLE_DNS_1=${upstream}
PIHOLE_DNS_2=
DNSMASQ_LISTENING=local
DNS_FQDN_REQUIRED=false
DNS_BOGUS_PRIV=true
DNSSEC=false
REV_SERVER=true
REV_SERVER_CIDR=192.168.1.0/24
REV_SERVER_TARGET=192.168.1.1
REV_SERVER_DOMAIN=lan
DHCP_ACTIVE=false
DHCP_START=192.168.1.100
DHCP_END=192.168.1.200
DHCP_ROUTER=192.168.1.1
DHCP_LEASETIME=24
PIHOLE_DOMAIN=lan
WEBUIBOXEDLAYOUT=boxed
API_QUERY_LOG_SHOW=all
SOMETHING_ELSE=1
`;
const FTLCONF = "BLOCKINGMODE=NULL\nMAXDBDAYS=180\nRATE_LIMIT=1000/60\nBLOCK_TTL=5\nPRIVACYLEVEL=0\n";
const CUSTOM_LIST = "192.168.1.10 nas.lan\n192.168.1.11 printer.lan\n";
const CNAME_CONF = "cname=files.lan,nas.lan\n";
const STATIC_DHCP = "dhcp-host=52:54:00:aa:bb:02,192.168.1.62,printer\n";

export function piholeV5Dir(upstream: string, corp: string): string {
  const dir = scratch("v5");
  writeFileSync(join(dir, "setupVars.conf"), SETUPVARS(upstream));
  writeFileSync(join(dir, "pihole-FTL.conf"), FTLCONF);
  writeFileSync(join(dir, "custom.list"), CUSTOM_LIST);
  mkdirSync(join(dir, "dnsmasq.d"));
  writeFileSync(join(dir, "dnsmasq.d", "01-pihole.conf"), "# generated by Pi-hole\nserver=8.8.8.8\n");
  writeFileSync(join(dir, "dnsmasq.d", "05-pihole-custom-cname.conf"), CNAME_CONF);
  writeFileSync(join(dir, "dnsmasq.d", "04-pihole-static-dhcp.conf"), STATIC_DHCP);
  writeFileSync(join(dir, "dnsmasq.d", "99-mine.conf"), `server=/corp.example/${corp}\nlog-queries=extra\n`);
  const db = new Database(join(dir, "gravity.db"), { create: true });
  db.exec(V5_GRAVITY);
  fillGravity(db, true);
  db.close();
  v5QueryDb(join(dir, "pihole-FTL.db"));
  writeFileSync(join(dir, "dhcp.leases"), LEASES);
  return dir;
}

/** A ustar archive of `files`, gzipped, as Pi-hole v5's Teleporter writes (PHP's PharData). */
function tarGz(files: Record<string, string>): Uint8Array {
  const blocks: Uint8Array[] = [];
  const enc = new TextEncoder();
  for (const [name, text] of Object.entries(files)) {
    const data = enc.encode(text);
    const h = new Uint8Array(512);
    const put = (s: string, at: number) => h.set(enc.encode(s), at);
    put(name, 0);
    put("0000644\0", 100);
    put("0000000\0", 108);
    put("0000000\0", 116);
    put(`${data.length.toString(8).padStart(11, "0")}\0`, 124);
    put(`${NOW.toString(8).padStart(11, "0")}\0`, 136);
    put("        ", 148);
    put("0", 156);
    put("ustar\0", 257);
    put("00", 263);
    const sum = h.reduce((a, b) => a + b, 0);
    put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    blocks.push(h, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  blocks.push(new Uint8Array(1024));
  const all = new Uint8Array(blocks.reduce((a, b) => a + b.length, 0));
  let o = 0;
  for (const b of blocks) {
    all.set(b, o);
    o += b.length;
  }
  return gzipSync(all);
}

export function piholeV5Archive(upstream: string, corp: string): string {
  const dir = scratch("v5tar");
  const row = (o: Record<string, unknown>) => ({ date_added: NOW, date_modified: NOW, ...o });
  const json = (rows: unknown[]) => JSON.stringify(rows);
  const file = join(dir, "pi-hole-teleporter_2024-01-01_00-00-00.tar.gz");
  writeFileSync(
    file,
    tarGz({
      "blacklist.exact.json": json([
        row({ id: 1, type: 1, domain: "denied.example", enabled: 1, comment: "deny exact" }),
        row({ id: 4, type: 1, domain: "kids-only.example", enabled: 1, comment: null }),
        row({ id: 5, type: 1, domain: "off.example", enabled: 0, comment: null }),
      ]),
      "whitelist.exact.json": json([row({ id: 2, type: 0, domain: "allowed-ads.example", enabled: 1, comment: null })]),
      "blacklist.regex.json": json([
        row({ id: 3, type: 3, domain: "(^|\\.)tracker\\.example$", enabled: 1, comment: null }),
      ]),
      "whitelist.regex.json": json([]),
      "adlist.json": json([
        row({ id: 1, address: "https://lists.example/hosts.txt", enabled: 1, comment: "main list" }),
      ]),
      "group.json": json([
        row({ id: 0, name: "Default", enabled: 1, description: "The default group" }),
        row({ id: 1, name: "kids", enabled: 1, description: "children's devices" }),
      ]),
      "client.json": json([row({ id: 1, ip: "127.0.0.2", comment: "tablet" })]),
      "client_by_group.json": json([{ client_id: 1, group_id: 1 }]),
      "domainlist_by_group.json": json([
        { domainlist_id: 1, group_id: 0 },
        { domainlist_id: 2, group_id: 0 },
        { domainlist_id: 3, group_id: 0 },
        { domainlist_id: 5, group_id: 0 },
        { domainlist_id: 4, group_id: 1 },
        { domainlist_id: 1, group_id: 1 },
        { domainlist_id: 2, group_id: 1 },
        { domainlist_id: 3, group_id: 1 },
      ]),
      "adlist_by_group.json": json([
        { adlist_id: 1, group_id: 0 },
        { adlist_id: 1, group_id: 1 },
      ]),
      "domain_audit.json": json([]),
      "setupVars.conf": SETUPVARS(upstream),
      "pihole-FTL.conf": FTLCONF,
      "custom.list": CUSTOM_LIST,
      "dnsmasq.d/05-pihole-custom-cname.conf": CNAME_CONF,
      "dnsmasq.d/04-pihole-static-dhcp.conf": STATIC_DHCP,
      "dnsmasq.d/99-mine.conf": `server=/corp.example/${corp}\n`,
      "dhcp.leases": LEASES,
    }),
  );
  return file;
}

export function piholeV6Archive(upstream: string, corp: string): string {
  const src = piholeV6Dir(upstream, corp);
  const file = join(src, "pi-hole_teleporter_2025-01-01.zip");
  const f = (n: string) => new Uint8Array(readFileSync(join(src, n)));
  writeFileSync(
    file,
    writeZip([
      { name: "etc/pihole/pihole.toml", data: f("pihole.toml") },
      { name: "etc/pihole/gravity.db", data: f("gravity.db") },
      { name: "etc/pihole/dhcp.leases", data: f("dhcp.leases") },
    ]),
  );
  return file;
}
