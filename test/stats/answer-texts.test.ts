// Each query's answer records in the long-term database (src/querylog/store.ts, src/db/migrations.ts): each
// distinct text once in moat_answer_text and a query's text id in moat_query_answer; a database opened again
// gives every answer back, a pruned day takes its answers and the texts no kept query names with it, and a
// database of the earlier layout (a text per query, a delete trigger) is carried over with its answers.
import type { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openQueryDb } from "../../src/db/index.ts";
import type { StoredRecord } from "../../src/query/record.ts";
import { deleteQueriesSince, QueryStore, readStoredFrom } from "../../src/querylog/store.ts";
import { rec } from "./fixture.ts";

const DAY = 86_400;
const NOW = 1_750_000_000;
const dir = mkdtempSync(join(tmpdir(), "moat-answers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const answered = (id: number, time: number, answers: string | null): StoredRecord => ({
  id,
  r: rec({ time, domain: `q${id}.example`, answers }),
});

function count(db: Database, table: string): number {
  return (db.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

function texts(db: Database): string[] {
  return (db.query("SELECT text FROM moat_answer_text ORDER BY text").all() as Array<{ text: string }>).map(
    (r) => r.text,
  );
}

const answersOf = (db: Database) => readStoredFrom(db, 0, 0, 1e9, 1000).map((r) => [r.id, r.r.answers]);

test("answers: each text is stored once; a store opened again on the file gives them back and reuses their ids", () => {
  const sub = join(dir, "restart");
  const first = openQueryDb(sub);
  new QueryStore(first).insert([
    answered(1, NOW, "A 192.0.2.1"),
    answered(2, NOW + 1, "A 192.0.2.1"),
    answered(3, NOW + 2, "CNAME x.example, A 192.0.2.2"),
    answered(4, NOW + 3, null),
  ]);
  first.close();
  // the next start: a new connection and store, its cache loaded from the file
  const db = openQueryDb(sub);
  new QueryStore(db).insert([answered(5, NOW + 4, "A 192.0.2.1"), answered(6, NOW + 5, "AAAA 2001:db8::1")]);
  expect(answersOf(db)).toEqual([
    [1, "A 192.0.2.1"],
    [2, "A 192.0.2.1"],
    [3, "CNAME x.example, A 192.0.2.2"],
    [4, null],
    [5, "A 192.0.2.1"],
    [6, "AAAA 2001:db8::1"],
  ]);
  expect(texts(db)).toEqual(["A 192.0.2.1", "AAAA 2001:db8::1", "CNAME x.example, A 192.0.2.2"]);
  // only answered queries have a row
  expect(count(db, "moat_query_answer")).toBe(5);
  db.close();
});

test("answers: a pruned day takes its queries' answers and the texts no kept query names; flush/logs takes its own", () => {
  const db = openQueryDb(join(dir, "prune"));
  // the cache of texts checked against the table: a pruned text must be written again when it comes back
  const store = new QueryStore(db, 100_000, 0);
  store.insert([
    answered(1, NOW - DAY, "A 192.0.2.1"),
    answered(2, NOW - DAY + 1, "A 192.0.2.9"),
    answered(3, NOW, "A 192.0.2.1"),
    answered(4, NOW + 1, "A 192.0.2.3"),
  ]);
  expect(store.prune(NOW - 10)).toBe(2);
  expect(answersOf(db)).toEqual([
    [3, "A 192.0.2.1"],
    [4, "A 192.0.2.3"],
  ]);
  expect(texts(db)).toEqual(["A 192.0.2.1", "A 192.0.2.3"]);
  expect(count(db, "moat_query_answer")).toBe(2);
  store.insert([answered(5, NOW + 2, "A 192.0.2.9")]);
  expect(answersOf(db).at(-1)).toEqual([5, "A 192.0.2.9"]);
  // flush/logs deletes the newest queries, whose ids the next ones get again: no answer of theirs is left
  expect(deleteQueriesSince(db, NOW + 1)).toBe(2);
  expect(count(db, "moat_query_answer")).toBe(1);
  store.insert([answered(4, NOW + 3, null)]);
  expect(answersOf(db)).toEqual([
    [3, "A 192.0.2.1"],
    [4, null],
  ]);
  db.close();
});

test("answers: a database of the earlier layout keeps its answers, each text once, and loses its per-row trigger", () => {
  const sub = join(dir, "older");
  const made = openQueryDb(sub);
  // the layout of Moat's query schema 2: a text per query and a trigger deleting it with its query
  made.exec(`DROP TABLE moat_query_answer; DROP TABLE moat_answer_text;
    CREATE TABLE moat_query_answers (id INTEGER PRIMARY KEY, answers TEXT NOT NULL);
    CREATE TRIGGER moat_query_answers_gone AFTER DELETE ON query_storage
    BEGIN DELETE FROM moat_query_answers WHERE id = OLD.id; END;
    UPDATE ftl SET value = 2 WHERE id = 100;`);
  made.exec("INSERT INTO domain_by_id (id, domain) VALUES (1, 'old.example')");
  made.exec("INSERT INTO client_by_id (id, ip, name) VALUES (1, '10.0.0.1', NULL)");
  for (let id = 1; id <= 4; id++)
    made.run("INSERT INTO query_storage (id, timestamp, type, status, domain, client) VALUES (?, ?, 1, 2, 1, 1)", [
      id,
      NOW + id,
    ]);
  made.exec("INSERT INTO moat_query_answers VALUES (1, 'A 192.0.2.1'), (2, 'A 192.0.2.2'), (4, 'A 192.0.2.1')");
  made.close();
  const db = openQueryDb(sub);
  expect(db.query("SELECT value FROM ftl WHERE id = 100").get()).toEqual({ value: 3 });
  expect(answersOf(db)).toEqual([
    [1, "A 192.0.2.1"],
    [2, "A 192.0.2.2"],
    [3, null],
    [4, "A 192.0.2.1"],
  ]);
  expect(texts(db)).toEqual(["A 192.0.2.1", "A 192.0.2.2"]);
  const gone = db
    .query("SELECT name FROM sqlite_master WHERE name IN ('moat_query_answers', 'moat_query_answers_gone')")
    .all();
  expect(gone).toEqual([]);
  db.close();
});
