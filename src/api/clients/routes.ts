// /api/clients/{client}: IP, CIDR subnet, MAC, hostname or `:interface` entries with their groups
// (as in Pi-hole), and suggestions of devices seen on the network but not configured yet.
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import { isIP } from "node:net";
import type { ApiDeps } from "../deps.ts";
import type { devicesWithAddresses } from "../../network/devices.ts";
import { commentOf, itemsOf, listsWrite, newProcessed, rejectWhitespace } from "../lists/common.ts";
import * as resource from "../lists/resource.ts";
import { MAX_LEN, checkLength, commentField, itemsField, validateClients } from "../lists/input.ts";

const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i;

/** The device name the network table knows for an IP or MAC entry, or null. */
function nameOf(rt: ApiDeps, client: string): string | null {
  try {
    if (isIP(client)) return rt.network.addressName(client);
    if (MAC.test(client)) return rt.network.hwaddrName(client);
  } catch {
    // the network table is optional information
  }
  return null;
}

function list(rt: ApiDeps, client: string | null) {
  const groups = rt.lists.groupMap("client_by_group");
  return rt.lists.clientRows(client).map((r) => ({
    client: r.ip,
    name: nameOf(rt, r.ip),
    comment: r.comment,
    groups: groups.get(r.id) ?? [],
    id: r.id,
    date_added: r.date_added,
    date_modified: r.date_modified,
  }));
}

function suggestions(rt: ApiDeps, count: number, ipv4Only: boolean) {
  const configured = rt.lists.configuredClients();
  let devices: ReturnType<typeof devicesWithAddresses> = [];
  try {
    devices = rt.network.devicesWithAddresses(count);
  } catch {
    return [];
  }
  const out = [];
  for (const d of devices) {
    if (configured.has(d.hwaddr.toLowerCase())) continue;
    const addrs = d.addresses.filter((a) => !ipv4Only || isIP(a.ip) === 4);
    if (addrs.some((a) => configured.has(a.ip.toLowerCase()))) continue;
    out.push({
      hwaddr: d.hwaddr,
      macVendor: d.macVendor,
      lastQuery: d.lastQuery,
      addresses: addrs.map((a) => a.ip).join(","),
      names: [...new Set(addrs.map((a) => a.name).filter((n): n is string => !!n))].join(","),
    });
  }
  return out;
}

const Client = t.Object({
  client: t.String(),
  name: t.Union([t.String(), t.Null()]),
  comment: t.Union([t.String(), t.Null()]),
  groups: t.Array(t.Integer()),
  ...resource.RowStamps,
});
const { List: ClientsList, Reply: ClientsReply } = resource.replies("clients", Client);
const tags = ["Client management"];

export function clientRoutes(rt: ApiDeps) {
  return new Elysia({ name: "clients" })
    .get(
      "/clients/_suggestions",
      ({ query }) => ({ clients: suggestions(rt, query.count ?? 50, query.ipv4_only ?? true) }),
      {
        query: t.Object({ count: t.Optional(t.Numeric({ minimum: 1 })), ipv4_only: t.Optional(t.BooleanString()) }),
        response: t.Object({
          clients: t.Array(
            t.Object({
              hwaddr: t.String(),
              macVendor: t.Union([t.String(), t.Null()]),
              lastQuery: t.Integer(),
              addresses: t.String({ description: "comma-separated" }),
              names: t.String({ description: "comma-separated" }),
            }),
          ),
        }),
        detail: { tags, summary: "Devices seen on the network that are not configured as clients" },
      },
    )
    .use(
      resource.getRoutes(
        "clients",
        resource.itemGet(rt, "clients", (item) => list(rt, item)),
        ClientsList,
        {
          tags,
          path: "/{client}",
          every: "All clients",
          some: "One client (URL-encoded IP, CIDR, MAC, hostname or :interface)",
        },
      ),
    )
    .post(
      "/clients",
      ({ request, body }) => {
        const items = itemsOf(body, "client", request);
        rejectWhitespace(items);
        validateClients(items);
        return resource.addedReply(
          rt,
          request,
          items,
          true,
          (onDup) => rt.lists.addClients(items, commentOf(body), body.groups, onDup),
          (last, processed) => ({ clients: list(rt, last), processed }),
          (last) => `/api/clients/${last}`,
        );
      },
      {
        body: resource.writeBody({
          client: itemsField("client", MAX_LEN.client, "IP, CIDR subnet, MAC, host name or :interface"),
          comment: commentField,
          groups: t.Optional(t.Array(t.Integer())),
        }),
        detail: resource.addedDoc(tags, "Add one or more clients"),
      },
    )
    .post("/clients/*", ...resource.itemInPathRoute(tags, "client"))
    .put(
      "/clients/*",
      ({ request, body }) => {
        const item = resource.pathItem(request, "clients");
        checkLength(item, "client", MAX_LEN.client);
        rejectWhitespace([item]);
        validateClients([item]);
        const processed = newProcessed();
        listsWrite(request, () => rt.lists.putClient(item, commentOf(body), body.groups));
        processed.success.push({ item });
        return { clients: list(rt, item), processed };
      },
      {
        body: resource.writeBody({ comment: commentField, groups: t.Optional(t.Array(t.Integer())) }),
        response: ClientsReply,
        detail: piholeParams("/{client}", { tags, summary: "Create or replace a client" }),
      },
    )
    .use(
      resource.deleteRoutes("clients", (clients) => rt.lists.deleteClients(clients), {
        tags,
        path: "/{client}",
        one: "Delete a client (204; 404 when absent)",
        several: "Delete several clients",
        noun: "client",
      }),
    );
}
