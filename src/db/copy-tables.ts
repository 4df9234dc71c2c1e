// A new database file holding copies of some tables of another: what a backup carries of a database
// whose other tables are large or secret (pihole-FTL.db's query log and sessions). Only the named
// tables' pages are read, where VACUUM INTO reads and writes every page of the file.
import { Database } from "bun:sqlite";

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Writes `file` (which must not exist) with each of `tables` that `db` has: its CREATE statement as
 * `db` stores it (so the columns keep their order and types) and its rows, all read in one
 * transaction. The names of the tables copied, in the order given.
 */
export function copyTables(db: Database, file: string, tables: readonly string[]): string[] {
  const out = new Database(file, { create: true, readwrite: true });
  try {
    out.run("ATTACH DATABASE ? AS source", [db.filename]);
    const copied: string[] = [];
    out.transaction(() => {
      for (const t of tables) {
        const row = out
          .query<{ sql: string }, [string]>("SELECT sql FROM source.sqlite_master WHERE type = 'table' AND name = ?")
          .get(t);
        if (!row) continue;
        out.run(row.sql);
        out.run(`INSERT INTO main.${quoted(t)} SELECT * FROM source.${quoted(t)}`);
        copied.push(t);
      }
    })();
    out.run("DETACH DATABASE source");
    return copied;
  } finally {
    out.close();
  }
}
