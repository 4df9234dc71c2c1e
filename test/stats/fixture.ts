// A known set of query records (the statistics' own input type) and a data directory whose
// long-term database already holds them, so the real server imports them at start.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openQueryDb } from "../../src/db/index.ts";
import { Reply, Status, dbQueryType } from "../../src/query/enums.ts";
import type { QueryRecord } from "../../src/query/record.ts";
import { QueryStore } from "../../src/querylog/store.ts";
import type { MoatProcess } from "../harness/moat.ts";

export function rec(p: Partial<QueryRecord> & { time: number }): QueryRecord {
  return {
    type: dbQueryType(1),
    domain: "example.com",
    client: "127.0.0.1",
    status: Status.FORWARDED,
    reply: Reply.IP,
    replyTime: 10,
    upstream: "127.0.0.1#5300",
    dnssec: 0,
    listId: null,
    ede: -1,
    cname: null,
    answers: null,
    ...p,
  };
}

/**
 * 20 records spread over the last 3 hours, oldest first:
 * - 8 forwarded (A) from 127.0.0.1 for a.example, reply time 10 ms, upstream 127.0.0.1#5300
 * - 4 cached (AAAA) from 127.0.0.2 for b.example
 * - 3 GRAVITY blocked from 127.0.0.2 for ads.example (list 7)
 * - 2 REGEX blocked from 127.0.0.3 for track.example
 * - 1 DENYLIST_CNAME from 127.0.0.3 for cdn.example via cname evil.example
 * - 2 forwarded HTTPS (type 65) from 127.0.0.1 for c.example, 30 ms, upstream 127.0.0.1#5301, NXDOMAIN
 */
export function knownRecords(now: number): QueryRecord[] {
  const out: QueryRecord[] = [];
  const push = (n: number, p: Partial<QueryRecord>) => {
    for (let i = 0; i < n; i++) out.push(rec({ time: 0, ...p }));
  };
  push(8, { domain: "a.example", client: "127.0.0.1" });
  push(4, {
    domain: "b.example",
    client: "127.0.0.2",
    type: dbQueryType(28),
    status: Status.CACHE,
    upstream: null,
    replyTime: 0.1,
  });
  push(3, {
    domain: "ads.example",
    client: "127.0.0.2",
    status: Status.GRAVITY,
    upstream: null,
    listId: 7,
    ede: 15,
    replyTime: 0.1,
  });
  push(2, {
    domain: "track.example",
    client: "127.0.0.3",
    status: Status.REGEX,
    upstream: null,
    listId: 3,
    replyTime: 0.1,
  });
  push(1, {
    domain: "cdn.example",
    client: "127.0.0.3",
    status: Status.DENYLIST_CNAME,
    upstream: null,
    cname: "evil.example",
    replyTime: 0.1,
  });
  push(2, {
    domain: "c.example",
    client: "127.0.0.1",
    type: dbQueryType(65),
    upstream: "127.0.0.1#5301",
    replyTime: 30,
    reply: Reply.NXDOMAIN,
  });
  // spread: one record every 9 minutes, ending one minute ago
  out.forEach((r, i) => (r.time = now - 60 - (out.length - 1 - i) * 540));
  return out;
}

/** A fresh data directory whose pihole-FTL.db holds `records` (ids 1…n). */
export function seededDataDir(records: QueryRecord[]): string {
  const dir = mkdtempSync(join(tmpdir(), "moat-stats-"));
  const db = openQueryDb(dir, true);
  new QueryStore(db).insert(records.map((r, i) => ({ id: i + 1, r })));
  db.close();
  return dir;
}

/**
 * A fresh data directory whose pihole-FTL.db holds `n` queries of mostly distinct names, spread over
 * the 23 h before `now` (a busy day, made with SQL in a second, not through the writer): 50 clients,
 * a quarter GRAVITY, a quarter CACHE, the rest FORWARDED. For the start-up's history import.
 */
export function bulkSeededDataDir(n: number, now: number): string {
  const dir = mkdtempSync(join(tmpdir(), "moat-bulk-"));
  const db = openQueryDb(dir, true);
  const span = 23 * 3600;
  if (n > 0)
    db.transaction(() => {
      const upTo = `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})`;
      db.run(`${upTo} INSERT INTO domain_by_id (id, domain) SELECT i, 'd' || i || '.bulk.test' FROM k`);
      db.run("INSERT INTO forward_by_id (id, forward) VALUES (1, '127.0.0.1#53')");
      db.run(
        "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 50) INSERT INTO client_by_id (id, ip) SELECT i, '10.0.0.' || i FROM k",
      );
      db.run(
        `${upTo} INSERT INTO query_storage (id, timestamp, type, status, domain, client, forward, reply_type, reply_time, dnssec, ede)
       SELECT i, ${Math.floor(now) - span} + i * ${span} / ${n}, 1, CASE i % 4 WHEN 0 THEN 1 WHEN 1 THEN 3 ELSE 2 END,
         i, 1 + i % 50, CASE WHEN i % 4 >= 2 THEN 1 END, 4, 0.01, 0, -1 FROM k`,
      );
    })();
  db.close();
  return dir;
}

/** GET a JSON reply; throws (with the body) when the status is not the expected one. */
export async function getJson(moat: MoatProcess, path: string, status = 200): Promise<Record<string, any>> {
  const r = await moat.api(path);
  const body = (await r.json()) as Record<string, any>;
  if (r.status !== status) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
  return body;
}
