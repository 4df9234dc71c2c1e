// Client entries (client): an IP, CIDR subnet, MAC, host name, `:interface` or client ID, with its groups.
import type { Database } from "bun:sqlite";
import { setGroups } from "./group-links.ts";
import { eachUnique, writeLists, type ListsDb, type OnDuplicate } from "./store.ts";

interface ClientRow {
  id: number;
  ip: string;
  comment: string | null;
  date_added: number;
  date_modified: number;
}

/** Every client entry, or only `client` (case-insensitive), by id. */
export function clientRows(db: Database, client: string | null): ClientRow[] {
  return db
    .query(
      `SELECT id, ip, comment, date_added, date_modified FROM client ${client !== null ? "WHERE ip = ? COLLATE NOCASE" : ""} ORDER BY id`,
    )
    .all(...(client !== null ? [client] : [])) as ClientRow[];
}

/** The configured client entries, lowercased (to leave them out of suggestions). */
export function configuredClients(db: Database): Set<string> {
  return new Set((db.query("SELECT lower(ip) AS ip FROM client").all() as Array<{ ip: string }>).map((r) => r.ip));
}

/** Adds clients; returns those added (the others went to `onDuplicate`). */
export function addClients(
  store: ListsDb,
  clients: readonly string[],
  comment: string | null,
  groups: readonly number[] | undefined,
  onDuplicate: OnDuplicate,
): string[] {
  return writeLists(store, ["client"], (db) => {
    const ins = db.query("INSERT INTO client (ip, comment) VALUES (?, ?) RETURNING id");
    return eachUnique(clients, onDuplicate, (client) => {
      const { id } = ins.get(client, comment) as { id: number };
      if (groups) setGroups(db, "client_by_group", id, groups);
    });
  });
}

/** Creates or replaces one client entry. */
export function putClient(
  store: ListsDb,
  client: string,
  comment: string | null,
  groups: readonly number[] | undefined,
): void {
  writeLists(store, ["client"], (db) => {
    const { id } = db
      .query("INSERT INTO client (ip, comment) VALUES (?1, ?2) ON CONFLICT(ip) DO UPDATE SET comment = ?2 RETURNING id")
      .get(client, comment) as { id: number };
    if (groups) setGroups(db, "client_by_group", id, groups);
  });
}

/** Deletes client entries in one transaction; returns how many existed. */
export function deleteClients(store: ListsDb, clients: readonly string[]): number {
  return writeLists(store, ["client"], (db) => {
    const del = db.query("DELETE FROM client WHERE ip = ?");
    return clients.reduce((sum, c) => sum + del.run(c).changes, 0);
  });
}
