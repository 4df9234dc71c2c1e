// What GET /api/search reads: exact entries equal to (or containing) a name, the regex entries to
// try on it, and the list rows (gravity, antigravity) that cover it, with the list they came from.
import type { Database } from "bun:sqlite";
import type { AdlistRow } from "./adlists.ts";
import type { DomainRow } from "./domains.ts";

/** `%term%` for LIKE with `\` as the escape */
const likeOf = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Exact allow/deny entries equal to `domain`, or containing it when `partial`; at most `limit`. */
export function exactDomainMatches(db: Database, domain: string, partial: boolean, limit: number): DomainRow[] {
  return db
    .query(
      `SELECT * FROM domainlist WHERE type IN (0, 1) AND ${partial ? "domain LIKE ? ESCAPE '\\'" : "domain = ?"} ORDER BY id LIMIT ?`,
    )
    .all(partial ? likeOf(domain) : domain, limit) as DomainRow[];
}

/** Every regex entry, by id (the caller runs them as the filter does). */
export function regexDomainRows(db: Database): DomainRow[] {
  return db.query("SELECT * FROM domainlist WHERE type IN (2, 3) ORDER BY id").all() as DomainRow[];
}

/**
 * Rows of `table` equal to one of `names`, or containing `names[0]` when `partial`, each with its
 * list's row; at most `limit`.
 */
export function listMatches(
  db: Database,
  table: "gravity" | "antigravity",
  names: readonly string[],
  partial: boolean,
  limit: number,
): Array<AdlistRow & { domain: string }> {
  const where = partial ? "g.domain LIKE ? ESCAPE '\\'" : `g.domain IN (${names.map(() => "?").join(",")})`;
  const args = partial ? [likeOf(names[0]!)] : names;
  return db
    .query(`SELECT g.domain AS domain, a.* FROM ${table} g JOIN adlist a ON a.id = g.adlist_id WHERE ${where} LIMIT ?`)
    .all(...args, limit) as Array<AdlistRow & { domain: string }>;
}
