// Pi-hole's RATE_LIMIT message (its FTL's message table): a client went over dns.rateLimit and gets
// REFUSED for a while. The DNS thread only hands the event off (src/dns/server.ts); here it becomes one
// message per client, replaced when the client is limited again in a later window.
import type { Runtime } from "../core/runtime.ts";
import { Messages } from "../messages/messages.ts";

const RATE_LIMIT_MESSAGE = "RATE_LIMIT";
/** clients with a message of their own; past it (forged sources) only the limiter's log line tells */
const MAX_CLIENTS = 256;
const FORGET_MS = 3_600_000;

const rateLimitText = (client: string, seconds: number, count: number, interval: number) =>
  `Client ${client} has been rate-limited for at least ${seconds} seconds (current limit: ${count} queries per ${interval} seconds)`;

export function noticeRateLimits(rt: Pick<Runtime, "config" | "events" | "log" | "queryDb">): () => void {
  const messages = new Messages(rt.queryDb);
  /** the message each client has, and when it was raised */
  const raised = new Map<string, { at: number; text: string }>();
  return rt.events.on("client-rate-limited", ({ client, seconds }) => {
    const { count, interval } = rt.config.current.dns.rateLimit;
    const now = Date.now();
    const last = raised.get(client);
    // once per client per window: each DNS thread counts its own queries, and may say so too
    if (last && now - last.at < interval * 1000) return;
    if (!last && raised.size >= MAX_CLIENTS) for (const [c, r] of raised) if (now - r.at > FORGET_MS) raised.delete(c);
    if (!last && raised.size >= MAX_CLIENTS) return;
    const text = rateLimitText(client, seconds, count, interval);
    try {
      if (last) messages.clear(RATE_LIMIT_MESSAGE, last.text);
      messages.raise(RATE_LIMIT_MESSAGE, text, count, interval, seconds);
      raised.set(client, { at: now, text });
    } catch (e) {
      rt.log("warn", `could not store message: ${(e as Error).message}`);
    }
  });
}
