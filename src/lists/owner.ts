// The owner object of the management tables (`ListsStore`): their reads and writes bound to the live
// gravity.db and the event bus (src/db/bind.ts), so that the services it is handed to (the API) hold this
// object and never the handle. The snapshot build reads with its own connection (`filter-input.ts`).
import type { Database } from "bun:sqlite";
import type { EventBus, ListTable } from "../core/events.ts";
import { bindDb } from "../db/bind.ts";
import { addAdlists, adlistIds, adlistRows, putAdlist } from "./adlists.ts";
import { addClients, clientRows, configuredClients, deleteClients, putClient } from "./clients.ts";
import { listsCounts } from "./counts.ts";
import { addDomains, deleteDomains, domainRows, putDomain } from "./domains.ts";
import { customRules, setCustomRules } from "./custom-rules.ts";
import {
  activePauses,
  groupSafeSearch,
  groupSchedules,
  groupServices,
  groupUpstreams,
  pauseClient,
  resumeClient,
  setGroupSafeSearch,
  setGroupSchedule,
  setGroupServices,
  setGroupUpstreams,
} from "./family.ts";
import { groupMap } from "./group-links.ts";
import { addGroups, deleteGroups, groupRows, putGroup } from "./groups.ts";
import { exactDomainMatches, listMatches, regexDomainRows } from "./search.ts";
import { announceLists, type ListsDb } from "./store.ts";

export function listsStore(gravityDb: Database, events: EventBus) {
  const store: ListsDb = { gravityDb, events };
  return {
    ...bindDb(gravityDb, {
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
    ...bindDb(store, {
      setCustomRules,
      addGroups,
      putGroup,
      deleteGroups,
      addClients,
      putClient,
      deleteClients,
      addDomains,
      putDomain,
      deleteDomains,
      addAdlists,
      putAdlist,
      setGroupServices,
      setGroupSafeSearch,
      setGroupSchedule,
      setGroupUpstreams,
      pauseClient,
      resumeClient,
    }),
    /** a change committed on another connection (another thread, a child process) */
    announce: (tables: ListTable[]) => announceLists(store, tables),
    /** the file, for the work done on the long-term reader thread's own connection */
    file: gravityDb.filename,
  };
}

export type ListsStore = ReturnType<typeof listsStore>;
