// What the statistics and the query log show about clients and hide from them:
// webserver.api.excludeDomains / excludeClients (regexes, case-insensitive like Pi-hole's
// REG_EXTENDED | REG_ICASE) and client names (network table hostnames, else client_by_id.name).
import type { Runtime } from "../../core/runtime.ts";
import { addressNames } from "../../network/names.ts";
import { storedClientNames } from "../../querylog/read.ts";
import type { ApiDeps } from "../deps.ts";
import { Errors } from "../core/errors.ts";

export interface Excludes {
  /** false when neither list has a usable regex: callers skip all the work */
  active: boolean;
  domain: (domain: string) => boolean;
  /** a client is hidden when its address or its name matches */
  client: (ip: string, name: string | null) => boolean;
}

function compile(list: readonly string[], strict: boolean): RegExp[] {
  const out: RegExp[] = [];
  for (const src of list) {
    if (typeof src !== "string" || src === "") continue;
    try {
      out.push(new RegExp(src, "i"));
    } catch {
      // The query log answers 400 like Pi-hole; the top lists ignore the broken entry.
      if (strict) throw Errors.badRequest("Failed to compile regex", src);
    }
  }
  return out;
}

/** The configured exclusions; `strict`: a broken regex is a 400 (the query log's behaviour). */
export function excludes(rt: Runtime, strict = false): Excludes {
  const api = rt.config.current.webserver.api;
  const d = compile(api.excludeDomains, strict);
  const c = compile(api.excludeClients, strict);
  return {
    active: d.length > 0 || c.length > 0,
    domain: (x) => d.some((r) => r.test(x)),
    client: (ip, name) => c.some((r) => r.test(ip) || (name !== null && r.test(name))),
  };
}

/** ip → host name, from the network table (and names stored with the queries). */
export function clientNames(rt: ApiDeps): Map<string, string> {
  const out = new Map<string, string>();
  try {
    for (const r of storedClientNames(rt.queryDb)) out.set(r.ip, r.name);
    for (const r of addressNames(rt.queryDb)) out.set(r.ip, r.name);
    // the names found by PTR lookups since start, also for devices not in the network table yet
    for (const [ip, name] of rt.dns.clientNames()) out.set(ip, name);
  } catch {
    // names are a nicety: a locked or odd database leaves them out
  }
  return out;
}
