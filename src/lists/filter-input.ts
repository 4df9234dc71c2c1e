// What the filter snapshot is built from (src/filter/build.ts, in a worker with its own read-only
// connection): enabled groups, every group link, the enabled entries, enabled lists and clients.
import type { Database } from "bun:sqlite";
import { OWNER_COLUMN } from "./group-links.ts";
import type { LinkTable } from "./tables.ts";

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

/** Every [group id, blocked service id] the groups picked. */
export function serviceSelections(db: Database): Array<{ g: number; service: string }> {
  return db.query<{ g: number; service: string }, []>("SELECT group_id AS g, service FROM moat_group_service").all();
}

/** Every [group id, safe-search engine id] the groups enforce. */
export function safeSearchSelections(db: Database): Array<{ g: number; engine: string }> {
  return db.query<{ g: number; engine: string }, []>("SELECT group_id AS g, engine FROM moat_group_safesearch").all();
}

/** Every group's schedule as stored (windows and services are JSON arrays). */
export function scheduleRows(
  db: Database,
): Array<{ g: number; windows: string; services: string; lists: string; everything: number }> {
  return db
    .query<{ g: number; windows: string; services: string; lists: string; everything: number }, []>(
      "SELECT group_id AS g, windows, services, lists, everything FROM moat_group_schedule ORDER BY group_id",
    )
    .all();
}

/** Every group's own upstreams as stored (a JSON array), by group id ascending. */
export function groupUpstreamRows(db: Database): Array<{ g: number; upstreams: string }> {
  return db
    .query<{ g: number; upstreams: string }, []>(
      "SELECT group_id AS g, upstreams FROM moat_group_upstream ORDER BY group_id",
    )
    .all();
}

/** The enabled groups' names by id (a $client rule may name a group: a persistent client from AdGuard Home is one). */
export function groupNames(db: Database): Array<{ id: number; name: string }> {
  return db.query<{ id: number; name: string }, []>('SELECT id, name FROM "group" WHERE enabled = 1').all();
}

export { customRules } from "./custom-rules.ts";
