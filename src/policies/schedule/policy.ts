// Group schedules as a group policy: judged after the exact deny list, for the question alone. While a group's
// window is open its scheduled services (or everything but the allow list) are blocked, and the block lists it
// schedules apply: they carry a bit of the group's own past the groups' bits (listBits), which the judge adds
// to the client's groups for the lists judged after it.
import type { Database } from "bun:sqlite";
import type { GroupPolicy, PolicyVerdict } from "../../filter/policy.ts";
import { DomainSet, type DomainSetData } from "../../filter/domainset.ts";
import { matchSubtree } from "../../filter/match.ts";
import { emptySetData, setBuffers } from "../../filter/build.ts";
import { scheduleRows } from "../../lists/filter-input.ts";
import { Status } from "../../query/enums.ts";
import { serviceSetData } from "../services/compile.ts";
import { SCHEDULE_LIST_ID, serviceVerdict } from "../services/rules.ts";
import { compileWindows, ScheduleClock, type GroupSchedule, type ScheduleWindow } from "./windows.ts";

interface ScheduleData {
  /** the enabled groups' weekly windows */
  schedules: GroupSchedule[];
  /** the services blocked while a group's window is open: subtree entries, id = service code */
  services: DomainSetData;
}

interface Schedules {
  clock: ScheduleClock;
  services: DomainSet;
}

const EVERYTHING: PolicyVerdict = {
  status: Status.DENYLIST,
  reason: "schedule",
  listId: SCHEDULE_LIST_ID,
  cnameTo: null,
};

/** A JSON array of ids, or [] when it is not one. */
function parseIds(json: string): number[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x)) : [];
  } catch {
    return [];
  }
}

function listBits(db: Database, bitOf: ReadonlyMap<number, number>): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const r of scheduleRows(db)) if (bitOf.has(r.g)) out.set(r.g, parseIds(r.lists));
  return out;
}

export const schedulePolicy: GroupPolicy<ScheduleData, Schedules> = {
  name: "schedule",
  point: "afterDeny",
  listBits,
  compile(b) {
    const schedules: GroupSchedule[] = [];
    const picks: Array<{ g: number; service: string }> = [];
    for (const r of scheduleRows(b.db)) {
      const bit = b.bitOf.get(r.g);
      if (bit === undefined) continue;
      let windows: ScheduleWindow[] = [];
      let services: string[] = [];
      try {
        windows = JSON.parse(r.windows);
        services = JSON.parse(r.services);
      } catch {
        continue; // written by hand and broken: no schedule rather than no snapshot
      }
      schedules.push({
        bit,
        listBit: b.listBits.get(r.g) ?? -1,
        minutes: compileWindows(windows),
        everything: r.everything === 1,
      });
      for (const service of services) picks.push({ g: r.g, service });
    }
    return { schedules, services: serviceSetData(picks, b.bitOf, b.words) };
  },
  empty: (words) => ({ schedules: [], services: emptySetData(words) }),
  buffers: (d) => setBuffers([d.services]),
  load: (d) =>
    d.schedules.length === 0
      ? null
      : { clock: new ScheduleClock(d.schedules, d.services.words), services: new DomainSet(d.services) },
  judge(s, _q, n) {
    const open = s.clock.openGroups(n.groups, Date.now());
    if (open === null) return null;
    if (s.clock.blocksEverything(open)) return EVERYTHING;
    const id = matchSubtree(s.services, n.wire, n.labels, n.h, open);
    if (id >= 0) return serviceVerdict(id);
    // the block lists it schedules apply from here on: the clock's scratch array, which the next query reuses
    if (s.clock.schedulesLists) n.groups = s.clock.widen(n.groups, open);
    return null;
  },
};
