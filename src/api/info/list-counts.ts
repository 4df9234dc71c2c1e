// How many groups, lists, clients and allow/deny entries gravity.db holds, for /api/info/ftl.
import type { Runtime } from "../../core/runtime.ts";

function count(rt: Runtime, sql: string): number {
  try {
    return (rt.gravityDb.query(sql).get() as { n: number }).n;
  } catch {
    return 0;
  }
}

/** The management tables' sizes (0 for a table that cannot be read); domainlist types: 0/1 exact allow/deny, 2/3 regex. */
export function listCounts(rt: Runtime) {
  const dl = (type: number) => ({
    total: count(rt, `SELECT COUNT(*) AS n FROM domainlist WHERE type = ${type}`),
    enabled: count(rt, `SELECT COUNT(*) AS n FROM domainlist WHERE type = ${type} AND enabled = 1`),
  });
  return {
    groups: count(rt, 'SELECT COUNT(*) AS n FROM "group"'),
    lists: count(rt, "SELECT COUNT(*) AS n FROM adlist"),
    clients: count(rt, "SELECT COUNT(*) AS n FROM client"),
    domains: { allowed: dl(0), denied: dl(1) },
    regex: { allowed: dl(2), denied: dl(3) },
  };
}
