// The reads of the management tables the API answers from, bound to the live gravity.db (src/db/bind.ts):
// the API holds this owner, not the handle. Writes go through the functions that take a `ListsStore`.
import type { Database } from "bun:sqlite";
import { bindDb } from "../db/bind.ts";
import { adlistIds, adlistRows } from "./adlists.ts";
import { clientRows, configuredClients } from "./clients.ts";
import { listsCounts } from "./counts.ts";
import { domainRows } from "./domains.ts";
import { activePauses, groupSafeSearch, groupSchedules, groupServices, groupUpstreams } from "./family.ts";
import { groupMap } from "./group-links.ts";
import { groupRows } from "./groups.ts";
import { customRules } from "./custom-rules.ts";
import { exactDomainMatches, listMatches, regexDomainRows } from "./search.ts";

export function listsReads(db: Database) {
  return {
    ...bindDb(db, {
      groupRows,
      groupMap,
      domainRows,
      adlistRows,
      adlistIds,
      clientRows,
      configuredClients,
      listsCounts,
      groupServices,
      groupSafeSearch,
      groupSchedules,
      groupUpstreams,
      activePauses,
      customRules,
      exactDomainMatches,
      regexDomainRows,
      listMatches,
    }),
    /** the file, for the work done on the long-term reader thread's own connection */
    file: db.filename,
  };
}

export type ListsReads = ReturnType<typeof listsReads>;
