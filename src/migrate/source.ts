// What `moat migrate` was given, recognised from its content: a Pi-hole directory, a Teleporter archive
// (a v6 zip, a v5 .tar.gz), or AdGuard Home's YAML file. An archive is unpacked into a scratch
// directory in the layout of a Pi-hole directory and read as one.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { readZip, ZipError } from "../teleporter/zip.ts";
import { readAdGuard } from "./adguard.ts";
import { readPihole } from "./pihole.ts";
import type { Plan } from "./plan.ts";
import { MigrateError } from "./report.ts";
import { readTarGz, TarError } from "./tar.ts";

/** at most this big, as the Teleporter's restore takes (src/teleporter/import.ts) */
export const MAX_SOURCE = 50 * 1024 * 1024;

export type SourceKind = "pihole" | "adguardhome";

export interface SourceOptions {
  /** read AdGuard Home's query log */
  history: boolean;
  /** the files beside an AdGuardHome.yaml (data/leases.json, data/querylog.json) are there to read: not for an upload */
  beside: boolean;
}

/** Reads `path` (a directory or a file) as `kind`; `run` gets the plan while any scratch copy still exists. */
export function withSource<T>(kind: SourceKind, path: string, o: SourceOptions, run: (p: Plan) => T): T {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch {
    throw new MigrateError(
      `${path} does not exist`,
      kind === "pihole"
        ? "give the Pi-hole directory (default /etc/pihole) or a Teleporter archive"
        : "give the path of AdGuardHome.yaml",
    );
  }
  if (kind === "pihole" && st.isDirectory()) return run(readPihole(path));
  if (st.size > MAX_SOURCE) throw new MigrateError(`${path} is too large`, `at most ${MAX_SOURCE} bytes`);
  return withBytes(kind, new Uint8Array(readFileSync(path)), path, o, run);
}

function withBytes<T>(kind: SourceKind, bytes: Uint8Array, name: string, o: SourceOptions, run: (p: Plan) => T): T {
  const zip = bytes[0] === 0x50 && bytes[1] === 0x4b;
  const gz = bytes[0] === 0x1f && bytes[1] === 0x8b;
  if (kind === "adguardhome") {
    if (zip || gz)
      throw new MigrateError(`${name} is an archive`, "AdGuard Home's settings are AdGuardHome.yaml, a text file");
    return run(readAdGuard(new TextDecoder().decode(bytes), name, o.beside ? dirname(name) : null, o.history));
  }
  if (!zip && !gz)
    throw new MigrateError(
      `${name} is not a Teleporter archive`,
      "expected Pi-hole's .zip (v6) or .tar.gz (v5) backup, or its directory",
    );
  let files: Map<string, Uint8Array>;
  try {
    files = zip ? readZip(bytes, () => true) : readTarGz(bytes);
  } catch (e) {
    if (e instanceof ZipError || e instanceof TarError)
      throw new MigrateError(`${name} is not a readable archive`, e.message);
    throw e;
  }
  const dir = mkdtempSync(join(tmpdir(), "moat-migrate-"));
  try {
    for (const [entry, data] of files) {
      // v6: etc/pihole/<file>; v5: the files at the top, dnsmasq.d's under it
      const rel = entry.replace(/^etc\/pihole\//, "").replace(/^etc\/dnsmasq\.d\//, "dnsmasq.d/");
      if (rel.includes("..") || rel.startsWith("/")) continue;
      const to = join(dir, rel.startsWith("dnsmasq.d/") ? rel : basename(rel));
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, data, { mode: 0o600 });
    }
    return run(readPihole(dir, `Teleporter archive ${basename(name)}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
