// The management tables as one map, one key per row, for the fleet (src/fleet/lists-state.ts):
// "domainlist/7" -> {type, domain, enabled, comment, date_added}, "domainlist_by_group/7/0" -> 1.
// Row ids travel with the rows, so every node shows the same ids. What a gravity run writes into
// adlist (counts, status, date_updated) and the date_modified that triggers stamp stay local.
import type { Database } from "bun:sqlite";
import type { EventBus } from "../core/events.ts";

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
  typeof a === "object" &&
  a !== null &&
  t.columns.every((c) => ((a as Record<string, unknown>)[c] ?? null) === (b[c] ?? null));

/**
 * Makes the tables hold exactly `next` (the fleet's state), touching only rows that differ, in one
 * transaction, then announces it as a remote change: the filter rebuilds, the fleet does not
 * publish it back. Resolves when the change is in force.
 */
export async function applyListsMap(db: Database, events: EventBus, next: ListsMap): Promise<void> {
  const now = readListsMap(db);
  db.transaction(() => {
    // deletions first, so a name that moved to another id is free when it is inserted
    for (const t of [...REPLICATED_TABLES].reverse()) {
      for (const id of rowsOf(now, t.name).keys()) {
        if (next[`${t.name}/${id}`] !== undefined) continue;
        if (t.name === "adlist")
          for (const g of ["gravity", "antigravity"]) db.run(`DELETE FROM ${g} WHERE adlist_id = ?`, [id]);
        db.run(`DELETE FROM ${q(t.name)} WHERE id = ?`, [id]);
      }
    }
    for (const t of REPLICATED_TABLES) {
      const cols = ["id", ...t.columns];
      const upsert = db.prepare(
        `INSERT INTO ${q(t.name)} (${cols.map(q).join(", ")}) VALUES (${cols.map(() => "?").join(", ")}) ` +
          `ON CONFLICT(id) DO UPDATE SET ${t.columns.map((c) => `${q(c)} = excluded.${q(c)}`).join(", ")}`,
      );
      for (const [id, row] of rowsOf(next, t.name)) {
        if (sameRow(t, now[`${t.name}/${id}`], row)) continue;
        upsert.run(...([id, ...t.columns.map((c) => row[c] ?? null)] as Array<string | number | null>));
      }
    }
    // links last: inserting an owner added its Default-group link (trigger)
    const after = readListsMap(db);
    for (const l of REPLICATED_LINKS) {
      for (const k of Object.keys(after)) {
        if (!k.startsWith(`${l.name}/`) || next[k] !== undefined) continue;
        const [, o, g] = k.split("/");
        db.run(`DELETE FROM ${l.name} WHERE ${l.column} = ? AND group_id = ?`, [Number(o), Number(g)]);
      }
      for (const k of Object.keys(next)) {
        if (!k.startsWith(`${l.name}/`) || after[k] !== undefined) continue;
        const [, o, g] = k.split("/");
        db.run(`INSERT OR IGNORE INTO ${l.name} (${l.column}, group_id) VALUES (?, ?)`, [Number(o), Number(g)]);
      }
    }
  })();
  await events.emit("lists-changed-remote", {});
}
