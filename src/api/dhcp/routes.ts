// /api/dhcp/leases: the DHCP server's leases (read from the lease database even while DHCP is off).
import { IpAddress } from "../core/address.ts";
import { Elysia, t } from "elysia";
import { isIP } from "node:net";
import { Errors } from "../core/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { numberToIp } from "../../dhcp/packet.ts";
import { moatOnly } from "../core/route-meta.ts";

export function dhcpRoutes(rt: Pick<ApiDeps, "dhcp">) {
  return new Elysia({ name: "dhcp" })
    .get(
      "/dhcp/leases",
      () => ({
        leases: rt.dhcp.leases().map((l) => ({
          expires: l.expires,
          name: l.hostname,
          hwaddr: l.mac,
          ip: numberToIp(l.ip),
          clientid: l.clientId,
        })),
      }),
      {
        response: t.Object({
          leases: t.Array(
            t.Object({
              expires: t.Integer({ description: "Unix time the lease ends (0: never)" }),
              name: t.String({ description: '"*" when the client sent none' }),
              hwaddr: t.String(),
              ip: IpAddress(),
              clientid: t.String({ description: '"*" when the client sent none' }),
            }),
          ),
        }),
        detail: { tags: ["DHCP"], summary: "Active DHCP leases" },
      },
    )
    .post(
      "/dhcp/detect",
      async ({ body }) => {
        const range = body?.start !== undefined || body?.end !== undefined ? body : undefined;
        for (const k of ["start", "end"] as const)
          if (range && isIP(range[k] ?? "") !== 4)
            throw Errors.badRequest("start and end must both be IPv4 addresses", `${k}: ${range[k] ?? ""}`);
        const r = await rt.dhcp.detect(range as { start: string; end: string } | undefined);
        return typeof r === "string" ? { interfaces: [], servers: [], problem: r } : { ...r, problem: null };
      },
      {
        body: t.Optional(
          t.Object({
            start: t.Optional(
              t.String({ maxLength: 15, description: "first address of the range (default: dhcp.start)" }),
            ),
            end: t.Optional(t.String({ maxLength: 15, description: "last address (default: dhcp.end)" })),
          }),
        ),
        response: t.Object({
          interfaces: t.Array(t.String(), {
            description: "the interfaces asked: those whose IPv4 network holds the range",
          }),
          servers: t.Array(t.Object({ interface: t.String(), address: IpAddress() }), {
            description: "every other server that offered an address within five seconds",
          }),
          problem: t.Union([t.String(), t.Null()], {
            description: "why Moat could not ask (no interface holds the range, …)",
          }),
        }),
        detail: moatOnly({
          tags: ["DHCP"],
          summary:
            "Ask the range's network now whether another DHCP server answers (about 5 s; also while DHCP is off; a finding is also a message)",
        }),
      },
    )
    .delete(
      "/dhcp/leases/:ip",
      async ({ params }) => {
        if (!isIP(params.ip)) throw Errors.badRequest("The provided IP address is invalid", params.ip);
        // only IPv4 leases are kept: an IPv6 address never names one
        if (isIP(params.ip) !== 4 || !(await rt.dhcp.remove(params.ip)))
          throw Errors.notFound(`/api/dhcp/leases/${params.ip}`);
        return undefined;
      },
      {
        params: t.Object({ ip: t.String() }),
        detail: { tags: ["DHCP"], summary: "Remove a lease (204; 404 when absent)" },
      },
    );
}
