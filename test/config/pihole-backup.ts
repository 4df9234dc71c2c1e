// Builds archives in Pi-hole's Teleporter layout for the tests: a gravity.db in Pi-hole's v20
// schema with groups, lists, domains, clients and links, and a pihole.toml with Pi-hole's keys
// (including sections Moat does not have) and a Balloon password hash.
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GRAVITY_SCHEMA } from "../../src/db/gravity-schema.ts";
import { writeZip, type ZipEntry } from "../../src/teleporter/zip.ts";

export function piholeGravityDb(fill = true): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "moat-pihole-"));
  const file = join(dir, "gravity.db");
  const db = new Database(file, { create: true });
  db.exec(GRAVITY_SCHEMA);
  if (fill) {
    db.exec(`
      INSERT INTO "group" (id, enabled, name, description) VALUES (1, 1, 'kids', 'children''s devices'), (2, 0, 'iot', NULL);
      INSERT INTO domainlist (id, type, domain, enabled, comment) VALUES
        (1, 1, 'denied.example', 1, 'deny exact'),
        (2, 0, 'allowed.example', 1, NULL),
        (3, 3, '(^|\\.)tracker\\.example$', 1, 'deny regex'),
        (4, 1, 'kids-only.example', 1, NULL);
      INSERT INTO adlist (id, address, enabled, comment, type) VALUES (1, 'https://lists.example/hosts.txt', 1, 'main list', 0);
      INSERT INTO gravity (domain, adlist_id) VALUES ('ads.example', 1), ('more-ads.example', 1);
      INSERT INTO client (id, ip, comment) VALUES (1, '192.168.1.50', 'tablet');
      DELETE FROM domainlist_by_group WHERE domainlist_id = 4;
      INSERT INTO domainlist_by_group (domainlist_id, group_id) VALUES (4, 1);
      INSERT INTO client_by_group (client_id, group_id) VALUES (1, 1);
      INSERT INTO adlist_by_group (adlist_id, group_id) VALUES (1, 1);
    `);
  }
  db.close();
  const bytes = new Uint8Array(readFileSync(file));
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

export function piholeToml(pwhash: string): string {
  return `# Pi-hole configuration file (v6.4.1)
[dns]
  upstreams = [
    "127.0.0.1#5335"
  ] ### CHANGED, default = []
  hosts = [
    "192.168.1.10 nas.lan",
    "192.168.1.11 printer.lan"
  ]
  cnameRecords = [
    "files.lan,nas.lan"
  ]
  piholePTR = "PI.HOLE"
  blockTTL = 5

  [dns.blocking]
    active = true
    mode = "NX"

  [dns.cache]
    size = 20000
    optimizer = 3600

[dhcp]
  active = false
  start = "192.168.1.100"
  end = "192.168.1.200"

[ntp]
  [ntp.ipv4]
    active = true

[webserver]
  domain = "pi.hole"
  port = "80o,443os,[::]:80o,[::]:443os"
  [webserver.api]
    pwhash = "${pwhash}"
    app_sudo = false
    maxHistory = 86400

[files]
  pid = "/run/pihole-FTL.pid"

[misc]
  privacylevel = 1
  readOnly = false

[debug]
  all = false
`;
}

export function zipOf(entries: Record<string, Uint8Array | string>): Uint8Array {
  const list: ZipEntry[] = Object.entries(entries).map(([name, data]) => ({
    name,
    data: typeof data === "string" ? new TextEncoder().encode(data) : data,
  }));
  return writeZip(list);
}

export function piholeBackup(pwhash: string): Uint8Array {
  return zipOf({
    "etc/pihole/pihole.toml": piholeToml(pwhash),
    "etc/pihole/gravity.db": piholeGravityDb(),
    "etc/pihole/dhcp.leases": "",
    "etc/hosts": "127.0.0.1 localhost\n",
  });
}

/** The gravity tables a backup restores, for before/after comparisons. */
export function gravityDump(dataDir: string): Record<string, unknown[]> {
  const db = new Database(join(dataDir, "gravity.db"), { readonly: true });
  try {
    const out: Record<string, unknown[]> = {};
    for (const t of [
      "group",
      "domainlist",
      "adlist",
      "client",
      "domainlist_by_group",
      "adlist_by_group",
      "client_by_group",
      "gravity",
    ])
      out[t] = db.query(`SELECT * FROM "${t}" ORDER BY 1, 2`).all();
    return out;
  } finally {
    db.close();
  }
}
