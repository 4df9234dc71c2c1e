// The network table learns each client's host name from the scan, and the scan never waits for the
// database while another connection writes it (this thread answers DNS): the name waits for a later
// scan instead.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaults } from "../config/schema.ts";
import { openQueryDb } from "../db/index.ts";
import { ClientNames } from "./client-names.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-client-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("client names: stored once known, and a busy database defers the write to a later scan", async () => {
  const db = openQueryDb(dir);
  db.run(
    "INSERT INTO network (id, hwaddr, interface, firstSeen, lastQuery, numQueries) VALUES (1, 'ip-10.0.0.5', 'eth0', 1, 1, 1)",
  );
  db.run("INSERT INTO network_addresses (network_id, ip, lastSeen) VALUES (1, '10.0.0.5', 1)");
  const ptr = new Map([["10.0.0.5", "laptop.lan"]]);
  const changed: string[] = [];
  const names = new ClientNames({
    config: defaults,
    clients: () => ["10.0.0.5"],
    lookupPtr: async (ip) => ptr.get(ip) ?? null,
    db,
    changed: (ip) => changed.push(ip),
  });
  const stored = () =>
    (db.query("SELECT name FROM network_addresses WHERE ip = '10.0.0.5'").get() as { name: string | null }).name;

  // another connection (the query writer thread) holds the write lock
  const other = new Database(join(dir, "pihole-FTL.db"));
  other.exec("BEGIN IMMEDIATE");
  await names.scan(1000);
  expect(names.nameOf("10.0.0.5")).toBe("laptop.lan");
  expect(changed).toEqual(["10.0.0.5"]);
  expect(stored()).toBeNull();
  other.exec("COMMIT");

  // the next scan (nothing due: the name is fresh) writes what waited
  await names.scan(1001);
  expect(stored()).toBe("laptop.lan");
  expect(changed).toEqual(["10.0.0.5"]);
  // the connection's own busy timeout is back
  expect(db.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
  other.close();
  db.close();
});
