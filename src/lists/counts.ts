// The numbers of groups, lists, clients and entries that /api/info/ftl and /api/padd show.
import type { Database } from "bun:sqlite";

interface EntryCount {
  total: number;
  enabled: number;
}

interface ListsCounts {
  groups: number;
  lists: number;
  clients: number;
  domains: { allowed: EntryCount; denied: EntryCount };
  regex: { allowed: EntryCount; denied: EntryCount };
}

/** Each count, 0 where gravity.db cannot answer (a damaged or missing table must not fail the page). */
export function listsCounts(db: Database): ListsCounts {
  const count = (sql: string, ...args: number[]) => {
    try {
      return (db.query(sql).get(...args) as { n: number }).n;
    } catch {
      return 0;
    }
  };
  const entries = (type: number): EntryCount => ({
    total: count("SELECT COUNT(*) AS n FROM domainlist WHERE type = ?", type),
    enabled: count("SELECT COUNT(*) AS n FROM domainlist WHERE type = ? AND enabled = 1", type),
  });
  return {
    groups: count('SELECT COUNT(*) AS n FROM "group"'),
    lists: count("SELECT COUNT(*) AS n FROM adlist"),
    clients: count("SELECT COUNT(*) AS n FROM client"),
    domains: { allowed: entries(0), denied: entries(1) },
    regex: { allowed: entries(2), denied: entries(3) },
  };
}
