// /api/groups/{name}: groups addressed by name, rename through PUT, batch delete; group 0
// "Default" is re-created by the schema's trigger whenever it is deleted, as in Pi-hole.
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import type { Runtime } from "../../core/runtime.ts";
import {
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
import {
  addedDoc,
  batchDeleteOptions,
  deleted,
  itemInPathRoute,
  itemInUri,
  listReply,
  presentOr404,
  writeReply,
} from "../lists/resource.ts";
import { MAX_LEN, checkLength, commentField, itemsField } from "../lists/input.ts";
import { addGroups, deleteGroups, groupRows, putGroup } from "../../lists/groups.ts";

function list(rt: Runtime, name: string | null) {
  return groupRows(rt.gravityDb, name).map((r) => ({
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
const GroupsReply = writeReply("groups", Group);
const GroupsList = listReply("groups", Group);
const tags = ["Group management"];

export function groupRoutes(rt: Runtime) {
  const get = ({ request }: { request: Request }) => {
    const { item } = pathParts(request, "groups", 0);
    return { groups: presentOr404(rt, request, item, list(rt, item)) };
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
        detail: addedDoc(tags, "Create one or more groups"),
      },
    )
    .post("/groups/*", ...itemInPathRoute(tags, "name"))
    .put(
      "/groups/*",
      ({ request, body }) => {
        const item = itemInUri(pathParts(request, "groups", 0).item);
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
        const item = itemInUri(pathParts(request, "groups", 0).item);
        return deleted(request, deleteGroups(rt, [item]));
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
        return deleted(
          request,
          deleteGroups(
            rt,
            items.map((b) => b.item),
          ),
        );
      },
      batchDeleteOptions(tags, "Delete several groups", '[{"item":"<name>"}]'),
    );
}
