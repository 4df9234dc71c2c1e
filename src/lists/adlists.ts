// Subscribed lists (adlist, Pi-hole's adlists): what the API manages, what a gravity run fetches,
// and the counts and status each run records. Their contents (gravity, antigravity) belong to the
// gravity run (src/filter/gravity/); deleting a list removes its rows too, as they reference it.
import { Database } from "bun:sqlite";
import { GRAVITY_BUILD_TABLES } from "../db/gravity-schema.ts";
import { setGroups } from "./group-links.ts";
import { eachUnique, writeLists, type ListsDb, type OnDuplicate } from "./store.ts";

export type AdlistType = "block" | "allow";
const adlistTypeCode = (t: AdlistType) => (t === "block" ? 0 : 1);

export interface AdlistRow {
  id: number;
  address: string;
  type: number;
  comment: string | null;
  enabled: number;
  date_added: number;
  date_modified: number;
  date_updated: number | null;
  number: number;
  invalid_domains: number;
  abp_entries: number;
  status: number;
}

/** Every list, or those with `address` and/or of `type`, by id. */
export function adlistRows(db: Database, address: string | null, type: AdlistType | undefined): AdlistRow[] {
  const conds: string[] = [];
  const args: Array<string | number> = [];
  if (address !== null) conds.push("address = ?"), args.push(address);
  if (type) conds.push("type = ?"), args.push(adlistTypeCode(type));
  return db
    .query(`SELECT * FROM adlist ${conds.length ? `WHERE ${conds.join(" AND ")}` : ""} ORDER BY id`)
    .all(...args) as AdlistRow[];
}

interface NewAdlists {
  type: AdlistType;
  addresses: readonly string[];
  enabled: boolean;
  comment: string | null;
  groups?: readonly number[];
}

/** Subscribes to lists; returns those added (the others went to `onDuplicate`). */
export function addAdlists(store: ListsDb, add: NewAdlists, onDuplicate: OnDuplicate): string[] {
  return writeLists(store, ["adlist"], (db) => {
    const ins = db.query("INSERT INTO adlist (address, type, enabled, comment) VALUES (?, ?, ?, ?) RETURNING id");
    return eachUnique(add.addresses, onDuplicate, (address) => {
      const { id } = ins.get(address, adlistTypeCode(add.type), add.enabled ? 1 : 0, add.comment) as { id: number };
      if (add.groups) setGroups(db, "adlist_by_group", id, add.groups);
    });
  });
}

/** Creates or replaces one list. */
export function putAdlist(store: ListsDb, put: Omit<NewAdlists, "addresses"> & { address: string }): void {
  writeLists(store, ["adlist"], (db) => {
    const { id } = db
      .query(
        "INSERT INTO adlist (address, type, enabled, comment) VALUES (?1, ?2, ?3, ?4) ON CONFLICT(address, type) DO UPDATE SET enabled = ?3, comment = ?4 RETURNING id",
      )
      .get(put.address, adlistTypeCode(put.type), put.enabled ? 1 : 0, put.comment) as { id: number };
    if (put.groups) setGroups(db, "adlist_by_group", id, put.groups);
  });
}

/**
 * Removes lists with their gravity rows in one transaction, on a connection of its own: it runs on
 * a thread that is not the one answering DNS (src/querylog/reader-ops.ts), since a list's rows are
 * its domains and 700k of them took 2.9 s to delete (bench/api/long-calls.ts --only lists). Returns
 * the ids removed; the caller announces the change (`announceLists`) and removes their cached copies.
 */
export function deleteAdlistsIn(gravityFile: string, lists: ReadonlyArray<{ address: string; type: AdlistType }>) {
  const db = new Database(gravityFile, { readwrite: true });
  try {
    // as every connection to gravity.db is set up (src/db/open.ts)
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA foreign_keys = ON");
    return db.transaction(() => removeAdlistRows(db, lists))();
  } finally {
    db.close();
  }
}

function removeAdlistRows(db: Database, lists: ReadonlyArray<{ address: string; type: AdlistType }>): number[] {
  const removed: number[] = [];
  for (const { address, type } of lists) {
    const row = db.query("SELECT id FROM adlist WHERE address = ? AND type = ?").get(address, adlistTypeCode(type)) as {
      id: number;
    } | null;
    if (!row) continue;
    if (removeAdlistById(db, row.id)) removed.push(row.id);
  }
  return removed;
}

/**
 * Removes one list and its rows, inside the caller's transaction; false when no such list. The rows
 * are in the live tables and, while a run is in progress or after one was killed with its server,
 * in its build tables too, whose reference to adlist would refuse the delete otherwise (the run
 * drops the rest of a removed list's rows at its swap).
 */
export function removeAdlistById(db: Database, id: number): boolean {
  const present = db
    .query<{ name: string }, string[]>("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)")
    .all(...Object.values(GRAVITY_BUILD_TABLES))
    .map((r) => r.name);
  for (const table of ["gravity", "antigravity", "moat_list_rule", ...present])
    db.run(`DELETE FROM ${table} WHERE adlist_id = ?`, [id]);
  return db.query("DELETE FROM adlist WHERE id = ?").run(id).changes > 0;
}

/** What a gravity run fetches: the enabled lists, by id. */
export function enabledAdlists(db: Database): Array<{ id: number; address: string; type: number }> {
  return db.query("SELECT id, address, type FROM adlist WHERE enabled = 1 ORDER BY id").all() as Array<{
    id: number;
    address: string;
    type: number;
  }>;
}

/** The ids of every list. */
export function adlistIds(db: Database): Set<number> {
  return new Set((db.query("SELECT id FROM adlist").all() as Array<{ id: number }>).map((r) => r.id));
}

/** What one gravity run found for one list (`updated`: its date_updated becomes the run's time). */
export interface AdlistResult {
  number: number;
  invalid_domains: number;
  abp_entries: number;
  status: number;
  updated: boolean;
}

/**
 * Records a gravity run's counts and status per list, inside the caller's transaction (the swap of
 * the gravity tables). Not a change of the lists: nothing is announced (the run announces itself).
 */
export function recordAdlistResults(db: Database, results: ReadonlyMap<number, AdlistResult>, now: number): void {
  const upd = db.query("UPDATE adlist SET number = ?, invalid_domains = ?, abp_entries = ?, status = ? WHERE id = ?");
  const touched = db.query("UPDATE adlist SET date_updated = ? WHERE id = ?");
  for (const [id, r] of results) {
    upd.run(r.number, r.invalid_domains, r.abp_entries, r.status, id);
    if (r.updated) touched.run(now, id);
  }
}

/** [id, number, invalid_domains, status, abp_entries, date_updated] of every list: what a gravity run left, as the fleet shares it. */
export type AdlistCounts = [number, number, number, number, number, number | null];

export function adlistCounts(db: Database): AdlistCounts[] {
  return db
    .query("SELECT id, number, invalid_domains, status, abp_entries, date_updated FROM adlist")
    .values() as AdlistCounts[];
}

/** Takes another node's gravity run's counts (inside the caller's transaction, with its gravity rows). */
export function setAdlistCounts(db: Database, counts: readonly AdlistCounts[]): void {
  const upd = db.prepare(
    "UPDATE adlist SET number = ?, invalid_domains = ?, status = ?, abp_entries = ?, date_updated = ? WHERE id = ?",
  );
  for (const [id, n, inv, st, abp, du] of counts) upd.run(n, inv, st, abp, du, id);
}
