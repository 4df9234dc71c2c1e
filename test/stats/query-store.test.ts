// QueryStore's insert straight from the columnar batches (src/querylog/store.ts, name-ids.ts): the
// rows and *_by_id tables it writes, the name ids it caches, and what a failed write leaves behind.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { initQueryDb } from "../../src/db/index.ts";
import { Status } from "../../src/query/enums.ts";
import { BatchBuilder, BatchReader, decodeBatch, encodeBatch } from "../../src/query/record-batch.ts";
import type { StoredRecord } from "../../src/query/record.ts";
import { queryPage } from "../../src/querylog/read.ts";
import { QueryStore, readStoredFrom } from "../../src/querylog/store.ts";
import { rec } from "./fixture.ts";

const NOW = 1_750_000_000;

function memoryDb(): Database {
  const db = new Database(":memory:", { strict: true });
  initQueryDb(db);
  return db;
}

/** Every stored row with its names joined back, values quoted (1 and 1.0 differ). */
function rows(db: Database): string[] {
  return (
    db
      .query(
        `SELECT quote(q.id)||','||quote(q.timestamp)||','||quote(q.type)||','||quote(q.status)||','||quote(d.domain)||','||quote(c.ip)||','||
          quote(f.forward)||','||quote(a.content)||','||quote(q.reply_type)||','||quote(q.reply_time)||','||quote(q.dnssec)||','||quote(q.list_id)||','||quote(q.ede) AS r
         FROM query_storage q JOIN domain_by_id d ON d.id = q.domain JOIN client_by_id c ON c.id = q.client
         LEFT JOIN forward_by_id f ON f.id = q.forward LEFT JOIN addinfo_by_id a ON a.id = q.additional_info ORDER BY q.id`,
      )
      .all() as Array<{ r: string }>
  ).map((x) => x.r);
}

/** Records with many names (past the first table size), nulls, empty and non-ASCII strings. */
function varied(n: number, firstId: number): StoredRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    id: firstId + i,
    r: rec({
      time: NOW + i / 7,
      domain: i % 97 === 0 ? "" : `n${(i * 31) % 3000}.example`,
      client: i % 5 === 0 ? `fe80::${i % 11}` : `10.0.${i % 3}.${i % 17}`,
      upstream: i % 3 ? null : `192.0.2.${i % 4}#53`,
      cname: i % 50 === 0 ? `cdn-é${i % 6}.example` : null,
      status: i % 50 === 0 ? Status.GRAVITY_CNAME : Status.FORWARDED,
      listId: i % 4 === 0 ? null : i % 4 === 1 ? -(i % 9) - 1 : i,
      replyTime: i % 2 ? 0.25 : 12,
      ede: i % 10 === 0 ? 15 : -1,
    }),
  }));
}

test("batch reader: walks the records encodeBatch was given, field by field, and decodeBatch (which reads through it) gives them back", () => {
  const records = varied(500, 1);
  const b = encodeBatch(records);
  expect(decodeBatch(b)).toEqual(records);
  const r = new BatchReader(b);
  const str = (k: 0 | 1 | 2 | 3) => (r.length(k) < 0 ? null : b.text.slice(r.start(k), r.start(k) + r.length(k)));
  for (const { id, r: d } of records) {
    expect(r.next()).toBe(true);
    expect([r.id, r.time, r.replyTime, r.type, r.status, r.reply, r.dnssec, r.listId, r.ede]).toEqual([
      id,
      d.time,
      d.replyTime,
      d.type,
      d.status,
      d.reply,
      d.dnssec,
      d.listId,
      d.ede,
    ]);
    expect([str(0), str(1), str(2), str(3)]).toEqual([d.domain, d.client, d.upstream, d.cname]);
    expect([r.string(0), r.string(1), r.string(2), r.string(3), r.string(4)]).toEqual([
      d.domain,
      d.client,
      d.upstream,
      d.cname,
      d.answers,
    ]);
  }
  expect(r.next()).toBe(false);
});

test("batch builder: records added one by one come back in batches of what came since the last take, its arrays sized to them", () => {
  const records = varied(1300, 1);
  const b = new BatchBuilder(); // 256 at first: grows four times
  const reused = rec({ time: NOW });
  const taken: StoredRecord[][] = [];
  for (const [from, to] of [
    [0, 1000],
    [1000, 1001],
    [1001, 1300],
  ] as const) {
    for (const { id, r } of records.slice(from, to)) {
      // the builder copies at once: the caller may reuse its record object
      Object.assign(reused, r);
      b.add(id, reused);
    }
    expect(b.count).toBe(to - from);
    const batch = b.take();
    expect([batch.count, batch.f.length, batch.n.length, batch.len.length]).toEqual([
      to - from,
      (to - from) * 3,
      (to - from) * 6,
      (to - from) * 5,
    ]);
    taken.push(decodeBatch(batch));
    expect(b.count).toBe(0);
  }
  expect(taken.flat()).toEqual(records);
  expect(b.take().count).toBe(0);
});

test("store: batches written together store what the records say, names once each, ids continuing across writes", () => {
  const db = memoryDb();
  const store = new QueryStore(db);
  const records = varied(5000, 1);
  // two writes, the first of three batches, the second of one
  store.insertBatches([records.slice(0, 1000), records.slice(1000, 1001), records.slice(1001, 3000)].map(encodeBatch));
  store.insertBatches([encodeBatch(records.slice(3000))]);
  // the same records one by one through insert(), into a database of their own
  const one = memoryDb();
  const single = new QueryStore(one);
  for (const r of records) single.insert([r]);
  expect(rows(db)).toEqual(rows(one));
  expect(rows(db).length).toBe(5000);
  // what was stored is what the records say (the batches went 32 rows to a statement, insert() one by one)
  expect(readStoredFrom(db, 0, 1, 10_000, 10_000)).toEqual(records);
  const count = (t: string) => (db.query(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
  const distinct = (f: (r: StoredRecord) => string | null) => new Set(records.map(f).filter((x) => x !== null)).size;
  expect([count("domain_by_id"), count("client_by_id"), count("forward_by_id"), count("addinfo_by_id")]).toEqual([
    distinct((r) => r.r.domain),
    distinct((r) => r.r.client),
    distinct((r) => r.r.upstream),
    distinct((r) => r.r.cname),
  ]);
  // an id already stored is left as it is
  store.insertBatches([encodeBatch([{ id: 1, r: rec({ time: NOW, domain: "other.example" }) }])]);
  expect(rows(db)[0]).toBe(rows(one)[0]!);
});

test("store: a write that fails halfway forgets the names it learnt, so the retry names every row right", () => {
  const db = memoryDb();
  const store = new QueryStore(db);
  store.insert([{ id: 1, r: rec({ time: NOW, domain: "known.example", client: "10.0.0.1" }) }]);
  // row 6 fails after rows 2-5 inserted new names, which the rollback takes away again
  db.exec(
    "CREATE TRIGGER fail BEFORE INSERT ON query_storage WHEN NEW.id = 6 BEGIN SELECT RAISE(ABORT, 'disk full'); END",
  );
  const batch = Array.from({ length: 8 }, (_, i) => ({
    id: i + 2,
    r: rec({ time: NOW, domain: `new${i}.example`, client: `10.0.1.${i}`, upstream: `192.0.2.${i}#53` }),
  }));
  expect(() => store.insertBatches([encodeBatch(batch)])).toThrow("disk full");
  expect(rows(db).length).toBe(1);
  db.exec("DROP TRIGGER fail");
  // other names take the rolled-back ids first: a stale cached id would name the wrong domain
  store.insert([{ id: 20, r: rec({ time: NOW, domain: "first.example", client: "10.0.2.1", upstream: "x#53" }) }]);
  store.insertBatches([encodeBatch(batch)]);
  const got = db
    .query(
      "SELECT q.id, d.domain, c.ip, f.forward FROM query_storage q JOIN domain_by_id d ON d.id = q.domain JOIN client_by_id c ON c.id = q.client LEFT JOIN forward_by_id f ON f.id = q.forward ORDER BY q.id",
    )
    .all() as Array<{ id: number; domain: string; ip: string; forward: string | null }>;
  expect(got.map((r) => [r.id, r.domain, r.ip])).toEqual([
    [1, "known.example", "10.0.0.1"],
    ...batch.map((b) => [b.id, b.r.domain, b.r.client]),
    [20, "first.example", "10.0.2.1"],
  ]);
  expect(got.slice(1, -1).map((r) => r.forward)).toEqual(batch.map((b) => b.r.upstream));
});

test("store: a store opened on a database that has names reuses their ids", () => {
  const db = memoryDb();
  new QueryStore(db).insert(varied(2000, 1));
  const names = (db.query("SELECT COUNT(*) AS n FROM domain_by_id").get() as { n: number }).n;
  // a small cache, started again several times over
  new QueryStore(db, 100).insertBatches([encodeBatch(varied(2000, 2001))]);
  expect((db.query("SELECT COUNT(*) AS n FROM domain_by_id").get() as { n: number }).n).toBe(names);
  const again = memoryDb();
  new QueryStore(again).insert([...varied(2000, 1), ...varied(2000, 2001)]);
  expect(rows(db)).toEqual(rows(again));
});

test("store: of two client_by_id rows for one address without a name, the oldest is used, cached or not", () => {
  const db = memoryDb();
  db.exec("INSERT INTO client_by_id (ip, name) VALUES ('10.9.9.9', NULL), ('10.9.9.9', NULL)");
  const ipOf = (store: QueryStore, id: number) => {
    store.insert([{ id, r: rec({ time: NOW, client: "10.9.9.9" }) }]);
    return (db.query("SELECT client FROM query_storage WHERE id = ?").get(id) as { client: number }).client;
  };
  // loaded at the start; then looked up by SELECT after the cache (of one name) starts again
  expect(ipOf(new QueryStore(db), 1)).toBe(1);
  const small = new QueryStore(db, 1);
  small.insert([{ id: 2, r: rec({ time: NOW, client: "10.0.0.1" }) }]);
  expect(ipOf(small, 3)).toBe(1);
});

test("store: a name another connection added after the names were loaded keeps its id", () => {
  const db = memoryDb();
  const store = new QueryStore(db);
  store.insert([{ id: 1, r: rec({ time: NOW, domain: "a.example" }) }]);
  db.exec("INSERT INTO domain_by_id (domain) VALUES ('b.example')");
  const b = (db.query("SELECT id FROM domain_by_id WHERE domain = 'b.example'").get() as { id: number }).id;
  store.insert([{ id: 2, r: rec({ time: NOW, domain: "b.example" }) }]);
  expect((db.query("SELECT domain FROM query_storage WHERE id = 2").get() as { domain: number }).domain).toBe(b);
  expect((db.query("SELECT COUNT(*) AS n FROM domain_by_id").get() as { n: number }).n).toBe(2);
});

test("store: an older database's domain and client indexes are dropped; domain and client filters still find their rows", () => {
  const db = memoryDb();
  db.exec("CREATE INDEX moat_idx_qs_domain ON query_storage (domain)");
  db.exec("CREATE INDEX moat_idx_qs_client ON query_storage (client)");
  const store = new QueryStore(db);
  const indexes = (
    db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'query_storage'").all() as Array<{
      name: string;
    }>
  ).map((x) => x.name);
  expect(indexes.sort()).toEqual(["idx_queries_timestamps"]);
  store.insert(varied(600, 1));
  const page = queryPage(db, { domain: "n62.example", length: 100 });
  // n(i*31 % 3000) = n62 for i = 2 and every 3000/gcd(31, 3000) = 3000 later: only i = 2 of 600
  expect(page.recordsFiltered).toBe(1);
  expect(page.queries.map((q) => [q.id, q.domain])).toEqual([[3, "n62.example"]]);
  const wild = queryPage(db, { domain: "n6*.example", length: 1000 });
  expect(wild.queries.length).toBe(wild.recordsFiltered);
  expect(wild.queries.every((q) => /^n6\d*\.example$/.test(q.domain))).toBe(true);
  expect(wild.recordsFiltered).toBe(varied(600, 1).filter((x) => /^n6\d*\.example$/.test(x.r.domain)).length);
  const client = queryPage(db, { client_ip: "10.0.1.4", length: 1000 });
  const expected = varied(600, 1).filter((x) => x.r.client === "10.0.1.4");
  expect(expected.length).toBeGreaterThan(1);
  expect(client.queries.map((q) => q.id)).toEqual(expected.map((x) => x.id).reverse());
  expect(client.recordsFiltered).toBe(expected.length);
});

test("disk pages: a time range bounds the ids a page reads, and rows a little out of time order are still found", () => {
  const db = memoryDb();
  const store = new QueryStore(db);
  // three days, a query every 20 s, ids in answer order but each time up to 10 minutes off
  const records = Array.from({ length: 13_000 }, (_, i) => ({
    id: i + 1,
    r: rec({
      time: NOW + i * 20 + ((i * 7919) % 1201) - 600,
      domain: i % 97 === 0 ? "rare.example" : `n${i % 40}.example`,
      client: "10.0.0.1",
    }),
  }));
  store.insert(records);
  for (const [from, until] of [
    [NOW + 86_400, NOW + 86_400 + 3600],
    [NOW + 86_400 - 700, NOW + 2 * 86_400],
    [NOW - 10_000, NOW + 500],
  ] as const) {
    for (const domain of ["rare.example", "n7.example"]) {
      const want = records
        .filter((x) => x.r.domain === domain && x.r.time >= from && x.r.time <= until)
        .map((x) => x.id)
        .reverse();
      expect(want.length).toBeGreaterThan(0);
      const page = queryPage(db, { domain, from, until, length: 10_000 });
      expect(page.recordsFiltered).toBe(want.length);
      expect(page.queries.map((q) => q.id)).toEqual(want);
      // paged by cursor and offset, the same rows
      const first = queryPage(db, { domain, from, until, length: 3 });
      const next = queryPage(db, { domain, from, until, length: 3, start: 3, cursor: first.cursor });
      expect([...first.queries, ...next.queries].map((q) => q.id)).toEqual(want.slice(0, 6));
    }
  }
});
