// /api/groups/{name}: groups addressed by name, rename through PUT, batch delete; group 0
// "Default" is re-created by the schema's trigger whenever it is deleted, as in Pi-hole.
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";
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
} from "../lists/common.ts";
import { MAX_LEN, checkLength, commentField, itemsField } from "../lists/input.ts";
import { addGroups, deleteGroups, putGroup } from "../../lists/groups.ts";

function list(rt: ApiDeps, name: string | null) {
  return rt.lists.groupRows(name).map((r) => ({
    name: r.name,
    comment: r.description,
    enabled: r.enabled === 1,
    id: r.id,
    date_added: r.date_added,
    date_modified: r.date_modified,
  }));
}

const Group = t.Object({
  name: t.String(),
  comment: t.Union([t.String(), t.Null()]),
  enabled: t.Boolean(),
  id: t.Integer(),
  date_added: t.Integer(),
  date_modified: t.Integer(),
});
const Processed = t.Object({
  success: t.Array(t.Object({ item: t.String() })),
  errors: t.Array(t.Object({ item: t.String(), error: t.String() })),
});
const GroupsReply = t.Object({ groups: t.Array(Group), processed: t.Optional(Processed) });
/** What a GET answers (writes add `processed`). */
const GroupsList = t.Object({ groups: t.Array(Group) });
const tags = ["Group management"];
const uriError = (m: string) => new ApiError(400, "uri_error", m, null);

export function groupRoutes(rt: ApiDeps) {
  const get = ({ request }: { request: Request }) => {
    const { item } = pathParts(request, "groups", 0);
    const groups = list(rt, item);
    if (item !== null && groups.length === 0) absent(rt, request);
    return { groups };
  };
  return new Elysia({ name: "groups" })
    .get("/groups", get, { response: GroupsList, detail: piholeParams("/{name}", { tags, summary: "All groups" }) })
    .get("/groups/*", get, {
      response: GroupsList,
      detail: piholeParams("/{name}", { tags, summary: "One group by name" }),
    })
    .post(
      "/groups",
      ({ request, body }) => {
        const names = itemsOf(body, "name", request);
        const enabled = body.enabled ?? true;
        const processed = newProcessed();
        processed.success = addGroups(rt, names, enabled, commentOf(body), onDuplicate(rt, processed, enabled)).map(
          (item) => ({ item }),
        );
        const last = names[names.length - 1]!;
        return createdReply(rt, request, { groups: list(rt, last), processed }, `/api/groups/${encodeItem(last)}`);
      },
      {
        body: t.Object(
          {
            name: itemsField("name", MAX_LEN.name, "the group's name"),
            comment: commentField,
            enabled: t.Optional(t.Boolean()),
          },
          { additionalProperties: true },
        ),
        detail: documented(
          { tags, summary: "Create one or more groups" },
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
      "/groups/*",
      () => {
        throw uriError("Invalid request: Specify item in payload, not as URI parameter");
      },
      { detail: { tags, summary: "(rejected: the name belongs in the body)", hide: true } },
    )
    .put(
      "/groups/*",
      ({ request, body }) => {
        const { item } = pathParts(request, "groups", 0);
        if (item === null) throw uriError("Invalid request: Specify item in URI");
        checkLength(item, "name", MAX_LEN.name);
        const processed = newProcessed();
        const enabled = body.enabled ?? true;
        const newName = typeof body.name === "string" && body.name !== "" ? body.name : item;
        const put = { name: item, newName, enabled, description: commentOf(body) };
        if (listsWrite(request, () => putGroup(rt, put, onDuplicate(rt, processed, enabled, item))))
          processed.success.push({ item });
        return { groups: list(rt, newName), processed };
      },
      {
        body: t.Object(
          {
            name: t.Optional(
              t.String({
                maxLength: MAX_LEN.name,
                description: `new name (rename), at most ${MAX_LEN.name} characters`,
                error: `Invalid request: "name" longer than ${MAX_LEN.name} characters`,
              }),
            ),
            comment: commentField,
            enabled: t.Optional(t.Boolean()),
          },
          { additionalProperties: true },
        ),
        response: GroupsReply,
        detail: documented(
          piholeParams("/{name}", { tags, summary: "Create or update a group; body name renames it" }),
          { responses: { 400: "Bad request, or the new name is taken", 404: "Renaming a group that does not exist" } },
        ),
      },
    )
    .delete(
      "/groups/*",
      ({ request }) => {
        const { item } = pathParts(request, "groups", 0);
        if (item === null) throw uriError("Invalid request: Specify item in URI");
        const n = deleteGroups(rt, [item]);
        if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      {
        detail: piholeParams("/{name}", {
          tags,
          summary: "Delete a group (204; 404 when absent). Deleting Default re-creates it empty",
        }),
      },
    )
    .post(
      "/groups:batchDelete",
      ({ body, request }) => {
        const items = batchItems(body, "none");
        const n = deleteGroups(
          rt,
          items.map((b) => b.item),
        );
        if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      {
        body: t.Unknown({ description: '[{"item":"<name>"}]' }),
        detail: documented(
          { tags, summary: "Delete several groups" },
          { responses: { 204: "Deleted", 400: "The body is not a list of items", 404: "None of the items exists" } },
        ),
      },
    );
}
