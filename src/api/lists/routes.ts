// /api/lists/{address}?type=block|allow: subscribed lists (Pi-hole's adlists).
// The lists' contents arrive with the next gravity run; deleting a list removes its rows at once.
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import { removeListCache } from "../../filter/gravity/cache.ts";
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
} from "./common.ts";
import { MAX_LEN, checkLength, commentField, itemsField, validateAddresses } from "./input.ts";
import { addAdlists, putAdlist, type AdlistRow, type AdlistType as LType } from "../../lists/adlists.ts";
import { announceLists } from "../../lists/store.ts";
import type { ApiDeps } from "../deps.ts";

function list(rt: ApiDeps, address: string | null, type: LType | undefined) {
  const groups = rt.lists.groupMap("adlist_by_group");
  return rt.lists.adlistRows(address, type).map((r) => listEntry(r, groups));
}

/** An adlist row as the API shows it (also used by /api/search). */
export function listEntry(r: AdlistRow, groups: Map<number, number[]>) {
  return {
    address: r.address,
    type: (r.type === 1 ? "allow" : "block") as LType,
    comment: r.comment,
    groups: groups.get(r.id) ?? [],
    enabled: r.enabled === 1,
    id: r.id,
    date_added: r.date_added,
    date_modified: r.date_modified,
    date_updated: r.date_updated ?? 0,
    number: r.number,
    invalid_domains: r.invalid_domains,
    abp_entries: r.abp_entries,
    status: r.status,
  };
}

function requiredType(type: string | undefined): LType {
  if (type === undefined || type === "")
    throw Errors.badRequest('Invalid request: Specify type parameter (should be either "allow" or "block")');
  return optionalType(type)!;
}
function optionalType(type: string | undefined): LType | undefined {
  if (type === undefined || type === "") return undefined;
  if (type !== "allow" && type !== "block")
    throw Errors.badRequest('Invalid request: Invalid type parameter (should be either "allow" or "block")');
  return type;
}

/**
 * Removes lists with their gravity rows, then their cached copies; returns how many existed. The
 * rows are deleted on the long-term reader thread (src/querylog/reader-ops.ts): a list of 700k
 * domains took this thread, which answers DNS, for 2.9 s.
 */
async function deleteLists(rt: ApiDeps, lists: Array<{ address: string; type: LType }>) {
  const removed = await rt.stats.longTerm.read("deleteAdlists", rt.lists.file, lists);
  if (removed.length) announceLists(rt, ["adlist"]);
  for (const id of removed) removeListCache(rt.paths.dataDir, id);
  return removed.length;
}

export const ListEntry = t.Object({
  address: t.String(),
  type: t.Union([t.Literal("block"), t.Literal("allow")]),
  comment: t.Union([t.String(), t.Null()]),
  groups: t.Array(t.Integer()),
  enabled: t.Boolean(),
  id: t.Integer(),
  date_added: t.Integer(),
  date_modified: t.Integer(),
  date_updated: t.Integer(),
  number: t.Integer({ description: "valid domains of the last parse" }),
  invalid_domains: t.Integer(),
  abp_entries: t.Integer(),
  status: t.Integer({
    description: "0 never downloaded, 1 updated, 2 unchanged, 3 failed (cached copy used), 4 failed (no cache)",
  }),
});
const Processed = t.Object({
  success: t.Array(t.Object({ item: t.String() })),
  errors: t.Array(t.Object({ item: t.String(), error: t.String() })),
});
const ListsReply = t.Object({ lists: t.Array(ListEntry), processed: t.Optional(Processed) });
/** What a GET answers (writes add `processed`). */
const ListsList = t.Object({ lists: t.Array(ListEntry) });
const TypeQuery = t.Object(
  { type: t.Optional(t.String({ description: "block or allow" })) },
  { additionalProperties: true },
);
const tags = ["List management"];
const uriError = (m: string) => new ApiError(400, "uri_error", m, null);

export function listRoutes(rt: ApiDeps) {
  const get = ({ request, query }: { request: Request; query: { type?: string } }) => {
    const { item } = pathParts(request, "lists", 0);
    const lists = list(rt, item, optionalType(query.type));
    if (item !== null && lists.length === 0) absent(rt, request);
    return { lists };
  };
  return new Elysia({ name: "lists" })
    .get("/lists", get, {
      query: TypeQuery,
      response: ListsList,
      detail: piholeParams("/{list}", { tags, summary: "All subscribed lists (?type filters)" }),
    })
    .get("/lists/*", get, {
      query: TypeQuery,
      response: ListsList,
      detail: piholeParams("/{list}", { tags, summary: "One list by URL-encoded address" }),
    })
    .post(
      "/lists",
      ({ request, body, query }) => {
        const type = requiredType(query.type);
        const items = itemsOf(body, "address", request);
        rejectWhitespace(items);
        validateAddresses(items, rt.config.current.webserver.port);
        const enabled = body.enabled ?? true;
        const processed = newProcessed();
        const add = { type, addresses: items, enabled, comment: commentOf(body), groups: body.groups };
        processed.success = listsWrite(request, () => addAdlists(rt, add, onDuplicate(rt, processed, enabled))).map(
          (item) => ({ item }),
        );
        const last = items[items.length - 1]!;
        return createdReply(
          rt,
          request,
          { lists: list(rt, last, type), processed },
          `/api/lists/${encodeItem(last)}?type=${type}`,
        );
      },
      {
        query: TypeQuery,
        body: t.Object(
          {
            address: itemsField("address", MAX_LEN.address, "the list's URL (scheme http, https or file)"),
            comment: commentField,
            groups: t.Optional(t.Array(t.Integer())),
            enabled: t.Optional(t.Boolean()),
          },
          { additionalProperties: true },
        ),
        detail: documented(
          { tags, summary: "Subscribe to one or more lists (?type=block|allow required)" },
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
      "/lists/*",
      () => {
        throw uriError("Invalid request: Specify item in payload, not as URI parameter");
      },
      { detail: { tags, summary: "(rejected: the address belongs in the body)", hide: true } },
    )
    .put(
      "/lists/*",
      ({ request, body, query }) => {
        const type = requiredType(query.type);
        const { item } = pathParts(request, "lists", 0);
        if (item === null) throw uriError("Invalid request: Specify item in URI");
        checkLength(item, "address", MAX_LEN.address);
        rejectWhitespace([item]);
        validateAddresses([item], rt.config.current.webserver.port);
        const processed = newProcessed();
        listsWrite(request, () =>
          putAdlist(rt, {
            address: item,
            type,
            enabled: body.enabled ?? true,
            comment: commentOf(body),
            groups: body.groups,
          }),
        );
        processed.success.push({ item });
        return { lists: list(rt, item, type), processed };
      },
      {
        query: TypeQuery,
        body: t.Object(
          {
            comment: commentField,
            groups: t.Optional(t.Array(t.Integer())),
            enabled: t.Optional(t.Boolean()),
          },
          { additionalProperties: true },
        ),
        response: ListsReply,
        detail: piholeParams("/{list}", { tags, summary: "Create or replace a list (?type required)" }),
      },
    )
    .delete(
      "/lists/*",
      async ({ request, query }) => {
        const type = requiredType(query.type);
        const { item } = pathParts(request, "lists", 0);
        if (item === null) throw uriError("Invalid request: Specify item in URI");
        const n = await deleteLists(rt, [{ address: item, type }]);
        if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      {
        query: TypeQuery,
        detail: piholeParams("/{list}", {
          tags,
          summary: "Delete a list and its domains (?type required; 204, 404 when absent)",
        }),
      },
    )
    .post(
      "/lists:batchDelete",
      async ({ body, request }) => {
        const items = batchItems(body, "type");
        for (const b of items)
          if (b.type !== "allow" && b.type !== "block")
            throw Errors.badRequest('Invalid request: Invalid type parameter (should be either "allow" or "block")');
        const n = await deleteLists(
          rt,
          items.map((b) => ({ address: b.item, type: b.type as LType })),
        );
        if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      {
        body: t.Unknown({ description: '[{"item":"<address>","type":"block|allow"}]' }),
        detail: documented(
          { tags, summary: "Delete several lists" },
          { responses: { 204: "Deleted", 400: "The body is not a list of items", 404: "None of the items exists" } },
        ),
      },
    );
}
