// The group policies, in the order the policy step (src/dns/policy.ts) judges them at each of their points:
// a new policy is one folder here and one line in this list.
import type { PolicySet } from "../filter/policy.ts";
import { pausePolicy } from "./pause/policy.ts";
import { upstreamsPolicy } from "./upstreams/policy.ts";
import { safeSearchPolicy } from "./safesearch/policy.ts";
import { schedulePolicy } from "./schedule/policy.ts";
import { servicesPolicy } from "./services/policy.ts";
import { rulesBlockPolicy, rulesPolicy } from "./rules/policy.ts";

export const POLICIES: PolicySet = {
  list: [
    // "client": before the groups' lists, with blocking off too
    pausePolicy,
    upstreamsPolicy,
    // "beforeAllow": safe search, then the AdGuard rules' rewrites, exceptions and $important blocks
    safeSearchPolicy,
    rulesPolicy,
    // "afterDeny": an open window's verdict before the groups' blocked services
    schedulePolicy,
    servicesPolicy,
    // the AdGuard rules' ordinary blocks, as list entries after the services
    rulesBlockPolicy,
  ],
  buildWorker: "policies/build-worker.ts",
};
