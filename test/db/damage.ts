// Damages one table of an SQLite file the way a failing SD card does: its root page's header
// overwritten, so the file still opens and every other table reads, while SQLite's integrity check
// (src/db/integrity.ts) and any read of that table fail.
import { Database } from "bun:sqlite";
import { closeSync, openSync, writeSync } from "node:fs";

export function damageTable(file: string, table: string): void {
  const db = new Database(file);
  // everything into the main file, which is what gets damaged
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const { rootpage } = db.query("SELECT rootpage FROM sqlite_master WHERE name = ?").get(table) as {
    rootpage: number;
  };
  const { page_size } = db.query("PRAGMA page_size").get() as { page_size: number };
  db.close();
  const fd = openSync(file, "r+");
  try {
    writeSync(fd, new Uint8Array(12).fill(0xff), 0, 12, (rootpage - 1) * page_size);
  } finally {
    closeSync(fd);
  }
}
