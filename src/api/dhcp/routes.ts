// /api/dhcp/leases: Moat serves no DHCP yet, so the lease list is empty and every delete is 404.
import { IpAddress } from "../core/address.ts";
import { Elysia, t } from "elysia";
import { isIP } from "node:net";
import { Errors } from "../core/errors.ts";

export function dhcpRoutes() {
  return new Elysia({ name: "dhcp" })
    .get("/dhcp/leases", () => ({ leases: [] as never[] }), {
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
      detail: { tags: ["DHCP"], summary: "Active DHCP leases (empty: Moat serves no DHCP yet)" },
    })
    .delete(
      "/dhcp/leases/:ip",
      ({ params }) => {
        if (!isIP(params.ip)) throw Errors.badRequest("The provided IP address is invalid", params.ip);
        throw Errors.notFound(`/api/dhcp/leases/${params.ip}`);
      },
      { params: t.Object({ ip: t.String() }), detail: { tags: ["DHCP"], summary: "Remove a lease" } },
    );
}
