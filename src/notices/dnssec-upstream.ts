// With dns.dnssec on, Moat validates every forwarded answer itself, from the root's keys down; an
// upstream that strips DNSSEC records (many routers, some filtering services) turns every such name
// into SERVFAIL, which no client explains. So Moat asks the upstream in use for the root's DNSKEY with
// DO (src/dns/engine.ts rootKeysSigned) at start, when dns.upstreams or dns.dnssec change, and every
// few minutes (one small query), and says so in the log and /api/info/messages until it is fixed.
import type { Runtime } from "../core/runtime.ts";
import { Messages } from "../messages/messages.ts";

/** Moat's own message type (Pi-hole has none for this): the dashboard's banner and Messages page show it. */
const DNSSEC_MESSAGE = "DNSSEC";
const EVERY_MS = 10 * 60_000;

type RootKeysProbe = () => Promise<{ signed: boolean; upstream: string | null } | null>;

const strippedText = (upstream: string | null) =>
  `DNSSEC validation is on (dns.dnssec), but the upstream ${upstream ?? "in use"} answers the root's DNSKEY without signatures (RRSIG): every name Moat validates gets SERVFAIL. Pick an upstream that passes DNSSEC records, or turn DNSSEC validation off.`;

/** Starts the checks; returns their stop. */
export function watchDnssecUpstream(rt: Pick<Runtime, "config" | "log" | "queryDb">, probe: RootKeysProbe): () => void {
  const messages = new Messages(rt.queryDb);
  let running = false;
  let again = false;
  const check = async (): Promise<void> => {
    // one probe at a time; a change meanwhile asks once more after it
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await checkOnce();
      } while (again);
    } finally {
      running = false;
    }
  };
  const checkOnce = async (): Promise<void> => {
    const raised = messages.list().filter((m) => m.type === DNSSEC_MESSAGE);
    const clear = () => {
      if (raised.length) messages.clear(DNSSEC_MESSAGE);
    };
    const dns = rt.config.current.dns;
    if (!dns.dnssec || dns.upstreams.length === 0) return clear();
    let r: Awaited<ReturnType<RootKeysProbe>>;
    try {
      r = await probe();
    } catch {
      r = null;
    }
    // no answer: the upstream is down, which the forwarder reports itself; what was said stays
    if (!r || !rt.config.current.dns.dnssec) return r ? clear() : undefined;
    if (r.signed) return clear();
    const text = strippedText(r.upstream);
    if (raised.some((m) => m.text === text)) return;
    clear();
    rt.log("warn", text);
    try {
      messages.raise(DNSSEC_MESSAGE, text, r.upstream ?? "");
    } catch (e) {
      rt.log("warn", `could not store message: ${(e as Error).message}`);
    }
  };
  void check();
  const timer = setInterval(() => void check(), EVERY_MS);
  timer.unref?.();
  const unsubscribe = rt.config.subscribe((_next, _prev, changed) => {
    if (changed.includes("dns.upstreams") || changed.includes("dns.dnssec")) void check();
  });
  return () => {
    clearInterval(timer);
    unsubscribe();
  };
}
