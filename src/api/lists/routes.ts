// /api/lists/{address}?type=block|allow: subscribed lists (Pi-hole's adlists).
// The lists' contents arrive with the next gravity run; deleting a list removes its rows at once.
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import { removeListCache } from "../../filter/gravity/cache.ts";
import { Errors } from "../core/errors.ts";
import { batchItems, commentOf, itemsOf, listsWrite, newProcessed, pathParts, rejectWhitespace } from "./common.ts";
import * as resource from "./resource.ts";
import { MAX_LEN, checkLength, commentField, itemsField, validateAddresses } from "./input.ts";
import type { AdlistRow, AdlistType as LType } from "../../lists/adlists.ts";
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
    ...resource.linkedFields(r, groups),
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
  if (removed.length) rt.lists.announce(["adlist"]);
  for (const id of removed) removeListCache(rt.paths.dataDir, id);
  return removed.length;
}

export const ListEntry = t.Object({
  address: t.String(),
  type: t.Union([t.Literal("block"), t.Literal("allow")]),
  comment: t.Union([t.String(), t.Null()]),
  groups: t.Array(t.Integer()),
  enabled: t.Boolean(),
  ...resource.RowStamps,
  date_updated: t.Integer(),
  number: t.Integer({ description: "valid domains of the last parse" }),
  invalid_domains: t.Integer(),
  abp_entries: t.Integer(),
  status: t.Integer({
    description: "0 never downloaded, 1 updated, 2 unchanged, 3 failed (cached copy used), 4 failed (no cache)",
  }),
});
const { List: ListsList, Reply: ListsReply } = resource.replies("lists", ListEntry);
const TypeQuery = t.Object(
  { type: t.Optional(t.String({ description: "block or allow" })) },
  { additionalProperties: true },
);
const tags = ["List management"];

export function listRoutes(rt: ApiDeps) {
  const get = ({ request, query }: { request: Request; query: { type?: string } }) => {
    const { item } = pathParts(request, "lists", 0);
    return { lists: resource.presentOr404(rt, request, item, list(rt, item, optionalType(query.type))) };
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
        const add = { type, addresses: items, enabled, comment: commentOf(body), groups: body.groups };
        return resource.addedReply(
          rt,
          request,
          items,
          enabled,
          (onDup) => rt.lists.addAdlists(add, onDup),
          (last, processed) => ({ lists: list(rt, last, type), processed }),
          (last) => `/api/lists/${last}?type=${type}`,
        );
      },
      {
        query: TypeQuery,
        body: resource.writeBody({
          address: itemsField("address", MAX_LEN.address, "the list's URL (scheme http, https or file)"),
          comment: commentField,
          groups: t.Optional(t.Array(t.Integer())),
          enabled: t.Optional(t.Boolean()),
        }),
        detail: resource.addedDoc(tags, "Subscribe to one or more lists (?type=block|allow required)"),
      },
    )
    .post("/lists/*", ...resource.itemInPathRoute(tags, "address"))
    .put(
      "/lists/*",
      ({ request, body, query }) => {
        const type = requiredType(query.type);
        const item = resource.pathItem(request, "lists");
        checkLength(item, "address", MAX_LEN.address);
        rejectWhitespace([item]);
        validateAddresses([item], rt.config.current.webserver.port);
        const processed = newProcessed();
        listsWrite(request, () =>
          rt.lists.putAdlist({
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
        body: resource.writeBody({
          comment: commentField,
          groups: t.Optional(t.Array(t.Integer())),
          enabled: t.Optional(t.Boolean()),
        }),
        response: ListsReply,
        detail: piholeParams("/{list}", { tags, summary: "Create or replace a list (?type required)" }),
      },
    )
    .delete(
      "/lists/*",
      async ({ request, query }) => {
        const type = requiredType(query.type);
        const item = resource.pathItem(request, "lists");
        return resource.deleted(request, await deleteLists(rt, [{ address: item, type }]));
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
        return resource.deleted(
          request,
          await deleteLists(
            rt,
            items.map((b) => ({ address: b.item, type: b.type as LType })),
          ),
        );
      },
      resource.batchDeleteOptions(tags, "Delete several lists", '[{"item":"<address>","type":"block|allow"}]'),
    );
}
