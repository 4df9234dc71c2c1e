// Whether a database file is sound: SQLite's quick_check on a read-only connection of its own. It
// reads every page, so it is not part of opening (open.ts): at open it held back DNS, 320 ms for a
// 100 MiB pihole-FTL.db on this machine with the file cached, and 3.0-3.9 s for both files in a
// full 256 MiB memory cgroup, whose page cache has no room for them (bench/mix/pressure.ts: the
// restart's first answer came after 3.0-3.9 s with it, 0.5 s without). Start-up runs it on the
// long-term database's reader thread (src/querylog/reader-ops.ts) once DNS answers.
import { Database } from "bun:sqlite";

/** The problems quick_check lists at most (it stops there). */
const MAX_PROBLEMS = 10;
/** What a message shows of them. */
const MAX_CHARS = 400;

/** quick_check's lines as one: its heading dropped, cut at MAX_CHARS. */
function oneLine(lines: string[]): string {
  const text = lines
    .join("\n")
    .replace(/\*\*\* in database \w+ \*\*\*\s*/g, "")
    .trim()
    .replace(/\s*\n\s*/g, "; ");
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}…` : text;
}

/** "ok", or what quick_check found wrong with the file (or why it could not run). */
export function quickCheck(file: string): string {
  try {
    const db = new Database(file, { readonly: true });
    try {
      const rows = db.query(`PRAGMA quick_check(${MAX_PROBLEMS})`).all() as Array<{ quick_check: string }>;
      return oneLine(rows.map((r) => r.quick_check));
    } finally {
      db.close();
    }
  } catch (err) {
    return (err as Error).message;
  }
}
