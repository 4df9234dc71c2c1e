// The management tables as one map, one key per row, for the fleet (src/fleet/lists-state.ts):
// "domainlist/7" -> {type, domain, enabled, comment, date_added}, "domainlist_by_group/7/0" -> 1.
// Row ids travel with the rows, so every node shows the same ids. What a gravity run writes into
// adlist (counts, status, date_updated) and the date_modified that triggers stamp stay local.
import type { Database } from "bun:sqlite";
import type { EventBus, ListTable } from "../core/events.ts";
import { removeAdlistById } from "./adlists.ts";
import { FAMILY_TABLES, LINK_TABLES, ROW_TABLES } from "./tables.ts";

/** key -> row (or 1 for a link); the shape of the fleet's state maps */
type ListsMap = Record<string, unknown>;

type ReplicatedTable = (typeof ROW_TABLES)[number];

/** The tables of rows and the group links travel whole (tables.ts declares them). */
export const REPLICATED_TABLES = ROW_TABLES;
export const REPLICATED_LINKS = LINK_TABLES;

/**
 * Moat's family controls (family.ts) and custom rules (custom-rules.ts) as keys of the same map, one per row:
 * "<table>/<natural key, URI-encoded>" -> the other columns as stored (JSON text stays text), or 1 when there are
 * none: "moat_group_service/<group>/<service>" -> 1, "moat_group_schedule/<group>" -> {windows, services, lists,
 * everything}, "moat_client_pause/<client>" -> {until}, "moat_custom_rules/1" -> {rules, date_modified}. A group's
 * rows are keyed by its id like the links, so they move with a renumbered group and leave with a deleted one.
 */
const FAMILY = FAMILY_TABLES.filter((t) => t.replicated);

/** Whether a key is one of the family controls' that hang on a group, and that group's id. */
export function familyGroupOf(key: string): number | null {
  const [name, g] = key.split("/");
  return FAMILY.find((t) => t.name === name)?.scope === "group" ? Number(g) : null;
}

function readFamily(db: Database, out: ListsMap): void {
  for (const t of FAMILY) {
    const cols = [...t.key, ...t.columns];
    for (const r of db.query(`SELECT ${cols.map(q).join(", ")} FROM ${t.name}`).all() as Array<Record<string, unknown>>)
      out[`${t.name}/${t.key.map((k) => encodeURIComponent(String(r[k]))).join("/")}`] =
        t.columns.length === 0 ? 1 : Object.fromEntries(t.columns.map((c) => [c, r[c]]));
  }
}

/** Adds (or replaces) or removes the family-control row a key names. */
function writeFamily(db: Database, key: string, value: unknown): void {
  const [name, ...parts] = key.split("/");
  const t = FAMILY.find((f) => f.name === name);
  if (!t) return;
  const keyValues = t.key.map((k, i) =>
    k === "group_id" || k === "id" ? Number(parts[i]) : decodeURIComponent(parts[i] ?? ""),
  );
  if (value === undefined) {
    db.run(`DELETE FROM ${t.name} WHERE ${t.key.map((k) => `${k} = ?`).join(" AND ")}`, keyValues);
    return;
  }
  const row = (typeof value === "object" && value !== null ? value : {}) as Record<string, string | number | null>;
  const cols = [...t.key, ...t.columns];
  db.run(`INSERT OR REPLACE INTO ${t.name} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`, [
    ...keyValues,
    ...t.columns.map((c) => row[c] ?? t.fallback?.[c] ?? null),
  ]);
}

const isFamilyKey = (k: string) => k.startsWith("moat_");
const sameValue = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

const q = (s: string) => `"${s}"`;

export function readListsMap(db: Database): ListsMap {
  const out: ListsMap = {};
  for (const t of REPLICATED_TABLES) {
    for (const row of db.query(`SELECT id, ${t.columns.map(q).join(", ")} FROM ${q(t.name)}`).all() as Array<
      Record<string, unknown>
    >) {
      const { id, ...rest } = row;
      out[`${t.name}/${id}`] = rest;
    }
  }
  for (const l of REPLICATED_LINKS)
    for (const r of db.query(`SELECT ${l.column} AS o, group_id AS g FROM ${l.name}`).all() as Array<{
      o: number;
      g: number;
    }>)
      out[`${l.name}/${r.o}/${r.g}`] = 1;
  readFamily(db, out);
  return out;
}

/** The rows of one table in a map, by id. */
export function rowsOf(map: ListsMap, table: string): Map<number, Record<string, unknown>> {
  const out = new Map<number, Record<string, unknown>>();
  const prefix = `${table}/`;
  for (const [k, v] of Object.entries(map))
    if (k.startsWith(prefix) && !k.slice(prefix.length).includes("/"))
      out.set(Number(k.slice(prefix.length)), v as Record<string, unknown>);
  return out;
}

const sameRow = (t: ReplicatedTable, a: unknown, b: Record<string, unknown>) =>
  a === b ||
  (typeof a === "object" &&
    a !== null &&
    t.columns.every((c) => ((a as Record<string, unknown>)[c] ?? null) === (b[c] ?? null)));

/**
 * Makes the tables hold exactly `next` (the fleet's state), in one transaction, then announces it as a
 * remote change: the filter rebuilds, the fleet does not publish it back. `current` is what the tables
 * hold now, when the caller knows it (the fleet keeps the map it read last): only the rows and links
 * that differ between the two are written, so a change of one entry writes one row. The tables have
 * changed when this returns (it throws if they could not); the promise resolves when the change is in
 * force.
 */
export function applyListsMap(
  db: Database,
  events: EventBus,
  next: ListsMap,
  current: ListsMap = readListsMap(db),
): Promise<void> {
  db.transaction(() => writeDifference(db, current, next))();
  return events.emit("lists-changed-remote", { tables: changedTables(current, next) });
}

/** The tables whose rows or links differ (a link counts as its owner's table), as `lists-changed` names them. */
function changedTables(current: ListsMap, next: ListsMap): ListTable[] {
  const out = new Set<ListTable>();
  for (const k of new Set([...Object.keys(current), ...Object.keys(next)])) {
    if (isFamilyKey(k)) {
      if (!sameValue(current[k], next[k]))
        out.add(FAMILY.find((t) => k.startsWith(`${t.name}/`))?.announce ?? "family");
      continue;
    }
    const name = k.slice(0, k.indexOf("/"));
    const table = REPLICATED_TABLES.find((t) => t.name === name);
    const owner = table?.name ?? REPLICATED_LINKS.find((l) => l.name === name)?.owner;
    if (!owner || out.has(owner)) continue;
    const a = current[k],
      b = next[k];
    if (a === undefined || b === undefined || (table && !sameRow(table, a, b as Record<string, unknown>)))
      out.add(owner);
  }
  return [...out];
}

function writeDifference(db: Database, current: ListsMap, next: ListsMap): void {
  // deletions first, so a name that moved to another id is free when it is inserted; a deleted row takes
  // its links along (triggers, foreign keys)
  for (const t of [...REPLICATED_TABLES].reverse()) {
    for (const id of rowsOf(current, t.name).keys()) {
      if (next[`${t.name}/${id}`] !== undefined) continue;
      if (t.name === "adlist") removeAdlistById(db, id);
      else db.run(`DELETE FROM ${q(t.name)} WHERE id = ?`, [id]);
    }
  }
  /** rows that did not exist: inserting one gave it a Default-group link (trigger) */
  const inserted = new Set<string>();
  for (const t of REPLICATED_TABLES) {
    const cols = ["id", ...t.columns];
    const upsert = db.prepare(
      `INSERT INTO ${q(t.name)} (${cols.map(q).join(", ")}) VALUES (${cols.map(() => "?").join(", ")}) ` +
        `ON CONFLICT(id) DO UPDATE SET ${t.columns.map((c) => `${q(c)} = excluded.${q(c)}`).join(", ")}`,
    );
    for (const [id, row] of rowsOf(next, t.name)) {
      const now = current[`${t.name}/${id}`];
      if (sameRow(t, now, row)) continue;
      upsert.run(...([id, ...t.columns.map((c) => row[c] ?? null)] as Array<string | number | null>));
      if (now === undefined) inserted.add(`${t.name}/${id}`);
    }
  }
  // links last, when both their ends exist; an owner inserted above got its Default-group link from a trigger
  for (const k of Object.keys(current)) if (next[k] === undefined) writeLink(db, k, "unlink");
  for (const k of inserted) {
    const [table, id] = k.split("/");
    for (const l of REPLICATED_LINKS)
      if (l.owner === table && next[`${l.name}/${id}/0`] === undefined) writeLink(db, `${l.name}/${id}/0`, "unlink");
  }
  for (const k of Object.keys(next)) if (current[k] === undefined) writeLink(db, k, "link");
  // the family controls last: their groups exist now (a deleted group took its rows along)
  for (const k of Object.keys(current)) if (isFamilyKey(k) && next[k] === undefined) writeFamily(db, k, undefined);
  for (const [k, v] of Object.entries(next))
    if (isFamilyKey(k) && !sameValue(current[k], v) && groupExists(db, k)) writeFamily(db, k, v);
}

function groupExists(db: Database, key: string): boolean {
  const g = familyGroupOf(key);
  return g === null || db.query(`SELECT 1 FROM "group" WHERE id = ?`).get(g) !== null;
}

/** Adds or removes the link a key names ("domainlist_by_group/7/0"); a row's key is left alone. */
function writeLink(db: Database, key: string, how: "link" | "unlink"): void {
  const [name, owner, group] = key.split("/");
  const l = REPLICATED_LINKS.find((x) => x.name === name);
  if (!l) return;
  db.run(
    how === "link"
      ? `INSERT OR IGNORE INTO ${l.name} (${l.column}, group_id) VALUES (?, ?)`
      : `DELETE FROM ${l.name} WHERE ${l.column} = ? AND group_id = ?`,
    [Number(owner), Number(group)],
  );
}
