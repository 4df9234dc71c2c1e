// The messages between the main thread and the long-term database's reader thread (disk-reader.ts).
import type { QueryFilter } from "./read.ts";

/** The exclusions (webserver.api.excludeDomains / excludeClients) as their regexes' sources. */
export interface HidePatterns {
  domains: readonly string[];
  clients: readonly string[];
}

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

/**
 * The exclusions as QueryFilter's tests, case-insensitive like Pi-hole's. A pattern that does not
 * compile is left out: the API refused it before it came here (src/api/stats/clients.ts).
 */
export function hideOf(p: HidePatterns): NonNullable<QueryFilter["hide"]> {
  const compile = (list: readonly string[]) =>
    list.flatMap((src) => {
      try {
        return src ? [new RegExp(src, "i")] : [];
      } catch {
        return [];
      }
    });
  const d = compile(p.domains);
  const c = compile(p.clients);
  return {
    domain: (x) => d.some((r) => r.test(x)),
    client: (ip, name) => c.some((r) => r.test(ip) || (name !== null && r.test(name))),
  };
}
