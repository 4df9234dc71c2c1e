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
