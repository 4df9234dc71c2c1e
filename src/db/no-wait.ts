// A write that never waits for another connection's: on the thread that answers DNS, SQLite's busy
// handler sleeps (in steps of up to 100 ms, for as long as busy_timeout) while the query writer
// thread or the long-term reader commits. Measured: a client's first host name written while a
// day's rollups were being built held every DNS answer back for 1.0-1.7 s
// (bench/querylog/search-while-answering.ts). Writes that can wait for a later turn use this instead.
import type { Database } from "bun:sqlite";

/** SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * Runs `write` with the connection's busy timeout at 0: true when it ran, false when another
 * connection held the database (an exception `write` threw then is taken as that; its transaction,
 * if it opened one, was rolled back). Other errors are thrown.
 */
export function writeWithoutWaiting(db: Database, write: () => void): boolean {
  const { timeout } = db.query("PRAGMA busy_timeout").get() as { timeout: number };
  db.exec("PRAGMA busy_timeout = 0");
  try {
    write();
    return true;
  } catch (e) {
    if (isBusy(e)) return false;
    throw e;
  } finally {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(timeout))}`);
  }
}
