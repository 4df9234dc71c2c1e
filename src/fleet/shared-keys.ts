// Which settings a fleet shares. Everything that decides how a name is answered is shared
// (upstreams, local records and CNAMEs, blocking mode, rate limit, special domains, conditional
// forwarding...); what belongs to one machine stays with it: where it listens (ports, interface,
// listening mode), the addresses it puts in its own answers, its cache size, DHCP, NTP, the web
// server, files, and the fleet settings themselves. The blocking switch is live state
// (src/fleet/live.ts), not configuration.
import { LEAVES } from "../config/index.ts";

const SHARED = [
  "dns.",
  "resolver.",
  "gravity.",
  "misc.privacylevel",
  "webserver.api.excludeClients",
  "webserver.api.excludeDomains",
];
const NODE_LOCAL = [
  "dns.port",
  "dns.interface",
  "dns.listeningMode",
  "dns.blocking.active",
  "dns.reply.",
  "dns.cache.size",
];

export function isSharedKey(path: string): boolean {
  return (
    SHARED.some((p) => path === p || path.startsWith(p)) && !NODE_LOCAL.some((p) => path === p || path.startsWith(p))
  );
}

/** Every shared key, in tree order. */
export const SHARED_KEYS: readonly string[] = LEAVES.filter(
  (e) => e.leaf.kind !== "password" && !e.leaf.flags.writeOnly && isSharedKey(e.path),
).map((e) => e.path);
