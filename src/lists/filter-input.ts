// What the filter snapshot is built from (src/filter/build.ts, in a worker with its own read-only
// connection): enabled groups, every group link, the enabled entries, enabled lists and clients; and what
// each group policy compiles, read from the family-control tables as tables.ts declares them.
import type { Database } from "bun:sqlite";
import { OWNER_COLUMN } from "./group-links.ts";
import { FAMILY_TABLES, type LinkTable } from "./tables.ts";

/** The ids of the enabled groups, ascending (each becomes one bit of the snapshot's masks). */
export function enabledGroupIds(db: Database): number[] {
  return db
    .query<{ id: number }, []>('SELECT id FROM "group" WHERE enabled = 1 ORDER BY id')
    .all()
    .map((g) => g.id);
}

/** Every [row id, group id] of a link table. */
export function groupLinks(db: Database, table: LinkTable): Array<{ k: number; g: number }> {
  return db
    .query<{ k: number; g: number }, []>(`SELECT ${OWNER_COLUMN[table]} AS k, group_id AS g FROM ${table}`)
    .all();
}

/** The enabled entries of one domainlist type (0..3, see domains.ts), by id. */
export function enabledDomains(db: Database, code: number): Array<{ id: number; domain: string }> {
  return db
    .query<{ id: number; domain: string }, [number]>(
      "SELECT id, domain FROM domainlist WHERE type = ? AND enabled = 1 ORDER BY id",
    )
    .all(code);
}

export function enabledAdlistIds(db: Database): Set<number> {
  return new Set(
    db
      .query<{ id: number }, []>("SELECT id FROM adlist WHERE enabled = 1")
      .all()
      .map((r) => r.id),
  );
}

/** Every client entry, by id. */
export function clientEntries(db: Database): Array<{ id: number; ip: string }> {
  return db.query<{ id: number; ip: string }, []>("SELECT id, ip FROM client ORDER BY id").all();
}

/**
 * Every row of one group-scoped family-control table, read as `tables.ts` declares it: the group id as `g`,
 * then the rest of its natural key and its columns, in the key's order. `R` names those columns' types.
 */
function groupRows<R extends Record<string, string | number>>(db: Database, name: string): Array<{ g: number } & R> {
  const t = FAMILY_TABLES.find((f) => f.name === name && f.scope === "group");
  if (!t) throw new Error(`${name} is not a group's family-control table (tables.ts)`);
  const columns = [...t.key.slice(1), ...t.columns].map((c) => `, ${c}`).join("");
  const order = t.key.map((c) => (c === "group_id" ? "g" : c)).join(", ");
  return db.query<{ g: number } & R, []>(`SELECT group_id AS g${columns} FROM ${t.name} ORDER BY ${order}`).all();
}

/** Every [group id, blocked service id] the groups picked. */
export const serviceSelections = (db: Database) => groupRows<{ service: string }>(db, "moat_group_service");

/** Every [group id, safe-search engine id] the groups enforce. */
export const safeSearchSelections = (db: Database) => groupRows<{ engine: string }>(db, "moat_group_safesearch");

/** Every group's schedule as stored (windows, services and lists are JSON arrays), by group id. */
export const scheduleRows = (db: Database) =>
  groupRows<{ windows: string; services: string; lists: string; everything: number }>(db, "moat_group_schedule");

/** Every group's own upstreams as stored (a JSON array), by group id. */
export const groupUpstreamRows = (db: Database) => groupRows<{ upstreams: string }>(db, "moat_group_upstream");

/** The enabled groups' names by id (a $client rule may name a group: a persistent client from AdGuard Home is one). */
export function groupNames(db: Database): Array<{ id: number; name: string }> {
  return db.query<{ id: number; name: string }, []>('SELECT id, name FROM "group" WHERE enabled = 1').all();
}

export { customRules } from "./custom-rules.ts";
