// The two databases, by the file names Pi-hole users and tools know.
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { GRAVITY_SCHEMA, GRAVITY_SCHEMA_VERSION } from "./gravity-schema.ts";
import { migrateSchema, openDatabase, type SchemaSpec } from "./open.ts";
import { QUERY_DB_VERSION, QUERY_SCHEMA } from "./query-schema.ts";
import { GRAVITY_MIGRATIONS, QUERY_MIGRATIONS } from "./migrations.ts";

export { DbError } from "./open.ts";

const tableExists = (db: Database, name: string) =>
  db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null;

/** Pi-hole's schema version of a gravity database (info.version), as stored: null when there is none. */
export function piholeGravityVersion(db: Database): unknown {
  const row = db.query("SELECT value FROM info WHERE property = 'version'").get() as { value: unknown } | null;
  return row ? row.value : null;
}

// Pi-hole's own version (info.version = 20) stays untouched so Pi-hole can still open the file;
// Moat's additions are versioned separately as info.moat_schema.
const gravitySpec: SchemaSpec = {
  name: "gravity database",
  create: GRAVITY_SCHEMA,
  baseVersion: 1,
  readVersion: (db) => {
    if (!tableExists(db, "info")) return undefined;
    const piholeVersion = Number(piholeGravityVersion(db) ?? 0);
    if (piholeVersion > GRAVITY_SCHEMA_VERSION) return Number.MAX_SAFE_INTEGER;
    if (piholeVersion < GRAVITY_SCHEMA_VERSION) return -piholeVersion;
    const moat = db.query("SELECT value FROM info WHERE property = 'moat_schema'").get() as { value: string } | null;
    return moat ? Number(moat.value) : 1;
  },
  writeVersion: (db, v) =>
    db.run("INSERT OR REPLACE INTO info (property, value) VALUES ('moat_schema', ?)", [String(v)]),
  migrations: GRAVITY_MIGRATIONS,
  // Pi-hole versions other than 20 are encoded out of Moat's range (negative: older, MAX: newer).
  describe: (v) =>
    v < 0
      ? `${-v} (Pi-hole)`
      : v === Number.MAX_SAFE_INTEGER
        ? `newer than ${GRAVITY_SCHEMA_VERSION} (Pi-hole)`
        : `20.${v}`,
};

/**
 * The ftl row with Moat's schema version of pihole-FTL.db: Pi-hole's own (row 0, version 21) stays untouched,
 * so Pi-hole runs its own migrations on the file as it would on its own. Pi-hole's rows are 0-2 (version, last
 * timestamp, first counter timestamp: the `ftl` enum of src/database/common.h in pi-hole/FTL); 100 leaves room.
 */
const MOAT_QUERY_SCHEMA_ID = 100;

const querySpec: SchemaSpec = {
  name: "query database",
  create: `${QUERY_SCHEMA}
INSERT INTO ftl (id, value, description) VALUES (0, ${QUERY_DB_VERSION}, 'Database version');`,
  baseVersion: 1,
  readVersion: (db) => {
    if (!tableExists(db, "ftl")) return undefined;
    const row = db.query("SELECT value FROM ftl WHERE id = 0").get() as { value: number | string } | null;
    if (!row) return undefined;
    // Pi-hole versions other than 21 are encoded out of Moat's range (negative: older, MAX: newer), as for gravity.db.
    const pihole = Number(row.value);
    if (pihole > QUERY_DB_VERSION) return Number.MAX_SAFE_INTEGER;
    if (pihole < QUERY_DB_VERSION) return -pihole;
    const moat = db.query("SELECT value FROM ftl WHERE id = ?").get(MOAT_QUERY_SCHEMA_ID) as { value: number } | null;
    return moat ? Number(moat.value) : 1;
  },
  writeVersion: (db, v) =>
    db.run("INSERT OR REPLACE INTO ftl (id, value, description) VALUES (?, ?, 'Moat schema version')", [
      MOAT_QUERY_SCHEMA_ID,
      v,
    ]),
  migrations: QUERY_MIGRATIONS,
  describe: (v) =>
    v < 0
      ? `${-v} (Pi-hole)`
      : v === Number.MAX_SAFE_INTEGER
        ? `newer than ${QUERY_DB_VERSION} (Pi-hole)`
        : `${QUERY_DB_VERSION}.${v}`,
};

export function openGravityDb(dataDir: string, wal = true): Database {
  return openDatabase(join(dataDir, "gravity.db"), gravitySpec, { wal });
}

export function openQueryDb(dataDir: string, wal = true): Database {
  return openDatabase(join(dataDir, "pihole-FTL.db"), querySpec, { wal });
}

/** Makes or brings up to date the query database's tables in `db` (an in-memory one for tests and tools). */
export function initQueryDb(db: Database): void {
  migrateSchema(db, querySpec);
}
