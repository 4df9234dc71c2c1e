// The integrity check of one database file (src/db/integrity.ts), on a read-only connection of its own
// in a thread of its own: PRAGMA quick_check reads every page of the file.
import { Database } from "bun:sqlite";

declare const self: Worker;

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

self.onmessage = (e: MessageEvent<{ file: string }>) => {
  let result: string;
  try {
    const db = new Database(e.data.file, { readonly: true });
    try {
      const rows = db.query(`PRAGMA quick_check(${MAX_PROBLEMS})`).all() as Array<{ quick_check: string }>;
      result = oneLine(rows.map((r) => r.quick_check));
    } finally {
      db.close();
    }
  } catch (err) {
    result = (err as Error).message;
  }
  self.postMessage(result);
};
