// GET /api/guide/check (Moat's own): whether the device asking uses Moat, for the dashboard's setup
// guide. Two pieces of evidence, both from the 24 h window of answered queries (src/stats):
// - recent: queries from the request's own address in the last ten minutes (the device's resolver
//   is Moat, or something that forwards from that address);
// - probe: whether a query for `<probe>.<zone>` arrived, and from which address. The page makes the
//   browser look that name up, so a hit means this browser's own lookups reach Moat, whatever the
//   device's setting says (a browser with its own DNS over HTTPS never asks Moat). The zone
//   (PROBE_ZONE) is under home.arpa, which Moat answers itself and never forwards.
import { t } from "elysia";
import { PROBE_ZONE } from "../../config/schema-appliance.ts";
import { Errors } from "../core/errors.ts";
import { requestState } from "../core/request-state.ts";
import { moatOnly } from "../core/route-meta.ts";
import { queryReads } from "../core/query-reads.ts";
import type { ApiDeps } from "../deps.ts";

const PROBE = /^[a-z0-9]{8,40}$/;
/** how far back "recent" reaches */
const RECENT_S = 600;

const CheckReply = t.Object({
  check: t.Object({
    address: t.String({ description: "the address this request came from" }),
    recent: t.Integer({ description: "queries from that address in the last ten minutes" }),
    last: t.Union([t.Number(), t.Null()], { description: "unix time of the newest of them" }),
    zone: t.String({ description: "the zone a probe name is made under: <probe>.<zone>" }),
    probe: t.Union(
      [
        t.Object({
          name: t.String(),
          seen: t.Boolean({ description: "a query for the name reached Moat" }),
          client: t.Union([t.String(), t.Null()], { description: "the address that query came from" }),
        }),
        t.Null(),
      ],
      { description: "null without ?probe" },
    ),
    hidden: t.Boolean({
      description: "misc.privacylevel hides the names or clients of queries, so neither can be seen",
    }),
  }),
});

export function guideRoutes(rt: Pick<ApiDeps, "stats" | "config" | "dns">) {
  // the window as of the request: with the DNS threads' records of every query answered before it
  return queryReads(rt, "guide").get(
    "/guide/check",
    async ({ query, request }) => {
      const probe = query.probe?.toLowerCase();
      if (probe !== undefined && !PROBE.test(probe))
        throw Errors.badRequest("Not a probe name", "8 to 40 letters and digits");
      const address = requestState(request).ip;
      const since = Date.now() / 1000 - RECENT_S;
      const mine = await rt.stats.queryPage({ client_ip: address, from: since, length: 1 });
      let found = null;
      if (probe !== undefined) {
        const name = `${probe}.${PROBE_ZONE}`;
        const hit = await rt.stats.queryPage({ domain: name, from: since, length: 1 });
        const q = hit.queries[0];
        found = { name, seen: q !== undefined, client: q?.client.ip ?? null };
      }
      return {
        check: {
          address,
          recent: mine.recordsFiltered,
          last: mine.queries[0]?.time ?? null,
          zone: PROBE_ZONE,
          probe: found,
          hidden: rt.config.current.misc.privacylevel >= 1,
        },
      };
    },
    {
      query: t.Object({
        probe: t.Optional(t.String({ maxLength: 40, description: "8 to 40 letters and digits the page made up" })),
      }),
      response: CheckReply,
      detail: moatOnly({
        tags: ["Setup guide"],
        summary: "Whether the asking device's (and with ?probe, its browser's) DNS queries reach Moat",
      }),
    },
  );
}
