// Family controls in gravity.db (Moat's own tables, migration 2 of src/db/migrations.ts): the blocked
// services each group picks (moat_group_service), the safe-search engines it enforces
// (moat_group_safesearch), its weekly schedule (moat_group_schedule), its own upstreams (moat_group_upstream)
// and the paused clients (moat_client_pause). Service ids
// are checked against the catalogue by the caller (the API); a group is addressed by name as elsewhere.
import type { Database } from "bun:sqlite";
import { ListsError, writeLists, type ListsDb } from "./store.ts";
import { FAMILY_TABLES } from "./tables.ts";

/** The per-group pick tables: blocked services and safe-search engines. */
type PickTable = "moat_group_service" | "moat_group_safesearch";
/** the column of a group's pick: the second of the table's key (tables.ts) */
const PICK_COLUMN = Object.fromEntries(
  FAMILY_TABLES.filter((t) => t.key.length === 2).map((t) => [t.name, t.key[1]!]),
) as Record<PickTable, string>;

/** group name → its picks (ascending) in one table, for every group (groups without any have []). */
function picksByGroup(db: Database, table: PickTable): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const g of db.query<{ name: string }, []>(`SELECT name FROM "group" ORDER BY id`).all()) out.set(g.name, []);
  const col = PICK_COLUMN[table];
  for (const r of db
    .query<{ name: string; pick: string }, []>(
      `SELECT g.name AS name, s.${col} AS pick FROM ${table} s JOIN "group" g ON g.id = s.group_id ORDER BY s.${col}`,
    )
    .all())
    out.get(r.name)?.push(r.pick);
  return out;
}

/** Replaces the picks of the group `name` in one table (ListsError "absent" when there is no such group). */
function setPicks(store: ListsDb, table: PickTable, name: string, picks: readonly string[]): void {
  writeLists(store, ["family"], (db) => {
    const g = db.query<{ id: number }, [string]>(`SELECT id FROM "group" WHERE name = ?`).get(name);
    if (!g) throw new ListsError("absent", name);
    db.query(`DELETE FROM ${table} WHERE group_id = ?`).run(g.id);
    const ins = db.query(`INSERT OR IGNORE INTO ${table} (group_id, ${PICK_COLUMN[table]}) VALUES (?, ?)`);
    for (const p of picks) ins.run(g.id, p);
  });
}

/** group name → its blocked service ids, for every group. */
export const groupServices = (db: Database) => picksByGroup(db, "moat_group_service");
/** Replaces the blocked services of the group `name`. */
export const setGroupServices = (store: ListsDb, name: string, services: readonly string[]) =>
  setPicks(store, "moat_group_service", name, services);
/** group name → the safe-search engines it enforces, for every group. */
export const groupSafeSearch = (db: Database) => picksByGroup(db, "moat_group_safesearch");
/** Replaces the safe-search engines the group `name` enforces. */
export const setGroupSafeSearch = (store: ListsDb, name: string, engines: readonly string[]) =>
  setPicks(store, "moat_group_safesearch", name, engines);

/** A group's schedule as stored: windows and services are the caller's (JSON in the table). */
export interface StoredSchedule {
  windows: unknown[];
  services: string[];
  /** adlist ids */
  lists: number[];
  everything: boolean;
}

/** group name → its schedule, for the groups that have one. */
export function groupSchedules(db: Database): Map<string, StoredSchedule> {
  const out = new Map<string, StoredSchedule>();
  for (const r of db
    .query<{ name: string; windows: string; services: string; lists: string; everything: number }, []>(
      `SELECT g.name AS name, s.windows, s.services, s.lists, s.everything FROM moat_group_schedule s JOIN "group" g ON g.id = s.group_id ORDER BY g.id`,
    )
    .all())
    out.set(r.name, {
      windows: JSON.parse(r.windows),
      services: JSON.parse(r.services),
      lists: JSON.parse(r.lists),
      everything: r.everything === 1,
    });
  return out;
}

/** Sets (or, with null, removes) the schedule of the group `name` (ListsError "absent" when there is no such group). */
export function setGroupSchedule(store: ListsDb, name: string, s: StoredSchedule | null): void {
  writeLists(store, ["family"], (db) => {
    const g = db.query<{ id: number }, [string]>(`SELECT id FROM "group" WHERE name = ?`).get(name);
    if (!g) throw new ListsError("absent", name);
    if (s === null) db.query("DELETE FROM moat_group_schedule WHERE group_id = ?").run(g.id);
    else
      db.query(
        "INSERT OR REPLACE INTO moat_group_schedule (group_id, windows, services, lists, everything) VALUES (?, ?, ?, ?, ?)",
      ).run(g.id, JSON.stringify(s.windows), JSON.stringify(s.services), JSON.stringify(s.lists), s.everything ? 1 : 0);
  });
}

/** group name → its own upstreams, for the groups that have them. */
export function groupUpstreams(db: Database): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of db
    .query<{ name: string; upstreams: string }, []>(
      `SELECT g.name AS name, u.upstreams FROM moat_group_upstream u JOIN "group" g ON g.id = u.group_id ORDER BY g.id`,
    )
    .all())
    out.set(r.name, JSON.parse(r.upstreams));
  return out;
}

/** Sets (or, with an empty list, removes) the group's own upstreams (ListsError "absent" when there is no such group). */
export function setGroupUpstreams(store: ListsDb, name: string, upstreams: readonly string[]): void {
  writeLists(store, ["family"], (db) => {
    const g = db.query<{ id: number }, [string]>(`SELECT id FROM "group" WHERE name = ?`).get(name);
    if (!g) throw new ListsError("absent", name);
    if (upstreams.length === 0) db.query("DELETE FROM moat_group_upstream WHERE group_id = ?").run(g.id);
    else
      db.query("INSERT OR REPLACE INTO moat_group_upstream (group_id, upstreams) VALUES (?, ?)").run(
        g.id,
        JSON.stringify(upstreams),
      );
  });
}

export interface PauseRow {
  client: string;
  /** unix seconds, null: until resumed */
  until: number | null;
}

/** The pauses still in force at `now` (unix seconds). */
export function activePauses(db: Database, now: number): PauseRow[] {
  return db
    .query<PauseRow, [number]>(
      "SELECT client, until FROM moat_client_pause WHERE until IS NULL OR until > ? ORDER BY client",
    )
    .all(now);
}

/** Pauses one client until `until` (unix seconds; null: until resumed), replacing its earlier pause; drops ended ones. */
export function pauseClient(store: ListsDb, client: string, until: number | null, now: number): void {
  writeLists(store, ["family"], (db) => {
    db.query("DELETE FROM moat_client_pause WHERE until IS NOT NULL AND until <= ?").run(now);
    db.query(
      "INSERT INTO moat_client_pause (client, until) VALUES (?1, ?2) ON CONFLICT(client) DO UPDATE SET until = ?2",
    ).run(client, until);
  });
}

/** Ends a client's pause; false when it had none. */
export function resumeClient(store: ListsDb, client: string): boolean {
  return writeLists(
    store,
    ["family"],
    (db) => db.query("DELETE FROM moat_client_pause WHERE client = ?").run(client).changes > 0,
  );
}
