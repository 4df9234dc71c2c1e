// The tables a gravity run fills (gravity, antigravity, and its facts in info): every read and
// write of them outside the run itself, for the snapshot build, the API, the Teleporter and the fleet.
import type { Database } from "bun:sqlite";
import { dirname } from "node:path";
import { adlistIds } from "../../lists/adlists.ts";
import { copyFromBackup, tablesOf, type ListContents } from "../../lists/backup.ts";
import { ComboTable, DomainSetBuilder, WireScratch } from "../domainset-build.ts";
import { FileMemory, type BuildMemory } from "../build-memory.ts";
import {
  type GravitySets,
  readSnapshotFile,
  type SnapshotFileRef,
  snapshotFileOf,
  snapshotKey,
  writeSnapshotFile,
} from "../snapshot-file.ts";

/** info.<property> of the last run, or null (no run yet, or no readable gravity.db). */
export function gravityInfo(db: Database, property: "updated" | "gravity_count"): string | null {
  try {
    return (
      db.query<{ value: string }, [string]>("SELECT value FROM info WHERE property = ?").get(property)?.value ?? null
    );
  } catch {
    return null;
  }
}

/**
 * The four gravity sets from the rows of gravity.db (when the snapshot file is absent or stale). With
 * `memory`, their records stay there, unjoined: fit only to be written to a file (finish(false)).
 */
function gravitySetsFromDb(db: Database, memory?: BuildMemory): GravitySets {
  const scratch = new WireScratch();
  const sets = (table: "gravity" | "antigravity", marker: string) => {
    const n = db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0;
    const plain = new DomainSetBuilder(new ComboTable(), n, memory);
    const abp = new DomainSetBuilder(new ComboTable(), 16, memory);
    for (const r of db
      .query<{ domain: string; adlist_id: number }, []>(`SELECT domain, adlist_id FROM ${table}`)
      .iterate()) {
      let d = r.domain;
      let into = plain;
      if (d.startsWith(marker) && d.endsWith("^")) {
        d = d.slice(marker.length, -1);
        into = abp;
      }
      const wire = scratch.encode(d);
      if (wire) into.add(wire, r.adlist_id);
    }
    return [plain.finish(!memory), abp.finish(!memory)] as const;
  };
  const [gravity, gravityAbp] = sets("gravity", "||");
  const [antigravity, antigravityAbp] = sets("antigravity", "@@||");
  return { gravity, gravityAbp, antigravity, antigravityAbp };
}

/** [rows, highest rowid] of a gravity table */
function tableShape(db: Database, table: string): [number, number] {
  const r = db.query<{ n: number; m: number | null }, []>(`SELECT COUNT(*) AS n, MAX(rowid) AS m FROM ${table}`).get();
  return [r?.n ?? 0, r?.m ?? 0];
}

/** The key of the gravity content now in the tables (snapshot-file.ts: a snapshot file is valid for one key). */
export function readGravityKey(db: Database): string {
  const get = (p: string) =>
    db.query<{ value: string }, [string]>("SELECT value FROM info WHERE property = ?").get(p)?.value ?? "";
  return snapshotKey(get("updated"), get("moat_snapshot"), tableShape(db, "gravity"), tableShape(db, "antigravity"));
}

/**
 * The gravity sets of gravity.db's rows: from the snapshot file written for them, else built from the
 * rows (in a mapped file of the data directory, build-memory.ts), written to it and mapped from it (for
 * the next start, and for the server after a restore in a child process, which then loads 21 MiB
 * instead of building from a million rows). One read transaction: the key and the rows it describes are
 * the same version of the tables. `keepOpen`: the sets come with the file held open (`file`, when
 * mapped) for other threads to map it too; the caller closes it.
 */
export function gravitySetsOf(
  db: Database,
  dbPath: string,
  keepOpen = false,
): { sets: GravitySets; source: "file" | "database"; file?: SnapshotFileRef } {
  const read = <T>(fn: () => T): T => {
    db.run("BEGIN");
    try {
      return fn();
    } finally {
      db.run("COMMIT");
    }
  };
  const file = snapshotFileOf(dbPath);
  const got = read(() => {
    const key = readGravityKey(db);
    const fromFile = readSnapshotFile(file, key, keepOpen);
    if (fromFile) return { key, fromFile };
    const memory = new FileMemory(dirname(dbPath));
    const built = gravitySetsFromDb(db, memory);
    memory.close();
    return { key, built };
  });
  if (got.fromFile) return { sets: got.fromFile, source: "file", file: got.fromFile.file };
  try {
    writeSnapshotFile(file, got.key, got.built!);
    const mapped = readSnapshotFile(file, got.key, keepOpen);
    if (mapped) return { sets: mapped, source: "database", file: mapped.file };
  } catch {
    // a read-only data directory: the next start builds from the database again
  }
  // and this one keeps the sets in its heap
  return { sets: read(() => gravitySetsFromDb(db)), source: "database" };
}

/** The info properties that describe one run's result (shared by the fleet, restored by the Teleporter). */
const RUN_INFO = ["updated", "gravity_count", "abp_domains", "moat_snapshot"];

/** One run's result as the fleet shares it: its info, and both tables' rows with their rowids. */
interface GravityRows {
  info: Record<string, string>;
  gravity: Array<[number, string, number]>;
  antigravity: Array<[number, string, number]>;
}

export function readGravityRows(db: Database): GravityRows {
  const info: Record<string, string> = {};
  for (const r of db
    .query(`SELECT property, value FROM info WHERE property IN (${RUN_INFO.map(() => "?").join(",")})`)
    .all(...RUN_INFO) as Array<{ property: string; value: string }>)
    info[r.property] = r.value;
  const rows = (t: string) =>
    db.query(`SELECT rowid, domain, adlist_id FROM ${t}`).values() as Array<[number, string, number]>;
  return { info, gravity: rows("gravity"), antigravity: rows("antigravity") };
}

/** Replaces the result with another node's (inside the caller's transaction, with the lists' counts). */
export function replaceGravityRows(db: Database, g: GravityRows): void {
  for (const t of ["gravity", "antigravity"] as const) {
    db.run(`DELETE FROM ${t}`);
    const ins = db.prepare(`INSERT INTO ${t} (rowid, domain, adlist_id) VALUES (?, ?, ?)`);
    for (const r of g[t]) ins.run(...r);
  }
  db.run(`DELETE FROM info WHERE property IN (${RUN_INFO.map(() => "?").join(",")})`, RUN_INFO);
  const set = db.prepare("INSERT INTO info (property, value) VALUES (?, ?)");
  for (const [k, v] of Object.entries(g.info)) set.run(k, v);
}

/** The Teleporter's restore of the lists takes their gravity rows from the backup along with them. */
export const backupListContents: ListContents = {
  drop(live) {
    for (const t of ["gravity", "antigravity"]) live.run(`DELETE FROM main.${t}`);
  },
  copy(live, backup) {
    const backupTables = tablesOf(live, backup);
    // only rows of lists the restore kept (their ids, from the lists' owner, as one JSON array)
    const kept = `WHERE adlist_id IN (SELECT value FROM json_each('${JSON.stringify([...adlistIds(live)])}'))`;
    for (const t of ["gravity", "antigravity"]) if (backupTables.has(t)) copyFromBackup(live, backup, t, kept);
    // the rows are the backup's gravity: its date and count come along, and the snapshot file
    // (whose key may match the new rows' count by chance) no longer describes them
    live.run(
      `INSERT OR REPLACE INTO main.info (property, value) SELECT property, value FROM ${backup}.info WHERE property IN ('updated', 'gravity_count', 'abp_domains')`,
    );
    live.run("DELETE FROM main.info WHERE property = 'moat_snapshot'");
  },
};

/** What a run found in one list beside its plain names: the AdGuard-syntax rules it applies, and the others with why. */
export interface ListRules {
  rules: string[];
  unsupported: Array<{ rule: string; why: string }>;
}

/** Replaces the lists' rules with a run's (inside its swap transaction; lists the run did not read keep theirs). */
export function writeListRules(db: Database, byList: ReadonlyMap<number, ListRules>): void {
  const del = db.prepare("DELETE FROM moat_list_rule WHERE adlist_id = ?");
  const ins = db.prepare("INSERT INTO moat_list_rule (adlist_id, rule, why) VALUES (?, ?, ?)");
  for (const [id, l] of byList) {
    del.run(id);
    for (const r of l.rules) ins.run(id, r, null);
    for (const u of l.unsupported) ins.run(id, u.rule, u.why);
  }
}

/** The rules Moat applies, by list (the rules policy compiles them). */
export function appliedListRules(db: Database): Array<{ id: number; rule: string }> {
  return db
    .query<{ id: number; rule: string }, []>(
      "SELECT adlist_id AS id, rule FROM moat_list_rule WHERE why IS NULL ORDER BY rowid",
    )
    .all();
}

/** Per list: how many rules apply, how many do not, and the first `samples` of those with why. */
export function listRuleCounts(
  db: Database,
  samples = 20,
): Array<{ id: number; rules: number; unsupported: number; examples: Array<{ rule: string; why: string }> }> {
  const counts = db
    .query<{ id: number; rules: number; unsupported: number }, []>(
      "SELECT adlist_id AS id, SUM(why IS NULL) AS rules, SUM(why IS NOT NULL) AS unsupported FROM moat_list_rule GROUP BY adlist_id ORDER BY adlist_id",
    )
    .all();
  const ex = db.query<{ rule: string; why: string }, [number, number]>(
    "SELECT rule, why FROM moat_list_rule WHERE adlist_id = ? AND why IS NOT NULL ORDER BY rowid LIMIT ?",
  );
  return counts.map((c) => ({ ...c, examples: c.unsupported ? ex.all(c.id, samples) : [] }));
}
