// The messages between the main thread and the long-term database's reader thread (disk-reader.ts).
import type { HidePatterns } from "./excludes.ts";
import type { QueryFilter } from "./read.ts";

/** A filter as it crosses threads: the exclusions as patterns, which the reader compiles. */
export type DiskQueryFilter = Omit<QueryFilter, "hide"> & { hide?: HidePatterns };

export interface ReaderRequest {
  seq: number;
  /** the database file (the reader opens it on its first request) */
  file: string;
  /** a name of reader-ops.ts's READS, and its arguments after the connection */
  read: string;
  args: unknown[];
}

export type ReaderReply =
  | { seq: number; result: unknown }
  /** hint: set for a bad filter (FilterError), null for any other failure */
  | { seq: number; error: string; hint: string | null };
