// Family controls in gravity.db (Moat's own tables, migration 2 of src/db/migrations.ts): the blocked
// services each group picks (moat_group_service) and the paused clients (moat_client_pause). Service ids
// are checked against the catalogue by the caller (the API); a group is addressed by name as elsewhere.
import type { Database } from "bun:sqlite";
import { ListsError, writeLists, type ListsStore } from "./store.ts";

/** group name → its blocked service ids (ascending), for every group (groups without any have []). */
export function groupServices(db: Database): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const g of db.query<{ name: string }, []>(`SELECT name FROM "group" ORDER BY id`).all()) out.set(g.name, []);
  for (const r of db
    .query<{ name: string; service: string }, []>(
      `SELECT g.name AS name, s.service AS service FROM moat_group_service s JOIN "group" g ON g.id = s.group_id ORDER BY s.service`,
    )
    .all())
    out.get(r.name)?.push(r.service);
  return out;
}

/** Replaces the blocked services of the group `name` (ListsError "absent" when there is no such group). */
export function setGroupServices(store: ListsStore, name: string, services: readonly string[]): void {
  writeLists(store, ["family"], (db) => {
    const g = db.query<{ id: number }, [string]>(`SELECT id FROM "group" WHERE name = ?`).get(name);
    if (!g) throw new ListsError("absent", name);
    db.query("DELETE FROM moat_group_service WHERE group_id = ?").run(g.id);
    const ins = db.query("INSERT OR IGNORE INTO moat_group_service (group_id, service) VALUES (?, ?)");
    for (const s of services) ins.run(g.id, s);
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
export function pauseClient(store: ListsStore, client: string, until: number | null, now: number): void {
  writeLists(store, ["family"], (db) => {
    db.query("DELETE FROM moat_client_pause WHERE until IS NOT NULL AND until <= ?").run(now);
    db.query(
      "INSERT INTO moat_client_pause (client, until) VALUES (?1, ?2) ON CONFLICT(client) DO UPDATE SET until = ?2",
    ).run(client, until);
  });
}

/** Ends a client's pause; false when it had none. */
export function resumeClient(store: ListsStore, client: string): boolean {
  return writeLists(
    store,
    ["family"],
    (db) => db.query("DELETE FROM moat_client_pause WHERE client = ?").run(client).changes > 0,
  );
}
