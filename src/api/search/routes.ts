// GET /api/search/{domain}: which domain entries and which lists match a name (Pi-hole's search.yaml),
// exactly or as a substring, with the punycode and ABP patterns used when `debug` is set.
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t, type Static } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { Errors } from "../core/errors.ts";
import { compat, pathParts } from "../lists/common.ts";
import { normaliseExact } from "../domains/validate.ts";
import { DomainEntry, domainEntry } from "../domains/routes.ts";
import { ListEntry, listEntry } from "../lists/routes.ts";
import { ApiError } from "../core/errors.ts";
import { compileRegex } from "../../filter/regex.ts";

const MAX_N = 10000;

/** `||a.b.c^`, `||b.c^`, `||c^` (FTL's gen_abp_patterns) */
function abpPatterns(domain: string, prefix: string): string[] {
  const labels = domain.split(".");
  return labels.map((_, i) => `${prefix}||${labels.slice(i).join(".")}^`);
}

/** Whether a regex entry matches the name, as the filter reads it (POSIX classes, `;invert`). */
function regexMatches(entry: string, domain: string): boolean {
  const compiled = compileRegex(0, entry);
  return typeof compiled !== "string" && compiled.re.test(domain) !== compiled.invert;
}

const Int = t.Integer();
const SearchReply = t.Object({
  search: t.Object({
    domains: t.Array(DomainEntry, {
      description: "allow/deny entries (exact ones equal to the domain, regexes matching it)",
    }),
    gravity: t.Array(t.Composite([t.Object({ domain: t.String() }), ListEntry]), {
      description: "list entries covering the domain, with their list",
    }),
    results: t.Object({
      domains: t.Object({ exact: Int, regex: Int }),
      gravity: t.Object({ allow: Int, block: Int }),
      total: Int,
    }),
    parameters: t.Object({ N: Int, partial: t.Boolean(), domain: t.String(), debug: t.Boolean() }),
    debug: t.Optional(
      t.Object(
        {
          domain: t.String(),
          punycode: t.String(),
          abp_pattern: t.Object({ gravity: t.Array(t.String()), antigravity: t.Array(t.String()) }),
          regex_ids: t.Array(Int),
        },
        { description: "with debug=true" },
      ),
    ),
  }),
});

export function searchRoutes(rt: ApiDeps) {
  return new Elysia({ name: "search" }).get(
    "/search/*",
    async ({ request, query }) => {
      const { item } = pathParts(request, "search", 0);
      if (item === null || item.trim() === "") throw Errors.badRequest("Invalid request: No search term provided");
      const N = query.N ?? 20;
      if (N > MAX_N) throw Errors.badRequest("Invalid request: Requested too many results", `N <= ${MAX_N}`);
      const partial = query.partial ?? false;
      let domain: string;
      try {
        domain = normaliseExact(item.trim(), true);
      } catch (e) {
        if (partial && /^[a-z0-9._-]+$/i.test(item)) domain = item.toLowerCase();
        // Pi-hole searches any term (its checker asks for the literal template /api/search/{domain}): nothing matches.
        else if (e instanceof ApiError && compat(rt)) domain = item.trim().toLowerCase();
        else if (e instanceof ApiError) throw Errors.badRequest("Invalid request: Invalid domain name", e.hint);
        else throw e;
      }
      const lists = rt.lists;
      const exactRows = lists.exactDomainMatches(domain, partial, N);
      const regexRows = lists
        .regexDomainRows()
        .filter((r) => regexMatches(r.domain, domain))
        .slice(0, N);
      const dGroups = lists.groupMap("domainlist_by_group");
      const domains = [...exactRows, ...regexRows].map((r) => domainEntry(r, dGroups));

      const aGroups = lists.groupMap("adlist_by_group");
      // a partial search reads every row of the list tables (a million on a busy appliance): it runs on
      // the long-term reader thread (src/querylog/reader-ops.ts), not on this one, which answers DNS
      const gravityOf = (table: "gravity" | "antigravity", prefix: string) => {
        const names = [domain, ...abpPatterns(domain, prefix)];
        return partial
          ? rt.stats.longTerm.read("listMatches", lists.file, table, names, partial, N)
          : lists.listMatches(table, names, partial, N);
      };
      const gravityRows = [...(await gravityOf("gravity", "")), ...(await gravityOf("antigravity", "@@"))];
      const gravity = gravityRows.map((r) => ({ domain: r.domain, ...listEntry(r, aGroups) }));
      const allow = gravity.filter((g) => g.type === "allow").length;
      const reply: Static<typeof SearchReply>["search"] = {
        domains,
        gravity,
        results: {
          domains: { exact: exactRows.length, regex: regexRows.length },
          gravity: { allow, block: gravity.length - allow },
          total: domains.length + gravity.length,
        },
        parameters: { N, partial, domain: item, debug: query.debug ?? false },
      };
      if (query.debug)
        reply.debug = {
          domain: item,
          punycode: domain,
          abp_pattern: { gravity: abpPatterns(domain, ""), antigravity: abpPatterns(domain, "@@") },
          regex_ids: regexRows.map((r) => r.id),
        };
      return { search: reply };
    },
    {
      query: t.Object(
        {
          partial: t.Optional(t.BooleanString()),
          N: t.Optional(t.Numeric({ minimum: 1 })),
          debug: t.Optional(t.BooleanString()),
        },
        { additionalProperties: true },
      ),
      response: SearchReply,
      detail: documented(
        piholeParams("/{domain}", {
          tags: ["Search"],
          summary: "Find a domain in the domain entries and the lists (exact or partial)",
        }),
        { responses: { 400: "No search term, an invalid domain, or N too large" } },
      ),
    },
  );
}
