// The catalogue's rules as the filter uses them: each `||domain^` rule is a subtree entry (the domain and
// every name below it, as an ABP line of a block list), and a service's query-log list id is −code, so the
// log and "Why?" name the service while Pi-hole's list_id column keeps its type (positive ids are
// domainlist/adlist rows, as in Pi-hole).
import { nameToWire } from "../../net/dns-name.ts";
import { SERVICES, type BlockedService } from "./catalogue.ts";
import { Status } from "../../query/enums.ts";
import type { PolicyVerdict } from "../../filter/policy.ts";

/** The list id a paused client's queries are logged with (below every service's −code). */
export const PAUSED_LIST_ID = -1_000_000;
/** The list id of a query blocked because its group's schedule blocks everything but the allow list. */
export const SCHEDULE_LIST_ID = -1_000_001;

const ABP = /^\|\|([a-z0-9][a-z0-9.-]*[a-z0-9])\^$/;

/** The wire name a rule covers (with everything below it), or null when the rule is not `||domain^`. */
export function ruleWire(rule: string): Uint8Array | null {
  const m = ABP.exec(rule);
  return m ? nameToWire(m[1]!) : null;
}

const byId = new Map(SERVICES.map((x) => [x.id, x]));
const byCode = new Map(SERVICES.map((x) => [x.code, x]));

export function serviceById(id: string): BlockedService | undefined {
  return byId.get(id);
}

/** The service a query-log list id names (−code), if any. */
export function serviceOfListId(listId: number): BlockedService | undefined {
  return listId < 0 ? byCode.get(-listId) : undefined;
}

const VERDICTS = new Map<number, PolicyVerdict>(
  SERVICES.map((s) => [
    s.code,
    { status: Status.DENYLIST, reason: `blocked service: ${s.name}`, listId: -s.code, cnameTo: null },
  ]),
);

/** The verdict that blocks a service of the catalogue by its code, made once: a blocked query builds no string. */
export function serviceVerdict(code: number): PolicyVerdict {
  return VERDICTS.get(code)!;
}
