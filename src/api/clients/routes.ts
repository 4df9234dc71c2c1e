// /api/clients/{client}: IP, CIDR subnet, MAC, hostname or `:interface` entries with their groups
// (as in Pi-hole), and suggestions of devices seen on the network but not configured yet.
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import { isIP } from "node:net";
import type { ApiDeps } from "../deps.ts";
import type { devicesWithAddresses } from "../../network/devices.ts";
import { ApiError, Errors } from "../core/errors.ts";
import {
  absent,
  batchItems,
  commentOf,
  createdReply,
  encodeItem,
  itemsOf,
  listsWrite,
  newProcessed,
  onDuplicate,
  pathParts,
  rejectWhitespace,
} from "../lists/common.ts";
import { MAX_LEN, checkLength, commentField, itemsField, validateClients } from "../lists/input.ts";
import { addClients, deleteClients, putClient } from "../../lists/clients.ts";

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
  id: t.Integer(),
  date_added: t.Integer(),
  date_modified: t.Integer(),
});
const Processed = t.Object({
  success: t.Array(t.Object({ item: t.String() })),
  errors: t.Array(t.Object({ item: t.String(), error: t.String() })),
});
const ClientsReply = t.Object({ clients: t.Array(Client), processed: t.Optional(Processed) });
/** What a GET answers (writes add `processed`). */
const ClientsList = t.Object({ clients: t.Array(Client) });
const tags = ["Client management"];
const uriError = (m: string) => new ApiError(400, "uri_error", m, null);

export function clientRoutes(rt: ApiDeps) {
  const get = ({ request }: { request: Request }) => {
    const { item } = pathParts(request, "clients", 0);
    const clients = list(rt, item);
    if (item !== null && clients.length === 0) absent(rt, request);
    return { clients };
  };
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
    .get("/clients", get, {
      response: ClientsList,
      detail: piholeParams("/{client}", { tags, summary: "All clients" }),
    })
    .get("/clients/*", get, {
      response: ClientsList,
      detail: piholeParams("/{client}", {
        tags,
        summary: "One client (URL-encoded IP, CIDR, MAC, hostname or :interface)",
      }),
    })
    .post(
      "/clients",
      ({ request, body }) => {
        const items = itemsOf(body, "client", request);
        rejectWhitespace(items);
        validateClients(items);
        const processed = newProcessed();
        processed.success = listsWrite(request, () =>
          addClients(rt, items, commentOf(body), body.groups, onDuplicate(rt, processed, true)),
        ).map((item) => ({ item }));
        const last = items[items.length - 1]!;
        return createdReply(rt, request, { clients: list(rt, last), processed }, `/api/clients/${encodeItem(last)}`);
      },
      {
        body: t.Object(
          {
            client: itemsField("client", MAX_LEN.client, "IP, CIDR subnet, MAC, host name or :interface"),
            comment: commentField,
            groups: t.Optional(t.Array(t.Integer())),
          },
          { additionalProperties: true },
        ),
        detail: documented(
          { tags, summary: "Add one or more clients" },
          {
            responses: {
              201: "Created (Location names the last item)",
              400: "Bad request or a duplicate (400 database_error; with webserver.api.piholeCompat: 201 with processed.errors)",
            },
          },
        ),
      },
    )
    .post(
      "/clients/*",
      () => {
        throw uriError("Invalid request: Specify item in payload, not as URI parameter");
      },
      { detail: { tags, summary: "(rejected: the client belongs in the body)", hide: true } },
    )
    .put(
      "/clients/*",
      ({ request, body }) => {
        const { item } = pathParts(request, "clients", 0);
        if (item === null) throw uriError("Invalid request: Specify item in URI");
        checkLength(item, "client", MAX_LEN.client);
        rejectWhitespace([item]);
        validateClients([item]);
        const processed = newProcessed();
        listsWrite(request, () => putClient(rt, item, commentOf(body), body.groups));
        processed.success.push({ item });
        return { clients: list(rt, item), processed };
      },
      {
        body: t.Object(
          { comment: commentField, groups: t.Optional(t.Array(t.Integer())) },
          { additionalProperties: true },
        ),
        response: ClientsReply,
        detail: piholeParams("/{client}", { tags, summary: "Create or replace a client" }),
      },
    )
    .delete(
      "/clients/*",
      ({ request }) => {
        const { item } = pathParts(request, "clients", 0);
        if (item === null) throw uriError("Invalid request: Specify item in URI");
        const n = deleteClients(rt, [item]);
        if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      { detail: piholeParams("/{client}", { tags, summary: "Delete a client (204; 404 when absent)" }) },
    )
    .post(
      "/clients:batchDelete",
      ({ body, request }) => {
        const items = batchItems(body, "none");
        const n = deleteClients(
          rt,
          items.map((b) => b.item),
        );
        if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      {
        body: t.Unknown({ description: '[{"item":"<client>"}]' }),
        detail: documented(
          { tags, summary: "Delete several clients" },
          { responses: { 204: "Deleted", 400: "The body is not a list of items", 404: "None of the items exists" } },
        ),
      },
    );
}
