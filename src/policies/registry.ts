// The group policies, in the order the policy step (src/dns/policy.ts) judges them at each of their points:
// a new policy is one folder here and one line in this list.
import type { PolicySet } from "../filter/policy.ts";
import { pausePolicy } from "./pause/policy.ts";
import { upstreamsPolicy } from "./upstreams/policy.ts";
import { safeSearchPolicy } from "./safesearch/policy.ts";
import { schedulePolicy } from "./schedule/policy.ts";
import { servicesPolicy } from "./services/policy.ts";

export const POLICIES: PolicySet = {
  list: [
    // "client": before the groups' lists, with blocking off too
    pausePolicy,
    upstreamsPolicy,
    // "beforeAllow"
    safeSearchPolicy,
    // "afterDeny": an open window's verdict before the groups' blocked services
    schedulePolicy,
    servicesPolicy,
  ],
  buildWorker: "policies/build-worker.ts",
};
