// /api/groups/{name}: groups addressed by name, rename through PUT, batch delete; group 0
// "Default" is re-created by the schema's trigger whenever it is deleted, as in Pi-hole.
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { commentOf, itemsOf, listsWrite, newProcessed, onDuplicate } from "../lists/common.ts";
import * as resource from "../lists/resource.ts";
import { MAX_LEN, checkLength, commentField, itemsField } from "../lists/input.ts";

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
  ...resource.RowStamps,
});
const { List: GroupsList, Reply: GroupsReply } = resource.replies("groups", Group);
const tags = ["Group management"];

export function groupRoutes(rt: ApiDeps) {
  return new Elysia({ name: "groups" })
    .use(
      resource.getRoutes(
        "groups",
        resource.itemGet(rt, "groups", (item) => list(rt, item)),
        GroupsList,
        {
          tags,
          path: "/{name}",
          every: "All groups",
          some: "One group by name",
        },
      ),
    )
    .post(
      "/groups",
      ({ request, body }) => {
        const names = itemsOf(body, "name", request);
        const enabled = body.enabled ?? true;
        return resource.addedReply(
          rt,
          request,
          names,
          enabled,
          (onDup) => rt.lists.addGroups(names, enabled, commentOf(body), onDup),
          (last, processed) => ({ groups: list(rt, last), processed }),
          (last) => `/api/groups/${last}`,
        );
      },
      {
        body: resource.writeBody({
          name: itemsField("name", MAX_LEN.name, "the group's name"),
          comment: commentField,
          enabled: t.Optional(t.Boolean()),
        }),
        detail: resource.addedDoc(tags, "Create one or more groups"),
      },
    )
    .post("/groups/*", ...resource.itemInPathRoute(tags, "name"))
    .put(
      "/groups/*",
      ({ request, body }) => {
        const item = resource.pathItem(request, "groups");
        checkLength(item, "name", MAX_LEN.name);
        const processed = newProcessed();
        const enabled = body.enabled ?? true;
        const newName = typeof body.name === "string" && body.name !== "" ? body.name : item;
        const put = { name: item, newName, enabled, description: commentOf(body) };
        if (listsWrite(request, () => rt.lists.putGroup(put, onDuplicate(rt, processed, enabled, item))))
          processed.success.push({ item });
        return { groups: list(rt, newName), processed };
      },
      {
        body: resource.writeBody({
          name: t.Optional(
            t.String({
              maxLength: MAX_LEN.name,
              description: `new name (rename), at most ${MAX_LEN.name} characters`,
              error: `Invalid request: "name" longer than ${MAX_LEN.name} characters`,
            }),
          ),
          comment: commentField,
          enabled: t.Optional(t.Boolean()),
        }),
        response: GroupsReply,
        detail: documented(
          piholeParams("/{name}", { tags, summary: "Create or update a group; body name renames it" }),
          { responses: { 400: "Bad request, or the new name is taken", 404: "Renaming a group that does not exist" } },
        ),
      },
    )
    .use(
      resource.deleteRoutes("groups", (names) => rt.lists.deleteGroups(names), {
        tags,
        path: "/{name}",
        one: "Delete a group (204; 404 when absent). Deleting Default re-creates it empty",
        several: "Delete several groups",
        noun: "name",
      }),
    );
}
