// What the long-term database's reader thread (reader-worker.ts) runs: the query log's pages and
// counts and the long-term statistics (src/longterm/dbstats.ts, which bring the hourly rollups up to
// date first, a write) for the API, flush/logs' delete of a day's rows (seconds of work),
// start-up's integrity check of the database files, and in gravity.db a partial search of the lists'
// rows (GET /api/search?partial=true: LIKE reads every row, 75 ms for 1M here) and the removal of
// lists with their rows (2.9 s for 700k; bench/api/long-calls.ts). Each takes the thread's connection, then what the request sent.
import { Database } from "bun:sqlite";
import { deleteAdlistsIn } from "../lists/adlists.ts";
import { listMatches } from "../lists/search.ts";
import { dbHistory, dbHistoryClients, dbQueryTypes, dbSummary, dbTop, dbUpstreams } from "../longterm/dbstats.ts";
import { quickCheck } from "../db/integrity.ts";
import { queryPage, storedQueries } from "./read.ts";
import { deleteQueriesSince } from "./store.ts";
import { compileExcludes } from "./excludes.ts";
import type { DiskQueryFilter } from "./reader-protocol.ts";

export const READS = {
  queryPage: (db: Database, f: DiskQueryFilter) =>
    queryPage(db, { ...f, hide: f.hide ? compileExcludes(f.hide) : undefined }),
  storedQueries,
  dbSummary,
  dbTop,
  dbUpstreams,
  dbQueryTypes,
  dbHistory,
  dbHistoryClients,
  deleteQueriesSince,
  /** GET /api/search's partial search of a list table, on a read-only connection to gravity.db of its own */
  listMatches: (_db: Database, gravityFile: string, ...a: ListMatchArgs) => {
    const g = new Database(gravityFile, { readonly: true });
    try {
      return listMatches(g, ...a);
    } finally {
      g.close();
    }
  },
  /** DELETE /api/lists: lists and their rows (700k rows took 2.9 s), on a gravity.db connection of its own */
  deleteAdlists: (_db: Database, gravityFile: string, lists: Parameters<typeof deleteAdlistsIn>[1]) =>
    deleteAdlistsIn(gravityFile, lists),
  /** a database file's integrity check (any file: start-up checks gravity.db too) */
  quickCheck: (_db: Database, file: string) => quickCheck(file),
};

type ListMatchArgs = Parameters<typeof listMatches> extends [Database, ...infer R] ? R : never;
type Reads = typeof READS;
export type ReadName = keyof Reads;
/** A read's arguments after the connection. */
export type ReadArgs<K extends ReadName> = Parameters<Reads[K]> extends [Database, ...infer R] ? R : never;
export type ReadResult<K extends ReadName> = ReturnType<Reads[K]>;
