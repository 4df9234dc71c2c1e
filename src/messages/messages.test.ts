// Raising and taking back a message never waits for another connection's write: while one holds the
// database, the changes wait in order and reach the table once it is free, with the time they were raised.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openQueryDb } from "../db/index.ts";
import { Messages } from "./messages.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-messages-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("messages: held back while another connection writes, then written in order", async () => {
  const db = openQueryDb(dir);
  const a = new Messages(db);
  const b = new Messages(db); // another service on the same connection shares the order
  a.raise("DNSMASQ_WARN", "old warning");
  expect(a.list().map((m) => m.text)).toEqual(["old warning"]);

  const other = new Database(join(dir, "pihole-FTL.db"));
  other.exec("BEGIN IMMEDIATE");
  const t0 = performance.now();
  a.clear("DNSMASQ_WARN");
  b.raise("DNSMASQ_WARN", "new warning", "eth0", 2);
  a.raise("FLEET", "node b not heard from");
  a.clear("FLEET", "node b not heard from");
  const raisedAt = Date.now() / 1000;
  expect(performance.now() - t0).toBeLessThan(100); // the busy timeout is 5 s
  // what is stored is unchanged; what is listed and raised counts the changes held back
  expect(new Messages(other).list().map((m) => m.text)).toEqual(["old warning"]);
  const listed = a.list();
  expect(listed.map((m) => [m.id, m.type, m.text, m.blobs])).toEqual([
    [-1, "DNSMASQ_WARN", "new warning", ["eth0", 2, null, null, null]],
  ]);
  expect(b.count()).toBe(1);
  expect(b.has("DNSMASQ_WARN", "old warning")).toBe(false);
  expect(b.has("DNSMASQ_WARN", "new warning")).toBe(true);
  expect(a.has("FLEET", "node b not heard from")).toBe(false);

  await Bun.sleep(500);
  other.exec("COMMIT");
  await Bun.sleep(500); // the retry
  const stored = a.list();
  expect(stored.map((m) => [m.type, m.text, m.blobs.slice(0, 2)])).toEqual([
    ["DNSMASQ_WARN", "new warning", ["eth0", 2]],
  ]);
  // the time it was raised, not the time it was written
  expect(Math.abs(stored[0]!.timestamp - raisedAt)).toBeLessThan(0.3);
  expect(a.count()).toBe(1);
  other.close();
  db.close();
});

test("messages: a change the table refuses is thrown when written at once", () => {
  const db = new Database(":memory:");
  expect(() => new Messages(db).raise("DNSMASQ_WARN", "x")).toThrow(/no such table/);
  db.close();
});
