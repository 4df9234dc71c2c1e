// What the statistics and the query log show about clients and hide from them:
// webserver.api.excludeDomains / excludeClients (regexes, case-insensitive like Pi-hole's
// REG_EXTENDED | REG_ICASE) and client names (network table hostnames, else client_by_id.name).
import type { Context } from "../../core/runtime.ts";
import { compileExcludes, type Excludes } from "../../querylog/excludes.ts";
import type { ApiDeps } from "../deps.ts";
import { Errors } from "../core/errors.ts";

/** The configured exclusions; `strict`: a broken regex is a 400 (the query log's behaviour). */
export function excludes(rt: Context, strict = false): Excludes {
  const api = rt.config.current.webserver.api;
  // The query log answers 400 like Pi-hole; the top lists ignore the broken entry.
  return compileExcludes({ domains: api.excludeDomains, clients: api.excludeClients }, (src) => {
    if (strict) throw Errors.badRequest("Failed to compile regex", src);
  });
}

/** ip → host name, from the network table (and names stored with the queries). */
export function clientNames(rt: ApiDeps): Map<string, string> {
  const out = new Map<string, string>();
  try {
    for (const r of rt.stats.storedClientNames()) out.set(r.ip, r.name);
    for (const r of rt.network.addressNames()) out.set(r.ip, r.name);
    // the names found by PTR lookups since start, also for devices not in the network table yet
    for (const [ip, name] of rt.dns.clientNames()) out.set(ip, name);
  } catch {
    // names are a nicety: a locked or odd database leaves them out
  }
  return out;
}
