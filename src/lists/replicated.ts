// The management tables as one map, one key per row, for the fleet (src/fleet/lists-state.ts):
// "domainlist/7" -> {type, domain, enabled, comment, date_added}, "domainlist_by_group/7/0" -> 1.
// Row ids travel with the rows, so every node shows the same ids. What a gravity run writes into
// adlist (counts, status, date_updated) and the date_modified that triggers stamp stay local.
import type { Database } from "bun:sqlite";
import type { EventBus, ListTable } from "../core/events.ts";
import { removeAdlistById } from "./adlists.ts";

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

/**
 * Moat's family controls (family.ts) as keys of the same map: "moat_group_service/<group>/<service>" -> 1,
 * "moat_group_safesearch/<group>/<engine>" -> 1, "moat_group_schedule/<group>" -> {windows, services,
 * lists, everything} (as stored: JSON text), "moat_group_upstream/<group>" -> {upstreams}, "moat_client_pause/<client, URI-encoded>" -> {until}. Keyed by group
 * id like the links, so they move with a renumbered group and leave with a deleted one.
 */
const FAMILY_PICKS = [
  { name: "moat_group_service", column: "service" },
  { name: "moat_group_safesearch", column: "engine" },
] as const;
const PAUSE = "moat_client_pause";
const UPSTREAM = "moat_group_upstream";

/** Whether a key is one of the family controls' that hang on a group, and that group's id. */
export function familyGroupOf(key: string): number | null {
  const [name, g] = key.split("/");
  return FAMILY_PICKS.some((f) => f.name === name) || name === "moat_group_schedule" || name === UPSTREAM
    ? Number(g)
    : null;
}

function readFamily(db: Database, out: ListsMap): void {
  for (const f of FAMILY_PICKS)
    for (const r of db.query(`SELECT group_id AS g, ${f.column} AS v FROM ${f.name}`).all() as Array<{
      g: number;
      v: string;
    }>)
      out[`${f.name}/${r.g}/${r.v}`] = 1;
  for (const r of db
    .query("SELECT group_id AS g, windows, services, lists, everything FROM moat_group_schedule")
    .all() as Array<{
    g: number;
    windows: string;
    services: string;
    lists: string;
    everything: number;
  }>)
    out[`moat_group_schedule/${r.g}`] = {
      windows: r.windows,
      services: r.services,
      lists: r.lists,
      everything: r.everything,
    };
  for (const r of db.query(`SELECT group_id AS g, upstreams FROM ${UPSTREAM}`).all() as Array<{
    g: number;
    upstreams: string;
  }>)
    out[`${UPSTREAM}/${r.g}`] = { upstreams: r.upstreams };
  for (const r of db.query(`SELECT client, until FROM ${PAUSE}`).all() as Array<{
    client: string;
    until: number | null;
  }>)
    out[`${PAUSE}/${encodeURIComponent(r.client)}`] = { until: r.until };
}

/** Adds or removes the family-control row a key names. */
function writeFamily(db: Database, key: string, value: unknown): void {
  const [name, a, b] = key.split("/");
  const pick = FAMILY_PICKS.find((f) => f.name === name);
  if (pick) {
    if (value === undefined)
      db.run(`DELETE FROM ${pick.name} WHERE group_id = ? AND ${pick.column} = ?`, [Number(a), b!]);
    else db.run(`INSERT OR IGNORE INTO ${pick.name} (group_id, ${pick.column}) VALUES (?, ?)`, [Number(a), b!]);
  } else if (name === "moat_group_schedule") {
    const s = value as { windows: string; services: string; lists?: string; everything: number } | undefined;
    if (s === undefined) db.run("DELETE FROM moat_group_schedule WHERE group_id = ?", [Number(a)]);
    else
      db.run(
        "INSERT OR REPLACE INTO moat_group_schedule (group_id, windows, services, lists, everything) VALUES (?, ?, ?, ?, ?)",
        [Number(a), s.windows, s.services, s.lists ?? "[]", s.everything],
      );
  } else if (name === UPSTREAM) {
    if (value === undefined) db.run(`DELETE FROM ${UPSTREAM} WHERE group_id = ?`, [Number(a)]);
    else
      db.run(`INSERT OR REPLACE INTO ${UPSTREAM} (group_id, upstreams) VALUES (?, ?)`, [
        Number(a),
        (value as { upstreams: string }).upstreams,
      ]);
  } else if (name === PAUSE) {
    const client = decodeURIComponent(a!);
    if (value === undefined) db.run(`DELETE FROM ${PAUSE} WHERE client = ?`, [client]);
    else
      db.run(`INSERT OR REPLACE INTO ${PAUSE} (client, until) VALUES (?, ?)`, [
        client,
        (value as { until: number | null }).until,
      ]);
  }
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
      if (!out.has("family") && !sameValue(current[k], next[k])) out.add("family");
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
