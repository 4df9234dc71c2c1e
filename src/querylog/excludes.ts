// webserver.api.excludeDomains / excludeClients as tests of a row: regexes, case-insensitive like
// Pi-hole's REG_EXTENDED | REG_ICASE. One compiler for the API's top lists and 24 h log
// (src/api/stats/clients.ts) and for the long-term reader thread, which gets the patterns (reader-ops.ts).

/** The exclusions as their regexes' sources. */
export interface HidePatterns {
  domains: readonly string[];
  clients: readonly string[];
}

export interface Excludes {
  /** false when neither list has a usable regex: callers skip all the work */
  active: boolean;
  /** the domain patterns as one string: equal keys, equal `domain` tests (a cache of its answers may be kept) */
  domainKey: string;
  domain: (domain: string) => boolean;
  /** a client is hidden when its address or its name matches */
  client: (ip: string, name: string | null) => boolean;
}

/** The patterns' tests; a pattern that does not compile is left out, after `broken(src)` (which may throw). */
export function compileExcludes(p: HidePatterns, broken: (src: string) => void = () => {}): Excludes {
  const compile = (list: readonly string[]) =>
    list.flatMap((src) => {
      if (typeof src !== "string" || src === "") return [];
      try {
        return [new RegExp(src, "i")];
      } catch {
        broken(src);
        return [];
      }
    });
  const d = compile(p.domains);
  const c = compile(p.clients);
  return {
    active: d.length > 0 || c.length > 0,
    domainKey: d.map((r) => r.source).join("\n"),
    domain: (x) => d.some((r) => r.test(x)),
    client: (ip, name) => c.some((r) => r.test(ip) || (name !== null && r.test(name))),
  };
}
