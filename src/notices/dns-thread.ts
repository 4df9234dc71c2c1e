// An extra DNS thread that died (src/dns/threads/pool.ts, which logs it and starts it again): the same
// words in /api/info/messages, where a person who does not read the log sees them.
import type { Runtime } from "../core/runtime.ts";
import { Messages } from "../messages/messages.ts";

/** Pi-hole's type for its DNS core's warnings (dnsmasq's): the DNS side is Moat's core. */
const TYPE = "DNSMASQ_WARN";

/** One message per thread, the latest death's: a thread that keeps dying does not fill the list. */
export function noticeDnsThreadDeaths(rt: Pick<Runtime, "events" | "log" | "queryDb">): () => void {
  const messages = new Messages(rt.queryDb);
  const said = new Map<number, string>();
  return rt.events.on("dns-thread-died", ({ thread, text }) => {
    try {
      const earlier = said.get(thread);
      if (earlier !== undefined) messages.clear(TYPE, earlier);
      messages.raise(TYPE, text);
      said.set(thread, text);
    } catch (e) {
      // the log has said it already
      rt.log("warn", `could not store message: ${(e as Error).message}`);
    }
  });
}
