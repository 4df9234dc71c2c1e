// The long-term database's reader thread (disk-reader.ts): the API's reads of pihole-FTL.db run here
// (reader-ops.ts), on a connection of its own, so a search over months of queries or a week's top
// list never holds the thread that answers DNS.
import { Database } from "bun:sqlite";
import { FilterError } from "./read.ts";
import { READS } from "./reader-ops.ts";
import type { ReaderReply, ReaderRequest } from "./reader-protocol.ts";

declare const self: Worker;

let db: Database | null = null;

self.onmessage = (e: MessageEvent<ReaderRequest>) => {
  const { seq, file, read, args } = e.data;
  let reply: ReaderReply;
  try {
    if (!db) {
      // read-write: the long-term statistics bring their rollups up to date before they read
      db = new Database(file, { readwrite: true, strict: true });
      db.exec("PRAGMA busy_timeout = 5000");
    }
    const run = READS[read as keyof typeof READS] as (db: Database, ...a: unknown[]) => unknown;
    reply = { seq, result: run(db, ...args) };
  } catch (err) {
    const x = err as Error;
    reply = { seq, error: x.message, hint: err instanceof FilterError ? err.hint : null };
  }
  self.postMessage(reply);
};
