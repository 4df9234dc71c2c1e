// Teleporter import: checks the whole archive before touching anything, then restores the
// gravity parts in one transaction and the settings in one config update.
import type { Database } from "bun:sqlite";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import type { ConfigStore } from "../config/index.ts";
import type { EventBus } from "../core/events.ts";
import { backupListContents } from "../filter/gravity/tables.ts";
import {
  BackupDbError,
  GRAVITY_PARTS,
  checkBackupDb,
  restoreListsFromBackup,
  type GravityPart,
} from "../lists/backup.ts";
import { leasesFile } from "../dhcp/leases.ts";
import { MAX_CUSTOM_RULES, setCustomRules } from "../lists/custom-rules.ts";
import { ENTRY, scratchFile } from "./export.ts";
import { applyConfig, planConfig, BackupConfigError } from "./import-config.ts";
import { readZip, ZipError } from "./zip.ts";

export const MAX_ARCHIVE = 50 * 1024 * 1024;

/** Why an archive was refused; nothing was changed. */
export class TeleporterError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** Pi-hole's `import` selection: absent means everything. */
export interface ImportSelection {
  config?: boolean;
  dhcp_leases?: boolean;
  gravity?: Partial<Record<GravityPart, boolean>>;
}

export interface ImportTargets {
  config: ConfigStore;
  gravityDb: Database;
  /** where the restored lists are announced (src/lists/ does it) */
  events: EventBus;
  dataDir: string;
}

export interface ImportResult {
  files: string[];
  /** settings of the backup Moat could not use */
  skipped: string[];
}

const READ = new Set<string>([ENTRY.gravity, ENTRY.config, ENTRY.leases, ENTRY.customRules]);

export function importArchive(t: ImportTargets, archive: Uint8Array, sel: ImportSelection = {}): ImportResult {
  if (archive.byteLength > MAX_ARCHIVE)
    throw new TeleporterError("ZIP archive too large", `at most ${MAX_ARCHIVE} bytes`);
  let files: Map<string, Uint8Array>;
  try {
    files = readZip(archive, (name) => READ.has(name));
  } catch (e) {
    if (e instanceof ZipError) throw new TeleporterError("Invalid file", e.message);
    throw e;
  }
  const wantConfig = sel.config !== false && files.has(ENTRY.config);
  const parts = new Set(GRAVITY_PARTS.filter((p) => sel.gravity?.[p] !== false));
  const wantGravity = parts.size > 0 && files.has(ENTRY.gravity);
  if (!files.has(ENTRY.config) && !files.has(ENTRY.gravity))
    throw new TeleporterError("Invalid file", `neither ${ENTRY.config} nor ${ENTRY.gravity} in the archive`);

  let plan: ReturnType<typeof planConfig> | undefined;
  if (wantConfig) {
    try {
      plan = planConfig(t.config, new TextDecoder().decode(files.get(ENTRY.config)));
    } catch (e) {
      if (e instanceof BackupConfigError) throw new TeleporterError("Invalid file", `${ENTRY.config}: ${e.message}`);
      throw e;
    }
  }

  // Moat's custom rules come with the domain entries (they decide names as those do); an archive from Pi-hole
  // has none and leaves them as they are.
  const rules = parts.has("domainlist") ? customRulesOf(files.get(ENTRY.customRules)) : undefined;

  // The leases file is staged beside its place first, so a failure below leaves the old one.
  const leases = sel.dhcp_leases !== false ? files.get(ENTRY.leases) : undefined;
  const stagedLeases = leases ? `${leasesFile(t.dataDir)}.import-${process.pid}` : undefined;
  if (stagedLeases) writeFileSync(stagedLeases, leases!, { mode: 0o644 });

  const done: string[] = [];
  try {
    if (wantGravity) done.push(...restoreGravity(t, files.get(ENTRY.gravity)!, parts));
  } catch (e) {
    if (stagedLeases) rmSync(stagedLeases, { force: true });
    throw e;
  }
  if (rules !== undefined) {
    setCustomRules(t, rules);
    done.push(ENTRY.customRules);
  }
  if (plan) applyConfig(t.config, plan);
  if (stagedLeases) renameSync(stagedLeases, leasesFile(t.dataDir));
  // Pi-hole's order: settings, leases, then the gravity tables
  return {
    files: [...(plan ? [ENTRY.config] : []), ...(stagedLeases ? [ENTRY.leases] : []), ...done],
    skipped: plan?.skipped ?? [],
  };
}

/** The custom rules' text of the archive, checked before anything is restored (undefined: none there). */
function customRulesOf(data: Uint8Array | undefined): string | undefined {
  if (!data) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    throw new TeleporterError("Invalid file", `${ENTRY.customRules}: not UTF-8 text`);
  }
  if (text.length > MAX_CUSTOM_RULES)
    throw new TeleporterError("Invalid file", `${ENTRY.customRules}: longer than ${MAX_CUSTOM_RULES} characters`);
  return text;
}

function restoreGravity(t: ImportTargets, db: Uint8Array, parts: ReadonlySet<GravityPart>): string[] {
  const tmp = scratchFile(t.dataDir, "import");
  try {
    writeFileSync(tmp, db, { mode: 0o600 });
    checkBackupDb(tmp);
    // the lists and the gravity rows made from them are restored in one transaction
    return restoreListsFromBackup(t, tmp, parts, backupListContents).map((p) => `${ENTRY.gravity}->${p}`);
  } catch (e) {
    if (e instanceof BackupDbError) throw new TeleporterError("Invalid file", `${ENTRY.gravity}: ${e.message}`);
    throw e;
  } finally {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(tmp + suffix, { force: true });
  }
}
