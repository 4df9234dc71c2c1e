// A migration or a restore runs in a child process; what it changed is taken in here, as the same work
// done in this process would have been: the settings reloaded, the lists announced, the leases told.
import type { ListTable } from "../../core/events.ts";
import type { ApiDeps } from "../deps.ts";

export interface ChildChanges {
  settings: boolean;
  tables: ListTable[];
  leases: boolean;
}

/** `source` names the work in the log ("migrate", "teleporter"); `settings` the settings it wrote. */
export function takeInChildChanges(
  rt: Pick<ApiDeps, "config" | "log" | "events" | "lists">,
  source: string,
  settings: string,
  c: ChildChanges,
): void {
  if (c.settings) {
    const r = rt.config.reload();
    if (!r.ok) rt.log("warn", `${source}: the ${settings} settings were not taken in: ${r.problem.message}`);
  }
  if (c.tables.length) rt.lists.announce(c.tables);
  if (c.leases) rt.events.emit("dhcp-leases-changed", { reason: source });
}
