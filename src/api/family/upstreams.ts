// /api/upstreams/groups (Moat's own): a group's own upstreams (plain, DoT or DoH, as dns.upstreams takes
// them), e.g. a family-filtering resolver for the kids' devices. Its clients' queries go there instead of
// dns.upstreams, and their answers are cached apart (src/dns/cache.ts), so no group gets another's.
import { t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { parseUpstreamSpec } from "../../config/upstream-syntax.ts";
import { selfUpstreams } from "../../config/index.ts";
import { Errors } from "../core/errors.ts";
import { groupPolicyRoutes, picksBody } from "./group-path.ts";

const Reply = t.Object({
  groups: t.Array(
    t.Object({
      name: t.String(),
      upstreams: t.Array(t.String(), { description: "[]: the group uses dns.upstreams" }),
    }),
  ),
});

function groupsOf(rt: ApiDeps, name: string | null) {
  const own = rt.lists.groupUpstreams();
  return rt.lists.groupRows(name).map((g) => ({ name: g.name, upstreams: own.get(g.name) ?? [] }));
}

export function upstreamRoutes(rt: ApiDeps) {
  return groupPolicyRoutes("upstreams/groups", (name) => groupsOf(rt, name), {
    response: Reply,
    body: picksBody("upstreams", {
      maxLength: 512,
      maxItems: 16,
      description: "as dns.upstreams takes them (9.9.9.9, 9.9.9.9#53, a tls: or an https: URL); []: dns.upstreams",
    }),
    save: (group, body) => {
      for (const u of body.upstreams) {
        const p = parseUpstreamSpec(u);
        if (typeof p === "string") throw Errors.badRequest(`Invalid upstream: ${p}`, u);
      }
      const c = rt.config.current;
      const self = selfUpstreams(body.upstreams, { dns: c.dns.port, dot: c.dns.tls.port, web: c.webserver.port });
      if (self) throw Errors.badRequest("Invalid upstream: it is Moat itself", self);
      rt.lists.setGroupUpstreams(group, [...new Set(body.upstreams)]);
    },
    doc: {
      every: "Every group's own upstreams",
      one: "One group's own upstreams",
      put: "Set a group's own upstreams",
      refused: "An entry that is not an upstream",
    },
  });
}
