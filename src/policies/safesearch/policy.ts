// Safe search as a group policy: judged before the allow list (an allow-list entry for www.google.com must not
// switch it off); a host of an engine the client's groups enforce is answered with the engine's CNAME
// (src/dns/safesearch.ts resolves the target through the rest of the chain).
import type { GroupPolicy, PolicyVerdict } from "../../filter/policy.ts";
import { DomainSet, type DomainSetData } from "../../filter/domainset.ts";
import { groupsOfSet, intersects, matchExact } from "../../filter/match.ts";
import { emptySetData, setBuffers } from "../../filter/build.ts";
import { safeSearchSelections } from "../../lists/filter-input.ts";
import { nameToWire } from "../../net/dns-name.ts";
import { Status } from "../../query/enums.ts";
import { SAFE_SEARCH_ENGINES, safeSearchSetData } from "./engines.ts";

interface SafeSearchData {
  /** exact host names, id = engine code; YouTube's moderate mode in a set of its own */
  main: DomainSetData;
  moderate: DomainSetData;
}

interface SafeSearch {
  /** the groups that enforce an engine (a cheap test before the lookups) */
  groups: Uint32Array;
  main: DomainSet;
  moderate: DomainSet;
}

/** each engine's answer by its code, its target in wire form: made once, not per query */
const VERDICTS: PolicyVerdict[] = [];
for (const e of SAFE_SEARCH_ENGINES)
  VERDICTS[e.code] = { status: Status.UNKNOWN, reason: "", listId: 0, cnameTo: nameToWire(e.target)! };

export const safeSearchPolicy: GroupPolicy<SafeSearchData, SafeSearch> = {
  name: "safesearch",
  point: "beforeAllow",
  compile: (b) => safeSearchSetData(safeSearchSelections(b.db), b.bitOf, b.words),
  empty: (words) => ({ main: emptySetData(words), moderate: emptySetData(words) }),
  buffers: (d) => setBuffers([d.main, d.moderate]),
  load(d) {
    if (d.main.count + d.moderate.count === 0) return null;
    const groups = groupsOfSet(d.main);
    const moderate = groupsOfSet(d.moderate);
    for (let i = 0; i < groups.length; i++) groups[i]! |= moderate[i]!;
    return { groups, main: new DomainSet(d.main), moderate: new DomainSet(d.moderate) };
  },
  judge(s, _q, n) {
    if (!intersects(n.groups, s.groups)) return null;
    let code = matchExact(s.main, n.wire, n.h, n.groups);
    if (code < 0) code = matchExact(s.moderate, n.wire, n.h, n.groups);
    return code >= 0 ? VERDICTS[code]! : null;
  },
};
