// Opening our SQLite files with clear errors instead of crashes: missing directory, a file that is not
// an SQLite database, read-only file, or a schema newer than this build. Damage inside a file that opens
// is found after start-up, off the DNS path (integrity.ts).
import { Database } from "bun:sqlite";
import { accessSync, constants, existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";

export class DbError extends Error {}

/** A step of a schema's history: `to` is the version after `up` ran. */
export interface Migration {
  to: number;
  up: string;
}

export interface SchemaSpec {
  /** human name for messages, e.g. "gravity database" */
  name: string;
  /** SQL creating the whole schema at `baseVersion` */
  create: string;
  baseVersion: number;
  /** read the version a file has (undefined: empty file) */
  readVersion: (db: Database) => number | undefined;
  writeVersion: (db: Database, v: number) => void;
  /** steps from baseVersion upwards, in order */
  migrations: readonly Migration[];
  /** versions older than baseVersion that we can still open as they are */
  oldestReadable?: number;
  /** how a version number reads in messages (e.g. Pi-hole's own numbering) */
  describe?: (v: number) => string;
}

export function openDatabase(file: string, spec: SchemaSpec, opts: { wal?: boolean } = {}): Database {
  mkdirSync(dirname(file), { recursive: true });
  if (existsSync(file)) {
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch {
      throw new DbError(`${spec.name} ${file} is not writable by this user (check its owner and mode)`);
    }
  }
  let db: Database;
  try {
    db = new Database(file, { create: true, readwrite: true, strict: true });
  } catch (e) {
    throw new DbError(`cannot open ${spec.name} ${file}: ${(e as Error).message}`);
  }
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA foreign_keys = ON");
    if (opts.wal !== false) db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    migrateSchema(db, spec);
  } catch (e) {
    db.close();
    if (e instanceof DbError) throw e;
    const msg = (e as Error).message;
    if (/not a database|malformed|corrupt/i.test(msg))
      throw new DbError(
        `${spec.name} ${file} is corrupt or not an SQLite database (${msg}); move it away to start fresh`,
      );
    if (/readonly|read-only/i.test(msg)) throw new DbError(`${spec.name} ${file} is read-only: ${msg}`);
    throw new DbError(`cannot open ${spec.name} ${file}: ${msg}`);
  }
  return db;
}

/** Creates the schema in an empty database, or runs the steps it has not had; DbError when it cannot. */
export function migrateSchema(db: Database, spec: SchemaSpec): void {
  const latest = spec.migrations.length ? spec.migrations[spec.migrations.length - 1]!.to : spec.baseVersion;
  let version = spec.readVersion(db);
  if (version === undefined) {
    db.transaction(() => {
      db.exec(spec.create);
      spec.writeVersion(db, spec.baseVersion);
    })();
    version = spec.baseVersion;
  }
  const show = spec.describe ?? String;
  if (version > latest)
    throw new DbError(
      `${spec.name} has schema version ${show(version)}, newer than this Moat understands (${show(latest)}); upgrade Moat`,
    );
  if (version < spec.baseVersion && version < (spec.oldestReadable ?? spec.baseVersion))
    throw new DbError(
      `${spec.name} has schema version ${show(version)}, older than Moat can read (${show(spec.baseVersion)}); upgrade it with Pi-hole v6 first`,
    );
  for (const m of spec.migrations) {
    if (m.to <= version) continue;
    db.transaction(() => {
      db.exec(m.up);
      spec.writeVersion(db, m.to);
    })();
    version = m.to;
  }
}
