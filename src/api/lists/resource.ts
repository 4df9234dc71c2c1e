// The route pieces the four list resources (domains, groups, clients, lists) have in common, so each
// resource's file says only what is its own (its entry, its item, its table calls): the schemas of
// entries, bodies and replies, the `uri_error` refusals, get-or-absent, the add sequence, the
// item-in-the-path rejection, the deletes' 404, and the GET and deletes of a resource addressed by its item alone.
// Each piece keeps Pi-hole's shape (its messages are FTL's, src/api/lists/common.ts for the rest).
import { Elysia, t, type Static, type TSchema } from "elysia";
import type { TArray, TProperties } from "@sinclair/typebox";
import type { Context } from "../../core/runtime.ts";
import { ApiError, Errors } from "../core/errors.ts";
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import type { OnDuplicate } from "../../lists/store.ts";
import {
  type Processed,
  absent,
  batchItems,
  createdReply,
  encodeItem,
  listsWrite,
  newProcessed,
  onDuplicate,
  pathParts,
} from "./common.ts";

/** The per-item report of a write. */
export const ProcessedSchema = t.Object({
  success: t.Array(t.Object({ item: t.String() })),
  errors: t.Array(t.Object({ item: t.String(), error: t.String() })),
});

/** The fields that end every entry: its row id and its times (Unix seconds). */
export const RowStamps = { id: t.Integer(), date_added: t.Integer(), date_modified: t.Integer() };

/** The fields of a domain's or a list's entry after its own: comment, groups, enabled and the row's stamps. */
export function linkedFields(
  r: { id: number; comment: string | null; enabled: number; date_added: number; date_modified: number },
  groups: Map<number, number[]>,
) {
  return {
    comment: r.comment,
    groups: groups.get(r.id) ?? [],
    enabled: r.enabled === 1,
    id: r.id,
    date_added: r.date_added,
    date_modified: r.date_modified,
  };
}

/** The body of a write: the fields named, and any other left alone (Pi-hole ignores unknown fields). */
export function writeBody<P extends TProperties>(fields: P) {
  return t.Object(fields, { additionalProperties: true });
}

/** What a GET answers: `{ <key>: [entry…] }` (writes add `processed`, `writeReply`). */
export function listReply<K extends string, E extends TSchema>(key: K, entry: E) {
  return t.Object({ [key]: t.Array(entry) } as Record<K, TArray<E>>);
}

/** What a write answers: the entries written and `processed`. */
function writeReply<K extends string, E extends TSchema>(key: K, entry: E) {
  return t.Object({ ...({ [key]: t.Array(entry) } as Record<K, TArray<E>>), processed: t.Optional(ProcessedSchema) });
}

/** A resource's replies: `List` for its GETs, `Reply` for its writes (with `processed`). */
export const replies = <K extends string, E extends TSchema>(key: K, entry: E) => ({
  List: listReply(key, entry),
  Reply: writeReply(key, entry),
});

/**
 * POST /<resource>: `write` adds the items (a duplicate handled by `onDuplicate`) and returns those
 * written, each reported in `processed`; the reply is 201 with the last item's entries (`reply`) and
 * a Location (`location`, given the last item encoded for a path).
 */
export function addedReply(
  rt: Context,
  request: Request,
  items: readonly string[],
  enabled: boolean,
  write: (onDup: OnDuplicate) => string[],
  reply: (last: string, processed: Processed) => Record<string, unknown>,
  location: (encodedLast: string) => string,
): Response {
  const processed = newProcessed();
  processed.success = listsWrite(request, () => write(onDuplicate(rt, processed, enabled))).map((item) => ({ item }));
  const last = items[items.length - 1]!;
  return createdReply(rt, request, reply(last, processed), location(encodeItem(last)));
}

/** Pi-hole's 400 for an item where the path cannot take one, or missing where it must. */
export const uriError = (message: string) => new ApiError(400, "uri_error", message, null);

/** The item named by the path, which PUT and DELETE require. */
export function itemInUri(item: string | null): string {
  if (item === null) throw uriError("Invalid request: Specify item in URI");
  return item;
}

/** The item of `/api/<base>/<item>` (groups, clients, lists), which PUT and DELETE require. */
export const pathItem = (request: Request, base: string) => itemInUri(pathParts(request, base, 0).item);

/** GET /<base>[/<item>] of a resource addressed by its item alone: `{ <base>: entries }`, or the 404. */
export function itemGet(rt: Context, base: string, entries: (item: string | null) => unknown[]) {
  return ({ request }: { request: Request }) => {
    const { item } = pathParts(request, base, 0);
    return { [base]: presentOr404(rt, request, item, entries(item)) };
  };
}

/** The rows a GET found; when the path names an item that matched none, the resource's 404. */
export function presentOr404<T>(rt: Context, request: Request, item: string | null, rows: T[]): T[] {
  if (item !== null && rows.length === 0) absent(rt, request);
  return rows;
}

/** A delete that removed nothing is a 404 naming the path; otherwise 204. */
export function deleted(request: Request, removed: number): undefined {
  if (removed === 0) throw Errors.notFound(new URL(request.url).pathname);
  return undefined;
}

/** POST /<resource>/<item>: Pi-hole takes the items of a POST from the body only. */
export function itemInPathRoute(tags: string[], noun: string) {
  return [
    () => {
      throw uriError("Invalid request: Specify item in payload, not as URI parameter");
    },
    { detail: { tags, summary: `(rejected: the ${noun} belongs in the body)`, hide: true } },
  ] as const;
}

/** The reference of a POST adding items (groups, clients, lists; domains word their own 400). */
export function addedDoc(tags: string[], summary: string) {
  return documented(
    { tags, summary },
    {
      responses: {
        201: "Created (Location names the last item)",
        400: "Bad request or a duplicate (400 database_error; with webserver.api.piholeCompat: 201 with processed.errors)",
      },
    },
  );
}

/** The body schema and reference of POST /<resource>:batchDelete. */
export function batchDeleteOptions(tags: string[], summary: string, bodyShape: string) {
  return {
    body: t.Unknown({ description: bodyShape }),
    detail: documented(
      { tags, summary },
      { responses: { 204: "Deleted", 400: "The body is not a list of items", 404: "None of the items exists" } },
    ),
  };
}

/**
 * DELETE /<base>/<item> and POST /<base>:batchDelete (`[{"item"}]`) of a resource addressed by its item
 * alone (groups, clients): `remove` deletes the items and says how many existed.
 */
export function deleteRoutes(
  base: string,
  remove: (items: string[]) => number,
  doc: { tags: string[]; path: string; one: string; several: string; noun: string },
) {
  const { tags } = doc;
  return new Elysia({ name: `${base}-delete` })
    .delete(`/${base}/*`, ({ request }) => deleted(request, remove([pathItem(request, base)])), {
      detail: piholeParams(doc.path, { tags, summary: doc.one }),
    })
    .post(
      `/${base}:batchDelete`,
      ({ body, request }) => deleted(request, remove(batchItems(body, "none").map((b) => b.item))),
      batchDeleteOptions(tags, doc.several, `[{"item":"<${doc.noun}>"}]`),
    );
}

/** GET /<base> (every entry) and GET /<base>/<path> (those the path names; `get` answers the 404). */
export function getRoutes<S extends TSchema>(
  base: string,
  get: (ctx: { request: Request }) => unknown,
  response: S,
  doc: { tags: string[]; path: string; every: string; some: string },
) {
  const answer = (ctx: { request: Request }) => get(ctx) as Static<S>;
  return new Elysia({ name: `${base}-get` })
    .get(`/${base}`, answer, { response, detail: piholeParams(doc.path, { tags: doc.tags, summary: doc.every }) })
    .get(`/${base}/*`, answer, { response, detail: piholeParams(doc.path, { tags: doc.tags, summary: doc.some }) });
}
