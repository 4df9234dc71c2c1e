// A backup's copy of some tables: their schema and rows, nothing of the tables left out (not even in
// free pages), and a table the source lacks is skipped.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyTables } from "./copy-tables.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-copy-tables-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("copyTables: the named tables with their schema and rows, nothing else", () => {
  const src = new Database(join(dir, "source.db"));
  src.exec("PRAGMA journal_mode = WAL");
  src.exec(`CREATE TABLE network (id INTEGER PRIMARY KEY, hwaddr TEXT UNIQUE NOT NULL, "odd ""name""" INT DEFAULT 7)`);
  src.exec("CREATE TABLE secret (token TEXT)");
  src.exec("INSERT INTO network (hwaddr) VALUES ('aa:bb'), ('cc:dd')");
  src.exec("INSERT INTO secret VALUES ('s3cr3t-token-value')");
  const file = join(dir, "copy.db");
  expect(copyTables(src, file, ["network", "missing"])).toEqual(["network"]);
  // the source's connection is as it was
  expect(src.query("SELECT count(*) AS n FROM secret").get()).toEqual({ n: 1 });
  src.close();

  expect(readFileSync(file).toString("latin1")).not.toContain("s3cr3t-token-value");
  const copy = new Database(file);
  expect(copy.query("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: "network" }]);
  expect(copy.query(`SELECT id, hwaddr, "odd ""name""" AS x FROM network ORDER BY id`).all()).toEqual([
    { id: 1, hwaddr: "aa:bb", x: 7 },
    { id: 2, hwaddr: "cc:dd", x: 7 },
  ]);
  // the constraints came along with the CREATE statement
  expect(() => copy.exec("INSERT INTO network (hwaddr) VALUES ('aa:bb')")).toThrow(/UNIQUE/);
  copy.close();
});
