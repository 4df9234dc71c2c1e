// The management tables of gravity.db, each declared once: its columns, its natural key, what its rows hang on,
// whether the fleet replicates it and whether a backup restores it. Replication (replicated.ts), backup
// (backup.ts), the group links (group-links.ts), the family controls (family.ts) and the architecture check's
// owner list (scripts/check-architecture.ts) read these declarations instead of naming the tables again.
// The schemas themselves are src/db/ (Pi-hole's and the migrations).
import type { ListTable } from "../core/events.ts";

/** A table of rows with an id, replicated with its id and restored by a backup part of its name. */
interface RowTable {
  name: "group" | "client" | "domainlist" | "adlist";
  /** the columns besides the id that travel (what a gravity run writes into adlist stays local) */
  columns: string[];
  /** what makes a row unique besides its id (a UNIQUE constraint of the table) */
  natural: (row: Record<string, unknown>) => string;
}

/** In the order rows must arrive (a list's rows before its links, groups first). */
export const ROW_TABLES: readonly RowTable[] = [
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

/** The group links: which groups a row of `owner` is in (its id in `column`, the group's in group_id). */
export const LINK_TABLES = [
  { name: "client_by_group", owner: "client", column: "client_id" },
  { name: "domainlist_by_group", owner: "domainlist", column: "domainlist_id" },
  { name: "adlist_by_group", owner: "adlist", column: "adlist_id" },
] as const;

export type LinkTable = (typeof LINK_TABLES)[number]["name"];

/**
 * Moat's own tables beside Pi-hole's: the family controls (family.ts, migration 2 of src/db/migrations.ts) and the
 * custom rules (custom-rules.ts, migration 3). `key`: the natural key's columns, the fleet's key of a row
 * ("<name>/<key values, URI-encoded>"); `columns`: the rest, the row's value (1 when there are none), with
 * `fallback` for a column an older node does not send; `scope`: the row that they hang on (a group's rows leave
 * with it and follow its id; a pause names a client entry; "global": none), which is also the backup part they are
 * restored with; `announce`: the table a change of them is announced as (`lists-changed`), "family" when absent.
 */
interface FamilyTable {
  name: string;
  key: readonly string[];
  columns: readonly string[];
  fallback?: Readonly<Record<string, string | number>>;
  scope: "group" | "client" | "global";
  replicated: boolean;
  inBackups: boolean;
  announce?: ListTable;
}

export const FAMILY_TABLES: readonly FamilyTable[] = [
  {
    name: "moat_group_service",
    key: ["group_id", "service"],
    columns: [],
    scope: "group",
    replicated: true,
    inBackups: true,
  },
  {
    name: "moat_group_safesearch",
    key: ["group_id", "engine"],
    columns: [],
    scope: "group",
    replicated: true,
    inBackups: true,
  },
  {
    name: "moat_group_schedule",
    key: ["group_id"],
    columns: ["windows", "services", "lists", "everything"],
    fallback: { lists: "[]" },
    scope: "group",
    replicated: true,
    inBackups: true,
  },
  {
    name: "moat_group_upstream",
    key: ["group_id"],
    columns: ["upstreams"],
    scope: "group",
    replicated: true,
    inBackups: true,
  },
  {
    name: "moat_client_pause",
    key: ["client"],
    columns: ["until"],
    scope: "client",
    replicated: true,
    inBackups: true,
  },
  {
    // one row (id 1): the whole text; a Teleporter archive carries it as a file of its own (src/teleporter/)
    name: "moat_custom_rules",
    key: ["id"],
    columns: ["rules", "date_modified"],
    scope: "global",
    replicated: true,
    inBackups: false,
    announce: "rules",
  },
];

/** Every management table this folder owns (the architecture check's list): rows, links, Moat's own, and the audit. */
export const MANAGEMENT_TABLES: readonly string[] = [
  ...ROW_TABLES.map((t) => t.name),
  ...LINK_TABLES.map((t) => t.name),
  ...FAMILY_TABLES.map((t) => t.name),
  "domain_audit",
];
