// The long-term query log's reader thread (disk-reader.ts): /api/queries?disk=true runs here, on a
// read-only connection of its own, so a search over months of queries never holds the thread that
// answers DNS.
import { Database } from "bun:sqlite";
import { FilterError, queryPage } from "./read.ts";
import { hideOf, type ReaderReply, type ReaderRequest } from "./reader-protocol.ts";

declare const self: Worker;

let db: Database | null = null;

self.onmessage = (e: MessageEvent<ReaderRequest>) => {
  const { seq, file, filter } = e.data;
  let reply: ReaderReply;
  try {
    if (!db) {
      db = new Database(file, { readonly: true });
      // without the write-ahead log (database.useWAL = false) a write in progress locks readers out
      db.exec("PRAGMA busy_timeout = 5000");
    }
    const { hide, ...rest } = filter;
    reply = { seq, page: queryPage(db, { ...rest, hide: hide ? hideOf(hide) : undefined }) };
  } catch (err) {
    const x = err as Error;
    reply = { seq, error: x.message, hint: err instanceof FilterError ? err.hint : null };
  }
  self.postMessage(reply);
};
