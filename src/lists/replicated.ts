// The management tables as one map, one key per row, for the fleet (src/fleet/lists-state.ts):
// "domainlist/7" -> {type, domain, enabled, comment, date_added}, "domainlist_by_group/7/0" -> 1.
// Row ids travel with the rows, so every node shows the same ids. What a gravity run writes into
// adlist (counts, status, date_updated) and the date_modified that triggers stamp stay local.
import type { Database } from "bun:sqlite";
import type { EventBus, ListTable } from "../core/events.ts";

/** key -> row (or 1 for a link); the shape of the fleet's state maps */
type ListsMap = Record<string, unknown>;

interface ReplicatedTable {
  name: "group" | "client" | "domainlist" | "adlist";
  columns: string[];
  /** what makes a row unique besides its id (a UNIQUE constraint of the table) */
  natural: (row: Record<string, unknown>) => string;
}

export const REPLICATED_TABLES: ReplicatedTable[] = [
  { name: "group", columns: ["enabled", "name", "description", "date_added"], natural: (r) => String(r.name) },
  { name: "client", columns: ["ip", "comment", "date_added"], natural: (r) => String(r.ip) },
  {
    name: "domainlist",
    columns: ["type", "domain", "enabled", "comment", "date_added"],
    natural: (r) => `${r.type}|${r.domain}`,
  },
  {
    name: "adlist",
    columns: ["address", "enabled", "comment", "type", "date_added"],
    natural: (r) => `${r.type}|${r.address}`,
  },
];
export const REPLICATED_LINKS = [
  { name: "client_by_group", owner: "client", column: "client_id" },
  { name: "domainlist_by_group", owner: "domainlist", column: "domainlist_id" },
  { name: "adlist_by_group", owner: "adlist", column: "adlist_id" },
] as const;

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
      if (t.name === "adlist")
        for (const g of ["gravity", "antigravity"]) db.run(`DELETE FROM ${g} WHERE adlist_id = ?`, [id]);
      db.run(`DELETE FROM ${q(t.name)} WHERE id = ?`, [id]);
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
