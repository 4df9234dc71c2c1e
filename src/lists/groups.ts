// Groups ("group"): addressed by name; group 0 "Default" is re-created by the schema's trigger
// whenever it is deleted, as in Pi-hole.
import type { Database } from "bun:sqlite";
import { eachUnique, ListsError, writeLists, type ListsDb, type OnDuplicate } from "./store.ts";

interface GroupRow {
  id: number;
  name: string;
  description: string | null;
  enabled: number;
  date_added: number;
  date_modified: number;
}

/** Every group, or only the one named `name`, by id. */
export function groupRows(db: Database, name: string | null): GroupRow[] {
  return db
    .query(
      `SELECT id, name, description, enabled, date_added, date_modified FROM "group" ${name !== null ? "WHERE name = ?" : ""} ORDER BY id`,
    )
    .all(...(name !== null ? [name] : [])) as GroupRow[];
}

/** Adds groups; returns those added (the others went to `onDuplicate`). */
export function addGroups(
  store: ListsDb,
  names: readonly string[],
  enabled: boolean,
  description: string | null,
  onDuplicate: OnDuplicate,
): string[] {
  return writeLists(store, ["group"], (db) => {
    const ins = db.query(`INSERT INTO "group" (name, enabled, description) VALUES (?, ?, ?)`);
    return eachUnique(names, onDuplicate, (name) => void ins.run(name, enabled ? 1 : 0, description));
  });
}

interface GroupPut {
  name: string;
  /** renames the group when it differs from `name` (which must then exist: ListsError "absent") */
  newName: string;
  enabled: boolean;
  description: string | null;
}

/** Creates, updates or renames one group; false when the new name is taken (reported to `onDuplicate` under `newName`). */
export function putGroup(store: ListsDb, put: GroupPut, onDuplicate: OnDuplicate): boolean {
  return writeLists(store, ["group"], (db) => {
    const done = eachUnique([put.newName], onDuplicate, () => {
      const enabled = put.enabled ? 1 : 0;
      if (put.newName !== put.name) {
        const n = db
          .query(`UPDATE "group" SET name = ?, enabled = ?, description = ? WHERE name = ?`)
          .run(put.newName, enabled, put.description, put.name).changes;
        if (n === 0) throw new ListsError("absent", put.name);
      } else {
        db.query(
          `INSERT INTO "group" (name, enabled, description) VALUES (?1, ?2, ?3) ON CONFLICT(name) DO UPDATE SET enabled = ?2, description = ?3`,
        ).run(put.name, enabled, put.description);
      }
    });
    return done.length === 1;
  });
}

/** Deletes groups by name in one transaction (their links go with them); returns how many existed. */
export function deleteGroups(store: ListsDb, names: readonly string[]): number {
  return writeLists(store, ["group"], (db) => {
    const del = db.query(`DELETE FROM "group" WHERE name = ?`);
    return names.reduce((sum, name) => sum + del.run(name).changes, 0);
  });
}
