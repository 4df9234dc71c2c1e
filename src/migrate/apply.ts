// Carrying a plan into a Moat data directory. Everything that can fail on the source is done first,
// off to the side: the lists are built in a scratch gravity.db of Moat's schema (a Pi-hole gravity.db of
// any schema the Teleporter takes is restored into it, so Pi-hole's own migrations need not run), and the
// settings are checked. Only then, unless it is a dry run, is the target changed: a target with data is
// refused without --merge or --replace and backed up as a Teleporter archive first; the settings go in
// one config update, the lists in one transaction (the Teleporter's restore, with the list contents).
import type { Database } from "bun:sqlite";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConfigStore } from "../config/index.ts";
import { EventBus, type ListTable } from "../core/events.ts";
import { versionInfo } from "../core/version.ts";
import { openGravityDb, openQueryDb } from "../db/index.ts";
import { leasesFile } from "../dhcp/leases.ts";
import { backupListContents, gravityInfo, gravitySetsOf } from "../filter/gravity/tables.ts";
import { BackupDbError, GRAVITY_PARTS, checkBackupDb, restoreListsFromBackup } from "../lists/backup.ts";
import { applyListsMap, readListsMap, rowsOf } from "../lists/replicated.ts";
import { customRules, setCustomRules } from "../lists/custom-rules.ts";
import { importPiholeQueries, importQueryRows } from "../querylog/import.ts";
import { lastQueryId } from "../querylog/store.ts";
import { exportArchive } from "../teleporter/export.ts";
import { mergeMaps } from "./merge.ts";
import { plural, type Plan } from "./plan.ts";
import { MigrateError, type MigrationReport } from "./report.ts";

export interface MigrateOptions {
  mode?: "merge" | "replace";
  dryRun: boolean;
  /** carry the stored queries */
  history: boolean;
  /** why the stored queries were not carried when `history` is false */
  historyNote: string;
}

export interface Target {
  dataDir: string;
  config: ConfigStore;
}

export interface Applied {
  report: MigrationReport;
  /** the management tables written (the server announces them) */
  tables: ListTable[];
  settingsChanged: boolean;
  leasesChanged: boolean;
}

type ListsMap = Record<string, unknown>;

export function migrate(plan: Plan, target: Target, opts: MigrateOptions): Applied {
  const scratch = mkdtempSync(join(target.dataDir, ".migrate-"));
  try {
    return withScratch(plan, target, opts, scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function withScratch(plan: Plan, target: Target, opts: MigrateOptions, scratchDir: string): Applied {
  const bus = new EventBus();
  const scratch = openGravityDb(scratchDir, false);
  let source: ListsMap;
  let listed = 0;
  try {
    if (plan.gravityDb) {
      try {
        checkBackupDb(plan.gravityDb);
      } catch (e) {
        if (e instanceof BackupDbError)
          throw new MigrateError(`gravity.db: ${e.message}`, "the lists could not be read");
        throw e;
      }
      restoreListsFromBackup(
        { gravityDb: scratch, events: bus },
        plan.gravityDb,
        new Set(GRAVITY_PARTS),
        backupListContents,
      );
    }
    if (plan.rows) void applyListsMap(scratch, bus, mergeMaps(readListsMap(scratch), plan.rows.map));
    source = readListsMap(scratch);
    listed = Number(gravityInfo(scratch, "gravity_count") ?? 0);
  } finally {
    scratch.close();
  }
  const carried = [...plan.carried, ...listLines(source)];
  if (listed > 0)
    carried.push(`${plural(listed, "domain")} of the lists' last download (they block before the next gravity run)`);
  const notCarried = [...plan.notCarried];

  const changes: Array<{ path: string; value: unknown }> = [];
  for (const [path, value] of plan.settings) {
    if (target.config.envForced.has(path)) {
      notCarried.push({ item: path, why: "set by an environment variable of this Moat, which wins over the file" });
      continue;
    }
    const now = target.config.get(path);
    changes.push({
      path,
      value:
        opts.mode === "merge" && Array.isArray(value) && Array.isArray(now) ? [...new Set([...now, ...value])] : value,
    });
  }

  const gravityDb = openGravityDb(target.dataDir, target.config.current.database.useWAL);
  const queryDb = openQueryDb(target.dataDir, target.config.current.database.useWAL);
  try {
    const hasData = targetHasData(target, gravityDb, queryDb);
    if (hasData && !opts.mode)
      throw new MigrateError(
        `${target.dataDir} already has data`,
        "give --merge to add to it, or --replace to replace its settings and lists (a backup is written first)",
      );
    const mode = hasData ? opts.mode! : "new";
    if (mode === "merge" && plan.gravityDb && rowsOf(source, "adlist").size > 0)
      notCarried.push({
        item: "the lists' downloaded domains",
        why: "a merge adds the lists only: the next gravity run (moat gravity) fetches their domains",
      });
    if (opts.history && plan.history) carried.push("stored queries (counted when applied)");
    else if (plan.history) notCarried.push({ item: "query history", why: opts.historyNote });
    const report: MigrationReport = { source: plan.source, applied: false, mode, carried, notCarried };
    if (opts.dryRun) return { report, tables: [], settingsChanged: false, leasesChanged: false };

    if (hasData) {
      const file = join(target.dataDir, `moat-before-migration-${new Date().toISOString().replace(/[:.]/g, "-")}.zip`);
      writeFileSync(
        file,
        exportArchive({
          config: target.config,
          gravityDb,
          queryDb,
          dataDir: target.dataDir,
          version: versionInfo().version,
        }),
        { mode: 0o600 },
      );
      report.backup = file;
    }
    if (plan.tlsPem) {
      const pem = join(target.dataDir, "tls-migrated.pem");
      writeFileSync(pem, plan.tlsPem, { mode: 0o600 });
      changes.push({ path: "webserver.tls.cert", value: pem });
    }
    if (changes.length) {
      const r = target.config.update(changes);
      if (!r.ok) throw new MigrateError(r.problem.message, String(r.problem.hint));
    }
    const tables = new Set<ListTable>();
    const note = (p: { tables: ListTable[] }) => {
      for (const t of p.tables) tables.add(t);
    };
    const events = new EventBus();
    events.on("lists-changed", note);
    events.on("lists-changed-remote", note);
    const scratchFile = join(scratchDir, "gravity.db");
    if (mode === "merge") void applyListsMap(gravityDb, events, mergeMaps(readListsMap(gravityDb), source));
    else {
      restoreListsFromBackup({ gravityDb, events }, scratchFile, new Set(GRAVITY_PARTS), backupListContents);
      // the filter's sets of the new rows, so the next start loads them rather than building them
      gravitySetsOf(gravityDb, gravityDb.filename);
    }
    if (plan.customRules) {
      const now = mode === "merge" ? customRules(gravityDb).rules : "";
      const have = new Set(now.split("\n"));
      const add = plan.customRules.filter((l) => !have.has(l));
      setCustomRules({ gravityDb, events }, [...(now ? [now] : []), ...add].join("\n"));
    }
    let leasesChanged = false;
    if (plan.leases) {
      const file = leasesFile(target.dataDir);
      const text = plan.leases.endsWith("\n") ? plan.leases : `${plan.leases}\n`;
      if (mode === "merge" && existsSync(file)) appendFileSync(file, text);
      else writeFileSync(file, text, { mode: 0o644 });
      leasesChanged = true;
    }
    if (opts.history && plan.history) {
      const n =
        plan.history.kind === "pihole"
          ? importPiholeQueries(queryDb, plan.history.file)
          : importQueryRows(queryDb, plan.history.rows);
      report.carried = carried.map((c) =>
        c.startsWith("stored queries") ? plural(n, "stored query", "stored queries") : c,
      );
    }
    report.applied = true;
    return { report, tables: [...tables], settingsChanged: changes.length > 0, leasesChanged };
  } finally {
    gravityDb.close();
    queryDb.close();
  }
}

/** Whether the target holds anything a person made: list rows, local records, upstreams, leases, queries. */
function targetHasData(target: Target, gravityDb: Database, queryDb: Database): boolean {
  const map = readListsMap(gravityDb);
  const rows = Object.keys(map).filter((k) => k !== "group/0" && !/_by_group\/\d+\/0$/.test(k));
  const c = target.config.current;
  const leases = leasesFile(target.dataDir);
  return (
    rows.length > 0 ||
    c.dns.upstreams.length > 0 ||
    c.dns.hosts.length > 0 ||
    c.dns.cnameRecords.length > 0 ||
    c.dhcp.hosts.length > 0 ||
    (existsSync(leases) && readFileSync(leases, "utf8").trim() !== "") ||
    lastQueryId(queryDb) > 0
  );
}

/** each domainlist type's name, one and many */
const DOMAIN_KINDS: Array<[string, string]> = [
  ["allow entry", "allow entries"],
  ["deny entry", "deny entries"],
  ["allow regex", "allow regexes"],
  ["deny regex", "deny regexes"],
];

/** The report's lines for the management tables, counted from what was built. */
function listLines(map: ListsMap): string[] {
  const out: string[] = [];
  const groups = rowsOf(map, "group").size - 1;
  if (groups > 0) out.push(plural(groups, "group"));
  const clients = rowsOf(map, "client").size;
  if (clients) out.push(plural(clients, "client"));
  const domains = [...rowsOf(map, "domainlist").values()];
  DOMAIN_KINDS.forEach(([one, many], type) => {
    const n = domains.filter((d) => d.type === type).length;
    if (n) out.push(plural(n, one, many));
  });
  const lists = [...rowsOf(map, "adlist").values()];
  const block = lists.filter((l) => l.type !== 1).length;
  const allow = lists.length - block;
  if (block) out.push(plural(block, "block list"));
  if (allow) out.push(plural(allow, "allow list"));
  const count = (prefix: string) => Object.keys(map).filter((k) => k.startsWith(prefix)).length;
  const services = count("moat_group_service/");
  if (services) out.push(`${plural(services, "blocked service")} (per group)`);
  const safe = count("moat_group_safesearch/");
  if (safe) out.push(`${plural(safe, "safe-search engine")} (per group)`);
  const sched = count("moat_group_schedule/");
  if (sched) out.push(plural(sched, "schedule"));
  const ups = count("moat_group_upstream/");
  if (ups) out.push(plural(ups, "group with its own upstreams", "groups with their own upstreams"));
  return out;
}
