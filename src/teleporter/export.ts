// Teleporter export: everything a user needs to move to another Moat or to Pi-hole, in Pi-hole's
// archive layout (reference §2.15).
import type { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { ConfigStore } from "../config/index.ts";
import { writeZip, type ZipEntry } from "./zip.ts";

export const ENTRY = {
  gravity: "etc/pihole/gravity.db",
  config: "etc/pihole/pihole.toml",
  queryDb: "etc/pihole/pihole-FTL.db",
  hosts: "etc/hosts",
  leases: "etc/pihole/dhcp.leases",
} as const;

/** A scratch directory beside the data (not /tmp, which is RAM on the appliance). */
export function scratchDir(dataDir: string): string {
  const dir = join(dataDir, ".teleporter");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function scratchFile(dataDir: string, tag: string): string {
  return join(scratchDir(dataDir), `${tag}-${process.pid}-${crypto.randomUUID()}.db`);
}

/** A consistent copy of a live database (VACUUM INTO runs in one read transaction). */
export function snapshotDb(db: Database, dataDir: string, tag: string): Uint8Array {
  const file = scratchFile(dataDir, tag);
  try {
    db.run("VACUUM INTO ?", [file]);
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
}

export function exportArchive(src: ExportSources, now = new Date()): Uint8Array {
  const enc = new TextEncoder();
  const configText = existsSync(src.config.file) ? readFileSync(src.config.file) : enc.encode("");
  const entries: ZipEntry[] = [
    { name: ENTRY.gravity, data: snapshotDb(src.gravityDb, src.dataDir, "gravity") },
    { name: ENTRY.config, data: new Uint8Array(configText) },
    { name: ENTRY.queryDb, data: snapshotDb(src.queryDb, src.dataDir, "ftl") },
    { name: ENTRY.hosts, data: enc.encode(hostsFile(src.config.current.dns.hosts)) },
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
