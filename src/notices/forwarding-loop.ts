// A forwarding loop (src/dns/own-queries.ts): a query Moat forwarded came back to its own listener, so that
// upstream is Moat or forwards to it. The DNS thread only hands the event off (src/dns/server.ts).
import type { Runtime } from "../core/runtime.ts";
import { Messages } from "../messages/messages.ts";

/** What the log and /api/info/messages say when a query Moat forwarded to `upstream` came back to it. */
const loopText = (upstream: string) =>
  `forwarding loop: a query Moat sent to upstream ${upstream} came back to Moat itself, so that upstream is Moat (or forwards to it); its queries get SERVFAIL. Set dns.upstreams, or the group's upstreams (PUT /api/upstreams/groups/{name}), to a server that is not Moat`;

/**
 * A forwarding loop (src/dns/own-queries.ts): said once per upstream in the log and in /api/info/messages,
 * and taken back when dns.upstreams changes (a group's upstreams: the message can be dismissed).
 */
export function noticeForwardingLoops(rt: Pick<Runtime, "config" | "events" | "log" | "queryDb">): () => void {
  const messages = new Messages(rt.queryDb);
  const said = new Set<string>();
  const off = rt.events.on("forwarding-loop", ({ upstream }) => {
    if (said.has(upstream)) return;
    said.add(upstream);
    const text = loopText(upstream);
    rt.log("warn", text);
    try {
      if (!messages.has("DNSMASQ_WARN", text)) messages.raise("DNSMASQ_WARN", text);
    } catch (e) {
      rt.log("warn", `could not store message: ${(e as Error).message}`);
    }
  });
  const unsub = rt.config.subscribe((_next, _prev, changed) => {
    if (!changed.includes("dns.upstreams")) return;
    for (const u of said) messages.clear("DNSMASQ_WARN", loopText(u));
    said.clear();
  });
  return () => {
    off();
    unsub();
  };
}
