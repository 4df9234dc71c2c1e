// Pi-hole's LIST message: after each gravity run, one per list whose download failed (its cached copy
// used, or none), replacing those of the run before, so a list that recovered stops being named.
import type { Runtime } from "../core/runtime.ts";
import { ListStatus } from "../filter/gravity/download.ts";
import { adlistRows } from "../lists/adlists.ts";
import { Messages } from "../messages/messages.ts";

const LIST_MESSAGE = "LIST";

const listFailureText = (id: number, address: string) =>
  `List with ID ${id} (${address}) was inaccessible during last gravity run`;

export function noticeListFailures(rt: Pick<Runtime, "events" | "gravityDb" | "log" | "queryDb">): () => void {
  const messages = new Messages(rt.queryDb);
  return rt.events.on("gravity-updated", ({ ok }) => {
    // a failed run changed no list's status: what the last good one said stands
    if (!ok) return;
    try {
      const failed = adlistRows(rt.gravityDb, null, undefined).filter(
        (l) => l.enabled && (l.status === ListStatus.cached || l.status === ListStatus.failed),
      );
      messages.clear(LIST_MESSAGE);
      for (const l of failed) messages.raise(LIST_MESSAGE, listFailureText(l.id, l.address), l.id, l.address);
    } catch (e) {
      rt.log("warn", `could not store message: ${(e as Error).message}`);
    }
  });
}
