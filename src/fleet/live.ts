// Live state the fleet shares besides configuration: the blocking switch with its timer (a
// replicated kind like the others, the timer as its end time so every node flips back at the same
// moment without telling anyone), and one-off actions (restartdns: cache flush and list reload),
// which are announced, not stored: a node that is away when one is sent has nothing to redo.
import type { BlockingSwitch } from "../core/blocking.ts";
import type { StateMap } from "./state-map.ts";
import type { ReplicatedKind } from "./replica.ts";

/** lets a timer that ended on every node at once count as agreed, not as a local change */
const TIMER_SLACK_MS = 2000;

export function blockingKind(blocking: BlockingSwitch): ReplicatedKind {
  return {
    name: "blocking",
    read(base) {
      const endsAt = blocking.timerEnd;
      const now: StateMap = { active: blocking.active, endsAt, after: blocking.timerTarget };
      // the agreed timer ran out here as it did everywhere: nothing new to tell
      const agreedEnd = typeof base.endsAt === "number" ? base.endsAt : null;
      if (
        endsAt === null &&
        agreedEnd !== null &&
        agreedEnd <= Date.now() + TIMER_SLACK_MS &&
        blocking.active === base.after
      )
        return base;
      return now;
    },
    apply(next) {
      const endsAt = typeof next.endsAt === "number" ? next.endsAt : null;
      // a timer that ended while this node was away has done its switch already
      if (endsAt !== null && endsAt <= Date.now()) blocking.restore(next.after !== false, null, true);
      else blocking.restore(next.active === true, endsAt, next.after !== false);
    },
  };
}
