// Restoring groups, lists, domains, clients and their links from a backup's gravity.db (ours or
// Pi-hole's) into the live database in one transaction. The backup is checked first, opened
// read-only on its own; only tables that really are tables are read, and only columns both sides
// have are copied, so older Pi-hole schemas import too.
import { Database } from "bun:sqlite";

export class BackupDbError extends Error {}

/** Pi-hole's import selection keys (Pi-hole's teleporter.yaml), in the order rows must arrive. */
export const GRAVITY_PARTS = ["group", "adlist", "adlist_by_group", "domainlist", "domainlist_by_group", "client", "client_by_group"] as const;
export type GravityPart = (typeof GRAVITY_PARTS)[number];

const MAIN: GravityPart[] = ["group", "adlist", "domainlist", "client"];
const LINKS: Record<string, { owner: GravityPart; column: string }> = {
  adlist_by_group: { owner: "adlist", column: "adlist_id" },
  domainlist_by_group: { owner: "domainlist", column: "domainlist_id" },
  client_by_group: { owner: "client", column: "client_id" },
};
const REQUIRED = ["group", "adlist", "domainlist", "client", "info"];

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

function tablesOf(db: Database, schemaName = "main"): Set<string> {
  const rows = db.query(`SELECT name FROM ${schemaName}.sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>;
  return new Set(rows.map((r) => r.name));
}

function columnsOf(db: Database, schemaName: string, table: string): string[] {
  return (db.query(`PRAGMA ${schemaName}.table_info(${q(table)})`).all() as Array<{ name: string }>).map((r) => r.name);
}

/** Throws BackupDbError unless `file` is an intact Pi-hole-style gravity database. */
export function checkBackupDb(file: string): void {
  let db: Database | undefined;
  try {
    db = new Database(file, { readonly: true });
    const check = db.query("PRAGMA quick_check").get() as { quick_check: string } | null;
    if (check?.quick_check !== "ok") throw new BackupDbError(`database is damaged (${check?.quick_check ?? "no result"})`);
    const tables = tablesOf(db);
    const missing = REQUIRED.filter((t) => !tables.has(t));
    if (missing.length) throw new BackupDbError(`not a Pi-hole gravity database (missing table ${missing.join(", ")})`);
    const version = db.query("SELECT value FROM info WHERE property = 'version'").get() as { value: unknown } | null;
    if (!version || !/^\d+$/.test(String(version.value))) throw new BackupDbError("not a Pi-hole gravity database (no schema version)");
    for (const t of ["domainlist", "adlist", "client", "group"]) {
      const cols = new Set(columnsOf(db, "main", t));
      const need = t === "domainlist" ? ["id", "type", "domain"] : t === "adlist" ? ["id", "address"] : t === "client" ? ["id", "ip"] : ["id", "name"];
      for (const c of need) if (!cols.has(c)) throw new BackupDbError(`not a Pi-hole gravity database (table ${t} has no column ${c})`);
    }
  } catch (e) {
    if (e instanceof BackupDbError) throw e;
    throw new BackupDbError(`not a readable SQLite database (${(e as Error).message})`);
  } finally {
    db?.close();
  }
}

/**
 * Replaces the selected parts of `live` with the backup's, all or nothing. Returns the parts
 * imported, as Pi-hole names them ("etc/pihole/gravity.db->domainlist").
 */
export function importGravity(live: Database, file: string, parts: ReadonlySet<GravityPart>, entryName: string): string[] {
  live.run("ATTACH DATABASE ? AS teleporter", [file]);
  try {
    const backupTables = tablesOf(live, "teleporter");
    const done: GravityPart[] = [];
    const copy = (table: string, where = "", orReplace = false) => {
      const mine = columnsOf(live, "main", table);
      const theirs = new Set(columnsOf(live, "teleporter", table));
      const cols = mine.filter((c) => theirs.has(c)).map(q).join(", ");
      live.run(`INSERT ${orReplace ? "OR REPLACE" : "OR IGNORE"} INTO main.${q(table)} (${cols}) SELECT ${cols} FROM teleporter.${q(table)} ${where}`);
    };
    live.transaction(() => {
      // gravity rows point at their lists (no cascade): they leave before the lists and come back
      // with the backup's lists, so blocking works before the next gravity run
      const lists = parts.has("adlist") && backupTables.has("adlist");
      if (lists) for (const t of ["gravity", "antigravity"]) live.run(`DELETE FROM main.${t}`);
      for (const part of MAIN) {
        if (!parts.has(part) || !backupTables.has(part)) continue;
        live.run(`DELETE FROM main.${q(part)}`);
        // Group 0 ("Default") is re-created by a trigger when deleted; the backup's version wins.
        copy(part, "", part === "group");
        if (part === "adlist") {
          for (const t of ["gravity", "antigravity"]) if (backupTables.has(t)) copy(t, `WHERE adlist_id IN (SELECT id FROM main.adlist)`);
          // the rows are the backup's gravity: its date and count come along, and the snapshot file
          // (whose key may match the new rows' count by chance) no longer describes them
          live.run(`INSERT OR REPLACE INTO main.info (property, value) SELECT property, value FROM teleporter.info WHERE property IN ('updated', 'gravity_count', 'abp_domains')`);
          live.run("DELETE FROM main.info WHERE property = 'moat_snapshot'");
        }
        done.push(part);
      }
      for (const [link, { owner, column }] of Object.entries(LINKS)) {
        if (!parts.has(link as GravityPart) || !backupTables.has(link)) continue;
        // Inserting the owners added default-group links (triggers); the backup's links replace them.
        live.run(`DELETE FROM main.${link} WHERE ${column} IN (SELECT id FROM main.${owner})`);
        copy(link, `WHERE ${column} IN (SELECT id FROM main.${owner}) AND group_id IN (SELECT id FROM main."group")`);
        done.push(link as GravityPart);
      }
    })();
    // reported in Pi-hole's order (each table followed by its group links)
    return GRAVITY_PARTS.filter((p) => done.includes(p)).map((p) => `${entryName}->${p}`);
  } finally {
    live.run("DETACH DATABASE teleporter");
  }
}
