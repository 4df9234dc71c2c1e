import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quickCheck } from "../../src/db/integrity.ts";
import { damageTable } from "./damage.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-integrity-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileWithTable(name: string): string {
  const file = join(dir, name);
  const db = new Database(file);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)");
  db.transaction(() => {
    for (let i = 0; i < 3000; i++) db.query("INSERT INTO t (v) VALUES (randomblob(200))").run();
  })();
  db.close();
  return file;
}

test("integrity: a sound file is ok", () => {
  expect(quickCheck(fileWithTable("sound.db"))).toBe("ok");
});

test("integrity: a damaged page is found and named", () => {
  const file = fileWithTable("damaged.db");
  damageTable(file, "t");
  const r = quickCheck(file);
  expect(r).not.toBe("ok");
  expect(r).toMatch(/^Tree \d+ page \d+: /);
  expect(r).not.toContain("\n");
  expect(r.length).toBeLessThanOrEqual(401);
  // the file still opens: only the check finds it
  const db = new Database(file);
  expect(db.query("SELECT count(*) AS n FROM sqlite_master").get()).toEqual({ n: 1 });
  db.close();
});

test("integrity: a file that cannot be read says why", () => {
  const file = join(dir, "none", "missing.db");
  const r = quickCheck(file);
  expect(r).toMatch(/unable to open/i);
});
