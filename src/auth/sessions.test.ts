// A request's new session expiry is written through without waiting for the database (the thread
// that serves the API answers DNS): while another connection writes, the row keeps its older expiry
// and the next request writes it; a login and a logout still reach the table.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openQueryDb } from "../db/index.ts";
import { SessionTable } from "./sessions.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-sessions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("sessions: a sliding expiry waits for a free database instead of for the lock", () => {
  const db = openQueryDb(dir);
  const logs: string[] = [];
  const table = new SessionTable(4, db, (_l, m) => logs.push(m));
  const info = {
    remoteAddr: "10.0.0.9",
    userAgent: null,
    xForwardedFor: null,
    tlsLogin: false,
    app: false,
    cli: false,
  };
  const s = table.create(info, 300)!;
  const stored = () => (db.query("SELECT valid_until AS v FROM session WHERE id = ?").get(s.id) as { v: number }).v;
  const first = stored();
  expect(first).toBe(s.validUntil);

  const other = new Database(join(dir, "pihole-FTL.db"));
  other.exec("BEGIN IMMEDIATE");
  table.touch(s, 600, false);
  expect(stored()).toBe(first);
  other.exec("COMMIT");
  table.touch(s, 601, false);
  expect(stored()).toBe(s.validUntil);
  expect(stored()).toBeGreaterThan(first + 299);
  expect(logs).toEqual([]);

  table.remove(s.id);
  expect(db.query("SELECT count(*) AS n FROM session").get()).toEqual({ n: 0 });
  other.close();
  db.close();
});
