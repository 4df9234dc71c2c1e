// The databases follow Pi-hole's layouts: the triggers and views that clients and Pi-hole itself rely on.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openGravityDb, openQueryDb } from "../../src/db/index.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-db-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("gravity.db: version 20, group 0 always exists, new rows join group 0, views honour enabled groups", () => {
  const db = openGravityDb(dir);
  expect(db.query("SELECT value FROM info WHERE property = 'version'").get()).toEqual({ value: "20" });
  expect(db.query(`SELECT id, name FROM "group"`).all()).toEqual([{ id: 0, name: "Default" }]);
  db.run(`DELETE FROM "group" WHERE id = 0`);
  expect(db.query(`SELECT id, name FROM "group"`).all()).toEqual([{ id: 0, name: "Default" }]);

  db.run("INSERT INTO domainlist (type, domain) VALUES (1, 'ads.example')");
  expect(db.query("SELECT group_id FROM domainlist_by_group").all()).toEqual([{ group_id: 0 }]);
  expect(db.query("SELECT domain, group_id FROM vw_denylist").all()).toEqual([{ domain: "ads.example", group_id: 0 }]);
  db.run(`UPDATE "group" SET enabled = 0 WHERE id = 0`);
  expect(db.query("SELECT domain FROM vw_denylist").all()).toEqual([]);
  db.run(`UPDATE "group" SET enabled = 1 WHERE id = 0`);

  db.run("INSERT INTO adlist (address, type) VALUES ('https://lists.example/a.txt', 0)");
  db.run("INSERT INTO gravity (domain, adlist_id) VALUES ('tracker.example', 1)");
  expect(db.query("SELECT domain, adlist_id, group_id FROM vw_gravity").all()).toEqual([
    { domain: "tracker.example", adlist_id: 1, group_id: 0 },
  ]);
  db.run("DELETE FROM domainlist");
  expect(db.query("SELECT COUNT(*) AS n FROM domainlist_by_group").get()).toEqual({ n: 0 });
  db.close();
  // Re-opening an existing file keeps it as it is.
  const again = openGravityDb(dir);
  expect(again.query("SELECT COUNT(*) AS n FROM adlist").get()).toEqual({ n: 1 });
  again.close();
});

test("pihole-FTL.db: version 21 and the queries view resolves the lookup tables", () => {
  const db = openQueryDb(dir);
  expect(db.query("SELECT value FROM ftl WHERE id = 0").get()).toEqual({ value: 21 });
  db.run("INSERT INTO domain_by_id (id, domain) VALUES (1, 'example.com')");
  db.run("INSERT INTO client_by_id (id, ip, name) VALUES (1, '192.168.1.5', 'laptop')");
  db.run(
    "INSERT INTO query_storage (timestamp, type, status, domain, client, forward, reply_type, reply_time, dnssec) VALUES (1700000000, 1, 2, 1, 1, NULL, 4, 0.01, 0)",
  );
  expect(db.query("SELECT domain, client, status FROM queries").all()).toEqual([
    { domain: "example.com", client: "192.168.1.5", status: 2 },
  ]);
  db.close();
});

test("pihole-FTL.db: Moat's answer records sit in tables of their own; Pi-hole's version and its row copies are untouched", () => {
  const sub = join(dir, "older");
  // a file of a Moat before the answer records: Pi-hole's version 21 and no Moat row
  const first = openQueryDb(sub);
  first.run("DROP TABLE moat_query_answer");
  first.run("DROP TABLE moat_answer_text");
  first.run("DELETE FROM ftl WHERE id != 0");
  first.close();
  const db = openQueryDb(sub);
  expect(db.query("SELECT id, value FROM ftl ORDER BY id").all()).toEqual([
    { id: 0, value: 21 },
    { id: 100, value: 3 },
  ]);
  db.run("INSERT INTO domain_by_id (id, domain) VALUES (1, 'example.com')");
  db.run("INSERT INTO client_by_id (id, ip, name) VALUES (1, '192.168.1.5', NULL)");
  for (const id of [1, 2])
    db.run("INSERT INTO query_storage (id, timestamp, type, status, domain, client) VALUES (?, ?, 1, 2, 1, 1)", [
      id,
      1700000000 + id,
    ]);
  db.run("INSERT INTO moat_answer_text (id, text) VALUES (1, 'A 192.0.2.1'), (2, 'A 192.0.2.2')");
  db.run("INSERT INTO moat_query_answer (id, answer) VALUES (1, 1), (2, 2)");
  // Pi-hole FTL moves rows between its in-memory database and the file with SELECT * (query-table.c)
  db.run("ATTACH ':memory:' AS mem");
  db.run("CREATE TABLE mem.query_storage AS SELECT * FROM main.query_storage WHERE 0");
  db.run("INSERT INTO mem.query_storage SELECT * FROM main.query_storage WHERE timestamp >= 0");
  db.run("UPDATE mem.query_storage SET id = id + 10");
  db.run("INSERT INTO main.query_storage SELECT * FROM mem.query_storage");
  db.run("DETACH mem");
  expect(db.query("SELECT COUNT(*) AS n FROM query_storage").get()).toEqual({ n: 4 });
  // a delete by another program leaves the answers to Moat's prune (src/querylog/store.ts): no trigger on Pi-hole's table
  db.run("DELETE FROM query_storage WHERE timestamp < 1700000002");
  expect(db.query("SELECT COUNT(*) AS n FROM moat_query_answer").get()).toEqual({ n: 2 });
  expect(
    db.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'query_storage'").all(),
  ).toEqual([]);
  db.close();
});
