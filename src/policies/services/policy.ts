// The groups' blocked services as a group policy: judged after the exact deny list, for the question, the name
// after `_esni.` and every name of the answer's CNAME chain (each rule is `||domain^`: the domain and below).
import type { GroupPolicy } from "../../filter/policy.ts";
import { DomainSet, type DomainSetData } from "../../filter/domainset.ts";
import { groupsOfSet, intersects, matchSubtree } from "../../filter/match.ts";
import { setBuffers, emptySetData } from "../../filter/build.ts";
import { serviceSelections } from "../../lists/filter-input.ts";
import { serviceSetData } from "./compile.ts";
import { serviceVerdict } from "./rules.ts";

interface Services {
  /** the groups that block a service (a cheap test before the lookups) */
  groups: Uint32Array;
  set: DomainSet;
}

export const servicesPolicy: GroupPolicy<DomainSetData, Services> = {
  name: "services",
  point: "afterDeny",
  everyName: true,
  compile: (b) => serviceSetData(serviceSelections(b.db), b.bitOf, b.words),
  empty: (words) => emptySetData(words),
  buffers: (d) => setBuffers([d]),
  load: (d) => (d.count === 0 ? null : { groups: groupsOfSet(d), set: new DomainSet(d) }),
  judge(s, _q, n) {
    if (!intersects(n.groups, s.groups)) return null;
    const id = matchSubtree(s.set, n.wire, n.labels, n.h, n.groups);
    return id >= 0 ? serviceVerdict(id) : null;
  },
};
