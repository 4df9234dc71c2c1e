// /api/dhcp/leases: the DHCP server's leases (read from the lease database even while DHCP is off).
import { IpAddress } from "../core/address.ts";
import { Elysia, t } from "elysia";
import { isIP } from "node:net";
import { Errors } from "../core/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { numberToIp } from "../../dhcp/packet.ts";

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
