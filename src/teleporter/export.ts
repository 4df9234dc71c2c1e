// Teleporter export: everything a user needs to move to another Moat or to Pi-hole, in Pi-hole's
// archive layout (test/config/teleporter.test.ts checks it).
import type { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { ConfigStore } from "../config/index.ts";
import { copyTables } from "../db/copy-tables.ts";
import { leasesFile } from "../dhcp/leases.ts";
import { customRules } from "../lists/custom-rules.ts";
import { writeZip, type ZipEntry } from "./zip.ts";

export const ENTRY = {
  gravity: "etc/pihole/gravity.db",
  config: "etc/pihole/pihole.toml",
  queryDb: "etc/pihole/pihole-FTL.db",
  hosts: "etc/hosts",
  leases: "etc/pihole/dhcp.leases",
  /**
   * Moat's own: the custom rules (AdGuard Home's syntax) as their text. Pi-hole's restore reads only pihole.toml,
   * dhcp.leases and gravity.db and skips every other file with a log line (read_teleporter_zip() in
   * src/zip/teleporter.c of pi-hole/FTL), so the archive still restores there.
   */
  customRules: "etc/pihole/moat-custom-rules.txt",
} as const;

/** A scratch directory beside the data (not /tmp, which is RAM on the appliance). */
function scratchDir(dataDir: string): string {
  const dir = join(dataDir, ".teleporter");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function scratchFile(dataDir: string, tag: string, ext = "db"): string {
  return join(scratchDir(dataDir), `${tag}-${process.pid}-${crypto.randomUUID()}.${ext}`);
}

/** A consistent copy of a live database file (VACUUM INTO runs in one read transaction). */
function snapshotDb(db: Database, dataDir: string, tag: string): Uint8Array {
  const file = scratchFile(dataDir, tag);
  try {
    db.run("VACUUM INTO ?", [file]);
    return new Uint8Array(readFileSync(file));
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * What a backup carries of pihole-FTL.db: Pi-hole's Teleporter takes these four tables (its
 * src/zip/teleporter.c), and so does Moat. Not the long-term query log: a day of a busy network is
 * a million rows, and copying the whole file took 2.8 s of the thread that answers DNS and 280 MiB
 * more memory for 1M stored queries (bench/querylog/search-while-answering.ts). Not the live API
 * sessions either (SIDs and CSRF tokens): a backup must not let its holder act as a logged-in user.
 * What a restore needs stays, as in Pi-hole: pihole.toml keeps the password hash, the app password
 * hash and the 2FA secret, so the restored machine asks for the same password.
 */
const QUERY_DB_TABLES = ["message", "aliasclient", "network", "network_addresses"] as const;

function queryDbTables(db: Database, dataDir: string): Uint8Array {
  const file = scratchFile(dataDir, "ftl");
  try {
    copyTables(db, file, QUERY_DB_TABLES);
    return new Uint8Array(readFileSync(file));
  } finally {
    rmSync(file, { force: true });
  }
}

/** dns.hosts as a hosts file, which is where Pi-hole users expect local records. */
function hostsFile(lines: readonly string[]): string {
  return ["# Local DNS records of this Moat (dns.hosts)", ...lines, ""].join("\n");
}

export interface ExportSources {
  config: ConfigStore;
  gravityDb: Database;
  queryDb: Database;
  dataDir: string;
  /** Moat's version, named in the Pi-hole-style header of the exported pihole.toml (compat mode) */
  version?: string;
}

/**
 * The settings file as exported. In Pi-hole compatibility mode its comment header is Pi-hole's, which
 * Pi-hole's tools look for at the start of a backup's pihole.toml; the settings are the same bytes.
 */
function exportedConfig(src: ExportSources, now: Date): Uint8Array {
  const text = existsSync(src.config.file) ? readFileSync(src.config.file, "utf8") : "";
  if (!src.config.current.webserver.api.piholeCompat) return new TextEncoder().encode(text);
  const body = text.replace(/^(?:#[^\n]*\n|\s*\n)*/, "");
  const header = [
    `# Pi-hole configuration file (${src.version ?? "v6"})`,
    "# Encoding: UTF-8",
    "# This file is managed by Moat (Pi-hole v6 compatible)",
    `# Last updated on ${now
      .toISOString()
      .replace("T", " ")
      .replace(/\.\d+Z$/, " UTC")}`,
    "",
  ].join("\n");
  return new TextEncoder().encode(`${header}\n${body}`);
}

export function exportArchive(src: ExportSources, now = new Date()): Uint8Array {
  const enc = new TextEncoder();
  const leases = leasesFile(src.dataDir);
  const entries: ZipEntry[] = [
    { name: ENTRY.gravity, data: snapshotDb(src.gravityDb, src.dataDir, "gravity") },
    { name: ENTRY.config, data: exportedConfig(src, now) },
    { name: ENTRY.queryDb, data: queryDbTables(src.queryDb, src.dataDir) },
    { name: ENTRY.hosts, data: enc.encode(hostsFile(src.config.current.dns.hosts)) },
    { name: ENTRY.leases, data: existsSync(leases) ? new Uint8Array(readFileSync(leases)) : new Uint8Array(0) },
    { name: ENTRY.customRules, data: enc.encode(customRules(src.gravityDb).rules) },
  ];
  return writeZip(entries, now);
}

/** Pi-hole's download name: pi-hole_<host>_teleporter_<YYYY-MM-DD_HH-MM-SS>.zip */
export function archiveName(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  const stamp = `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}_${p(now.getHours())}-${p(now.getMinutes())}-${p(now.getSeconds())}`;
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, "_") || "moat";
  return `pi-hole_${host}_teleporter_${stamp}.zip`;
}
