// The fleet's history table made by many nodes at once (src/fleet/pg-history.ts, ensureSchema): every
// node of a fleet starts together, each makes the table and indexes on its first flush or read, and
// PostgreSQL's CREATE … IF NOT EXISTS fails on a catalog's unique index when two sessions run it at the
// same moment. Here eight real FleetHistory handles on a new database of a real PostgreSQL 15 each read
// and flush at once, in several rounds: every call must succeed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigStore } from "../../src/config/index.ts";
import { FleetHistory } from "../../src/fleet/pg-history.ts";
import { startPostgres, type PostgresServer } from "../harness/postgres.ts";
import { rec } from "../stats/fixture.ts";

let pg: PostgresServer;
let dir: string;
beforeAll(async () => {
  pg = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), "moat-fleet-schema-"));
}, 60000);
afterAll(async () => {
  await pg?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const NODES = 8;
const ROUNDS = 5;

test("eight nodes making the history table at once: no read or flush fails", async () => {
  const config = new ConfigStore({ file: join(dir, "pihole.toml"), env: {}, hashPassword: (p) => p });
  const admin = new SQL({ url: pg.url, max: 1 });
  const warnings: string[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      await admin.unsafe(`CREATE DATABASE schema_${round}`);
      const url = pg.url.replace(/\/postgres$/, `/schema_${round}`);
      const nodes = Array.from(
        { length: NODES },
        (_, i) => new FleetHistory(url, `n${i}`, config, (_level, m) => warnings.push(m)),
      );
      try {
        // half of them read first, half flush a record first: both make the schema
        const calls = nodes.map((n, i) => {
          if (i % 2 === 0) return n.queries({});
          n.record(rec({ time: Date.now() / 1000, domain: `r${round}.n${i}.schema.test` }));
          return n.flush();
        });
        const settled = await Promise.allSettled(calls);
        const failed = settled.flatMap((s) => (s.status === "rejected" ? [String(s.reason)] : []));
        expect(failed).toEqual([]);
        expect(nodes.map((n) => n.error)).toEqual(nodes.map(() => null));
        const page = await nodes[0]!.queries({});
        expect(page.queries.map((q) => q.domain).sort()).toEqual(
          nodes.flatMap((_, i) => (i % 2 === 1 ? [`r${round}.n${i}.schema.test`] : [])).sort(),
        );
      } finally {
        await Promise.all(nodes.map((n) => n.stop()));
      }
    }
    expect(warnings).toEqual([]);
  } finally {
    await admin.close();
  }
}, 60000);
