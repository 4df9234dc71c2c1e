// Groups, clients, domains, lists and their group links as a replicated map, one key per row:
// "domainlist/7" -> {type, domain, enabled, comment, date_added}, "domainlist_by_group/7/0" -> 1.
// Row ids travel with the rows, so every node shows the same ids. What a gravity run writes into
// adlist (counts, status, date_updated) and the date_modified that triggers stamp stay local.
import type { Database } from "bun:sqlite";
import type { EventBus } from "../core/events.ts";
import { canonical, type StateMap } from "./state-map.ts";
import type { ReplicatedKind } from "./replica.ts";

interface Table {
  name: string;
  columns: string[];
  /** what makes a row unique besides its id (a UNIQUE constraint of the table) */
  natural: (row: Record<string, unknown>) => string;
}

const TABLES: Table[] = [
  { name: "group", columns: ["enabled", "name", "description", "date_added"], natural: (r) => String(r.name) },
  { name: "client", columns: ["ip", "comment", "date_added"], natural: (r) => String(r.ip) },
  { name: "domainlist", columns: ["type", "domain", "enabled", "comment", "date_added"], natural: (r) => `${r.type}|${r.domain}` },
  { name: "adlist", columns: ["address", "enabled", "comment", "type", "date_added"], natural: (r) => `${r.type}|${r.address}` },
];
const LINKS = [
  { name: "client_by_group", owner: "client", column: "client_id" },
  { name: "domainlist_by_group", owner: "domainlist", column: "domainlist_id" },
  { name: "adlist_by_group", owner: "adlist", column: "adlist_id" },
];

const q = (s: string) => `"${s}"`;

export function readLists(db: Database): StateMap {
  const out: StateMap = {};
  for (const t of TABLES) {
    for (const row of db.query(`SELECT id, ${t.columns.map(q).join(", ")} FROM ${q(t.name)}`).all() as Array<Record<string, unknown>>) {
      const { id, ...rest } = row;
      out[`${t.name}/${id}`] = rest;
    }
  }
  for (const l of LINKS)
    for (const r of db.query(`SELECT ${l.column} AS o, group_id AS g FROM ${l.name}`).all() as Array<{ o: number; g: number }>) out[`${l.name}/${r.o}/${r.g}`] = 1;
  return out;
}

function rowsOf(map: StateMap, table: string): Map<number, Record<string, unknown>> {
  const out = new Map<number, Record<string, unknown>>();
  const prefix = `${table}/`;
  for (const [k, v] of Object.entries(map)) if (k.startsWith(prefix) && !k.slice(prefix.length).includes("/")) out.set(Number(k.slice(prefix.length)), v as Record<string, unknown>);
  return out;
}

/**
 * Before a merge: rows this node added under an id the other side also used for a different row
 * (both took the next AUTOINCREMENT value) move to a fresh id, links included, so both survive.
 */
export function renumberCollisions(base: StateMap, local: StateMap, remote: StateMap): StateMap {
  const out = { ...local };
  for (const t of TABLES) {
    const mine = rowsOf(local, t.name);
    const theirs = rowsOf(remote, t.name);
    let next = Math.max(0, ...mine.keys(), ...theirs.keys()) + 1;
    for (const [id, row] of mine) {
      const key = `${t.name}/${id}`;
      const other = theirs.get(id);
      if (base[key] !== undefined || !other || t.natural(other) === t.natural(row)) continue;
      const fresh = next++;
      delete out[key];
      out[`${t.name}/${fresh}`] = row;
      for (const l of LINKS.filter((x) => x.owner === t.name))
        for (const k of Object.keys(out))
          if (k.startsWith(`${l.name}/${id}/`)) {
            delete out[k];
            out[`${l.name}/${fresh}/${k.split("/")[2]}`] = 1;
          }
      if (t.name === "group")
        for (const l of LINKS)
          for (const k of Object.keys(out)) {
            const [name, owner, g] = k.split("/");
            if (name === l.name && Number(g) === id) {
              delete out[k];
              out[`${l.name}/${owner}/${fresh}`] = 1;
            }
          }
    }
  }
  return out;
}

/** After a merge: one row per unique name (the lowest id stays), and no link without both ends. */
export function tidy(map: StateMap): StateMap {
  const out = { ...map };
  for (const t of TABLES) {
    const seen = new Map<string, number>();
    for (const [id, row] of [...rowsOf(out, t.name)].sort((a, b) => a[0] - b[0])) {
      const n = t.natural(row);
      if (seen.has(n)) delete out[`${t.name}/${id}`];
      else seen.set(n, id);
    }
  }
  for (const l of LINKS)
    for (const k of Object.keys(out)) {
      const [name, owner, g] = k.split("/");
      if (name === l.name && (out[`${l.owner}/${owner}`] === undefined || (Number(g) !== 0 && out[`group/${g}`] === undefined))) delete out[k];
    }
  return out;
}

/** Makes the tables hold exactly `next`, touching only rows that differ, in one transaction. */
export function applyLists(db: Database, next: StateMap): void {
  const now = readLists(db);
  db.transaction(() => {
    // deletions first, so a name that moved to another id is free when it is inserted
    for (const t of [...TABLES].reverse()) {
      for (const id of rowsOf(now, t.name).keys()) {
        if (next[`${t.name}/${id}`] !== undefined) continue;
        if (t.name === "adlist") for (const g of ["gravity", "antigravity"]) db.run(`DELETE FROM ${g} WHERE adlist_id = ?`, [id]);
        db.run(`DELETE FROM ${q(t.name)} WHERE id = ?`, [id]);
      }
    }
    for (const t of TABLES) {
      const cols = ["id", ...t.columns];
      const upsert = db.prepare(
        `INSERT INTO ${q(t.name)} (${cols.map(q).join(", ")}) VALUES (${cols.map(() => "?").join(", ")}) ` +
          `ON CONFLICT(id) DO UPDATE SET ${t.columns.map((c) => `${q(c)} = excluded.${q(c)}`).join(", ")}`,
      );
      for (const [id, row] of rowsOf(next, t.name)) {
        const had = now[`${t.name}/${id}`];
        if (had !== undefined && canonical(had) === canonical(row)) continue;
        upsert.run(...([id, ...t.columns.map((c) => row[c] ?? null)] as Array<string | number | null>));
      }
    }
    // links last: inserting an owner added its Default-group link (trigger)
    const after = readLists(db);
    for (const l of LINKS) {
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
}

export function listsKind(db: Database, events: EventBus): ReplicatedKind {
  return {
    name: "lists",
    read: () => readLists(db),
    async apply(next) {
      applyLists(db, next);
      await events.emit("lists-changed", { reason: "fleet" });
    },
    prepareMerge: renumberCollisions,
    tidy,
  };
}
