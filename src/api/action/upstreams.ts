// POST /api/action/upstreams/test (Moat's own, AdGuard Home's "Test upstreams"): each upstream as
// dns.upstreams takes it (per-domain entries too) asked for one name, before the list is saved; the
// reply says, per server, whether it answered, its rcode, its answer's records and the time it took.
// Nothing is stored and the forwarder's order and statistics are left alone (src/dns/upstream-probe.ts).
import { Elysia, t } from "elysia";
import { isHostname } from "../../config/host-port.ts";
import { upstream as checkUpstream } from "../../config/validators.ts";
import type { ApiDeps } from "../deps.ts";
import { Errors } from "../core/errors.ts";
import { moatOnly } from "../core/route-meta.ts";
import { documented } from "../docs/meta.ts";

const MAX_UPSTREAMS = 16;

const Body = t.Object({
  upstreams: t.Array(t.String({ maxLength: 1024 }), {
    minItems: 1,
    maxItems: MAX_UPSTREAMS,
    description: "entries as dns.upstreams takes them: IP[#port], a tls: or an https: URL, [/domain/]server",
  }),
  domain: t.Optional(
    t.String({
      maxLength: 253,
      description: "the name asked (default example.com); a per-domain entry asks its own domain",
    }),
  ),
  type: t.Optional(t.Union([t.Literal("A"), t.Literal("AAAA")], { description: "the type asked (default A)" })),
});

const Result = t.Object({
  upstream: t.String({ description: "the server asked (one server of a per-domain entry)" }),
  name: t.String({ description: "the name asked" }),
  ok: t.Boolean({ description: "an answer came back (of any rcode)" }),
  rcode: t.Union([t.String(), t.Null()], { description: "NOERROR, NXDOMAIN, SERVFAIL, REFUSED, ...; null: no answer" }),
  answers: t.Array(t.String(), { description: 'the answer section, e.g. "A 192.0.2.1" (at most 16)' }),
  time: t.Union([t.Number(), t.Null()], { description: "milliseconds until the answer; null: no answer" }),
  error: t.Union([t.String(), t.Null()], { description: "why there is no answer" }),
});

export function upstreamTestRoutes(rt: Pick<ApiDeps, "dns">) {
  return new Elysia({ name: "action-upstreams" }).post(
    "/action/upstreams/test",
    async ({ body }) => {
      for (const u of body.upstreams) {
        const why = checkUpstream(u.trim());
        if (why) throw Errors.badRequest(`Invalid upstream: ${why}`, u);
      }
      const domain = (body.domain ?? "example.com").trim().toLowerCase().replace(/\.$/, "");
      if (!isHostname(domain)) throw Errors.badRequest("Invalid domain: not a host name", body.domain ?? null);
      const upstreams = await rt.dns.testUpstreams(
        body.upstreams.map((u) => u.trim()),
        domain,
        body.type ?? "A",
      );
      return { upstreams };
    },
    {
      body: Body,
      response: t.Object({ upstreams: t.Array(Result) }),
      detail: moatOnly(
        documented(
          { tags: ["Actions"], summary: "Ask each given upstream for one name: its answer and time (nothing saved)" },
          {
            responses: {
              200: "One result per server, in the order given",
              400: "An entry is not an upstream, or the domain is not a host name",
            },
          },
        ),
      ),
    },
  );
}
