// The group links of domains, lists and clients (domainlist_by_group, adlist_by_group,
// client_by_group): who belongs to which groups.
import type { Database } from "bun:sqlite";
import { ListsError } from "./store.ts";
import { LINK_TABLES, type LinkTable } from "./tables.ts";

/** the column naming the linked row in each link table (tables.ts) */
export const OWNER_COLUMN = Object.fromEntries(LINK_TABLES.map((l) => [l.name, l.column])) as Record<LinkTable, string>;

/** Replaces the group links of one row after checking the groups exist (inside the caller's transaction). */
export function setGroups(db: Database, table: LinkTable, id: number, groups: readonly number[]): void {
  const col = OWNER_COLUMN[table];
  for (const g of groups) {
    if (!db.query(`SELECT 1 FROM "group" WHERE id = ?`).get(g)) throw new ListsError("unknown-group", `group ${g}`);
  }
  db.query(`DELETE FROM ${table} WHERE ${col} = ?`).run(id);
  const ins = db.query(`INSERT OR IGNORE INTO ${table} (${col}, group_id) VALUES (?, ?)`);
  for (const g of groups) ins.run(id, g);
}

/** row id → its group ids (ascending), for every row of a link table */
export function groupMap(db: Database, table: LinkTable): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const r of db
    .query(`SELECT ${OWNER_COLUMN[table]} AS id, group_id AS g FROM ${table} ORDER BY group_id`)
    .all() as Array<{ id: number; g: number }>) {
    let l = out.get(r.id);
    if (!l) out.set(r.id, (l = []));
    l.push(r.g);
  }
  return out;
}
