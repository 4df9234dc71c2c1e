// Restoring groups, lists, domains, clients and their links from a backup's gravity.db (ours or
// Pi-hole's) into the live database in one transaction. The backup is checked first, opened
// read-only on its own; only tables that really are tables are read, and only columns both sides
// have are copied, so older Pi-hole schemas import too.
import { Database } from "bun:sqlite";
import type { ListTable } from "../core/events.ts";
import { piholeGravityVersion } from "../db/index.ts";
import { writeLists, type ListsDb } from "./store.ts";
import { FAMILY_TABLES, LINK_TABLES, ROW_TABLES } from "./tables.ts";

export class BackupDbError extends Error {}

/** Pi-hole's import selection keys (Pi-hole's teleporter.yaml), in the order rows must arrive. */
export const GRAVITY_PARTS = [
  "group",
  "adlist",
  "adlist_by_group",
  "domainlist",
  "domainlist_by_group",
  "client",
  "client_by_group",
] as const;
export type GravityPart = (typeof GRAVITY_PARTS)[number];

const isPart = (name: string): name is GravityPart => (GRAVITY_PARTS as readonly string[]).includes(name);
/** the tables of rows and the group links (tables.ts), in the order of the parts */
const MAIN = GRAVITY_PARTS.filter((p) => ROW_TABLES.some((t) => t.name === p)) as Array<
  "group" | "adlist" | "domainlist" | "client"
>;
const LINKS: Record<string, { owner: ListTable; column: string }> = Object.fromEntries(
  GRAVITY_PARTS.flatMap((p) => LINK_TABLES.filter((l) => l.name === p).map((l) => [l.name, l])),
);
const REQUIRED = ["group", "adlist", "domainlist", "client", "info"];
/**
 * Moat's family-control tables that backups hold (tables.ts), restored with the part whose rows they hang on: a
 * backup from Pi-hole has none of them and leaves them as they are, unless that part is replaced (the groups'
 * rows leave with their groups, by the schema's cascade).
 */
const FAMILY = FAMILY_TABLES.filter((t) => t.inBackups && isPart(t.scope)).map((t) => ({
  table: t.name,
  part: t.scope as GravityPart,
  where: t.scope === "group" ? `WHERE group_id IN (SELECT id FROM main."group")` : "",
}));
/** the schema name the backup is attached under while it is copied */
const BACKUP = "teleporter";

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function tablesOf(db: Database, schemaName = "main"): Set<string> {
  const rows = db.query(`SELECT name FROM ${schemaName}.sqlite_master WHERE type = 'table'`).all() as Array<{
    name: string;
  }>;
  return new Set(rows.map((r) => r.name));
}

function columnsOf(db: Database, schemaName: string, table: string): string[] {
  return (db.query(`PRAGMA ${schemaName}.table_info(${q(table)})`).all() as Array<{ name: string }>).map((r) => r.name);
}

/** Copies the rows of `table` from the attached backup, in the columns both sides have. */
export function copyFromBackup(live: Database, schemaName: string, table: string, where = "", orReplace = false): void {
  const mine = columnsOf(live, "main", table);
  const theirs = new Set(columnsOf(live, schemaName, table));
  const cols = mine
    .filter((c) => theirs.has(c))
    .map(q)
    .join(", ");
  live.run(
    `INSERT ${orReplace ? "OR REPLACE" : "OR IGNORE"} INTO main.${q(table)} (${cols}) SELECT ${cols} FROM ${schemaName}.${q(table)} ${where}`,
  );
}

/** Throws BackupDbError unless `file` is an intact Pi-hole-style gravity database. */
export function checkBackupDb(file: string): void {
  let db: Database | undefined;
  try {
    db = new Database(file, { readonly: true });
    const check = db.query("PRAGMA quick_check").get() as { quick_check: string } | null;
    if (check?.quick_check !== "ok")
      throw new BackupDbError(`database is damaged (${check?.quick_check ?? "no result"})`);
    const tables = tablesOf(db);
    const missing = REQUIRED.filter((t) => !tables.has(t));
    if (missing.length) throw new BackupDbError(`not a Pi-hole gravity database (missing table ${missing.join(", ")})`);
    const version = piholeGravityVersion(db);
    if (version === null || !/^\d+$/.test(String(version)))
      throw new BackupDbError("not a Pi-hole gravity database (no schema version)");
    for (const t of ["domainlist", "adlist", "client", "group"]) {
      const cols = new Set(columnsOf(db, "main", t));
      const need =
        t === "domainlist"
          ? ["id", "type", "domain"]
          : t === "adlist"
            ? ["id", "address"]
            : t === "client"
              ? ["id", "ip"]
              : ["id", "name"];
      for (const c of need)
        if (!cols.has(c)) throw new BackupDbError(`not a Pi-hole gravity database (table ${t} has no column ${c})`);
    }
  } catch (e) {
    if (e instanceof BackupDbError) throw e;
    throw new BackupDbError(`not a readable SQLite database (${(e as Error).message})`);
  } finally {
    db?.close();
  }
}

/**
 * The rows a gravity run made from the lists (src/filter/gravity/ owns them): when the lists are
 * replaced, they leave before the lists (they reference them, no cascade) and come back from the
 * backup with its lists, in the same transaction, so blocking works before the next gravity run.
 */
export interface ListContents {
  drop(live: Database): void;
  copy(live: Database, backupSchema: string): void;
}

/**
 * Replaces the selected parts of the live tables with the backup `file`'s, all or nothing, and
 * announces the change. Returns the parts restored, in Pi-hole's order.
 */
export function restoreListsFromBackup(
  store: ListsDb,
  file: string,
  parts: ReadonlySet<GravityPart>,
  contents: ListContents,
): GravityPart[] {
  const live = store.gravityDb;
  live.run(`ATTACH DATABASE ? AS ${BACKUP}`, [file]);
  try {
    const backupTables = tablesOf(live, BACKUP);
    const has = (p: GravityPart) => parts.has(p) && backupTables.has(p);
    const touched = [
      ...new Set([
        ...MAIN.filter(has),
        ...Object.entries(LINKS)
          .filter(([l]) => has(l as GravityPart))
          .map(([, v]) => v.owner),
        ...(FAMILY.some((f) => has(f.part)) ? (["family"] as const) : []),
      ]),
    ];
    const done: GravityPart[] = [];
    writeLists(store, touched, () => {
      const lists = has("adlist");
      if (lists) contents.drop(live);
      for (const part of MAIN) {
        if (!has(part)) continue;
        live.run(`DELETE FROM main.${q(part)}`);
        // Group 0 ("Default") is re-created by a trigger when deleted; the backup's version wins.
        copyFromBackup(live, BACKUP, part, "", part === "group");
        if (part === "adlist") contents.copy(live, BACKUP);
        done.push(part);
      }
      for (const f of FAMILY) {
        if (!has(f.part) || !backupTables.has(f.table)) continue;
        live.run(`DELETE FROM main.${f.table}`);
        copyFromBackup(live, BACKUP, f.table, f.where);
      }
      for (const [link, { owner, column }] of Object.entries(LINKS)) {
        if (!has(link as GravityPart)) continue;
        // Inserting the owners added default-group links (triggers); the backup's links replace them.
        live.run(`DELETE FROM main.${link} WHERE ${column} IN (SELECT id FROM main.${owner})`);
        copyFromBackup(
          live,
          BACKUP,
          link,
          `WHERE ${column} IN (SELECT id FROM main.${owner}) AND group_id IN (SELECT id FROM main."group")`,
        );
        done.push(link as GravityPart);
      }
    });
    return GRAVITY_PARTS.filter((p) => done.includes(p));
  } finally {
    live.run(`DETACH DATABASE ${BACKUP}`);
  }
}
