// Allow/deny entries (domainlist): exact names and regexes, each in one of four lists.
import type { Database } from "bun:sqlite";
import { setGroups } from "./group-links.ts";
import { eachUnique, writeLists, type ListsDb, type OnDuplicate } from "./store.ts";

export type DomainType = "allow" | "deny";
export type DomainKind = "exact" | "regex";

/** domainlist.type: 0 allow exact, 1 deny exact, 2 allow regex, 3 deny regex */
export const domainTypeCode = (type: DomainType, kind: DomainKind) =>
  (type === "allow" ? 0 : 1) + (kind === "regex" ? 2 : 0);
export const domainTypeName = (code: number): DomainType => (code % 2 === 0 ? "allow" : "deny");
export const domainKindName = (code: number): DomainKind => (code >= 2 ? "regex" : "exact");

export interface DomainRow {
  id: number;
  type: number;
  domain: string;
  enabled: number;
  comment: string | null;
  date_added: number;
  date_modified: number;
}

/** The entries of the lists `codes`, or only `domain` in them, by id. */
export function domainRows(db: Database, codes: readonly number[], domain: string | null): DomainRow[] {
  const where = `type IN (${codes.map(Number).join(",")})${domain !== null ? " AND domain = ?" : ""}`;
  return db
    .query(
      `SELECT id, type, domain, enabled, comment, date_added, date_modified FROM domainlist WHERE ${where} ORDER BY id`,
    )
    .all(...(domain !== null ? [domain] : [])) as DomainRow[];
}

interface NewDomains {
  code: number;
  domains: readonly string[];
  enabled: boolean;
  comment: string | null;
  /** replaces the default-group link when given */
  groups?: readonly number[];
}

/** Adds entries to one list; returns those added (the others went to `onDuplicate`). */
export function addDomains(store: ListsDb, add: NewDomains, onDuplicate: OnDuplicate): string[] {
  return writeLists(store, ["domainlist"], (db) => {
    const ins = db.query("INSERT INTO domainlist (type, domain, enabled, comment) VALUES (?, ?, ?, ?) RETURNING id");
    return eachUnique(add.domains, onDuplicate, (domain) => {
      const { id } = ins.get(add.code, domain, add.enabled ? 1 : 0, add.comment) as { id: number };
      if (add.groups) setGroups(db, "domainlist_by_group", id, add.groups);
    });
  });
}

interface DomainPut {
  domain: string;
  /** the list it is in now (equal to `code` unless it moves) */
  fromCode: number;
  code: number;
  enabled: boolean;
  comment: string | null;
  groups?: readonly number[];
}

/** Creates or replaces one entry, moving it from list `fromCode` to `code`; false when the move hit a duplicate. */
export function putDomain(store: ListsDb, put: DomainPut, onDuplicate: OnDuplicate): boolean {
  return writeLists(store, ["domainlist"], (db) => {
    const done = eachUnique([put.domain], onDuplicate, (domain) => {
      const { id } = db
        .query(
          `INSERT INTO domainlist (domain, type, enabled, comment) VALUES (?1, ?2, ?3, ?4)
           ON CONFLICT(domain, type) DO UPDATE SET type = ?5, enabled = ?3, comment = ?4 RETURNING id`,
        )
        .get(domain, put.fromCode, put.enabled ? 1 : 0, put.comment, put.code) as { id: number };
      // a fresh row was inserted at the old location: move it
      if (put.fromCode !== put.code)
        db.query("UPDATE domainlist SET type = ? WHERE id = ? AND type = ?").run(put.code, id, put.fromCode);
      if (put.groups) setGroups(db, "domainlist_by_group", id, put.groups);
    });
    return done.length === 1;
  });
}

/** Deletes entries in one transaction; returns how many existed. */
export function deleteDomains(store: ListsDb, entries: ReadonlyArray<{ domain: string; code: number }>): number {
  return writeLists(store, ["domainlist"], (db) => {
    const del = db.query("DELETE FROM domainlist WHERE domain = ? AND type = ?");
    return entries.reduce((sum, e) => sum + del.run(e.domain, e.code).changes, 0);
  });
}
