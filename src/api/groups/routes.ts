// /api/groups/{name}: groups addressed by name, rename through PUT, batch delete; group 0
// "Default" is re-created by the schema's trigger whenever it is deleted, as in Pi-hole.
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import type { Runtime } from "../../core/runtime.ts";
import { ApiError, Errors } from "../core/errors.ts";
import {
  absent, batchItems, boolInt, commentOf, compat, createdReply, duplicateError, encodeItem, isUniqueViolation, itemsOf,
  newProcessed, pathParts, sqlMessage, write,
} from "../lists/common.ts";

interface Row {
  id: number;
  name: string;
  description: string | null;
  enabled: number;
  date_added: number;
  date_modified: number;
}

function list(rt: Runtime, name: string | null) {
  const rows = rt.gravityDb
    .query(`SELECT id, name, description, enabled, date_added, date_modified FROM "group" ${name !== null ? "WHERE name = ?" : ""} ORDER BY id`)
    .all(...(name !== null ? [name] : [])) as Row[];
  return rows.map((r) => ({ name: r.name, comment: r.description, enabled: r.enabled === 1, id: r.id, date_added: r.date_added, date_modified: r.date_modified }));
}

const Group = t.Object({
  name: t.String(),
  comment: t.Union([t.String(), t.Null()]),
  enabled: t.Boolean(),
  id: t.Integer(),
  date_added: t.Integer(),
  date_modified: t.Integer(),
});
const Processed = t.Object({ success: t.Array(t.Object({ item: t.String() })), errors: t.Array(t.Object({ item: t.String(), error: t.String() })) });
const GroupsReply = t.Object({ groups: t.Array(Group), processed: t.Optional(Processed) });
/** What a GET answers (writes add `processed`). */
const GroupsList = t.Object({ groups: t.Array(Group) });
const tags = ["Group management"];
const uriError = (m: string) => new ApiError(400, "uri_error", m, null);

export function groupRoutes(rt: Runtime) {
  const get = ({ request }: { request: Request }) => {
    const { item } = pathParts(request, "groups", 0);
    const groups = list(rt, item);
    if (item !== null && groups.length === 0) absent(rt, request);
    return { groups };
  };
  return new Elysia({ name: "groups" })
    .get("/groups", get, { response: GroupsList, detail: piholeParams("/{name}", { tags, summary: "All groups" }) })
    .get("/groups/*", get, { response: GroupsList, detail: piholeParams("/{name}", { tags, summary: "One group by name" }) })
    .post(
      "/groups",
      ({ request, body }) => {
        const names = itemsOf(body, "name", request);
        const enabled = boolInt(body.enabled);
        const processed = newProcessed();
        write(rt, "groups added", () => {
          const ins = rt.gravityDb.query(`INSERT INTO "group" (name, enabled, description) VALUES (?, ?, ?)`);
          for (const name of names) {
            try {
              ins.run(name, enabled, commentOf(body));
              processed.success.push({ item: name });
            } catch (e) {
              if (!isUniqueViolation(e)) throw e;
              if (!compat(rt)) throw duplicateError(name, enabled === 1, e);
              processed.errors.push({ item: name, error: sqlMessage(e) });
            }
          }
        });
        const last = names[names.length - 1]!;
        return createdReply(rt, request, { groups: list(rt, last), processed }, `/api/groups/${encodeItem(last)}`);
      },
      {
        body: t.Object(
          {
            name: t.Optional(t.Unknown({ description: "string or array of strings" })),
            comment: t.Optional(t.Union([t.String(), t.Null()])),
            enabled: t.Optional(t.Boolean()),
          },
          { additionalProperties: true },
        ),
        detail: documented({ tags, summary: "Create one or more groups" }, { responses: { 201: "Created (Location names the last item)", 400: "Bad request or a duplicate (400 database_error; with webserver.api.piholeCompat: 201 with processed.errors)" } }),
      },
    )
    .post("/groups/*", () => {
      throw uriError("Invalid request: Specify item in payload, not as URI parameter");
    }, { detail: { tags, summary: "(rejected: the name belongs in the body)", hide: true } })
    .put(
      "/groups/*",
      ({ request, body }) => {
        const { item } = pathParts(request, "groups", 0);
        if (item === null) throw uriError("Invalid request: Specify item in URI");
        const processed = newProcessed();
        const enabled = boolInt(body.enabled);
        const newName = typeof body.name === "string" && body.name !== "" ? body.name : item;
        write(rt, "group updated", () => {
          const db = rt.gravityDb;
          try {
            if (newName !== item) {
              const n = db.query(`UPDATE "group" SET name = ?, enabled = ?, description = ? WHERE name = ?`).run(newName, enabled, commentOf(body), item).changes;
              if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
            } else {
              db.query(`INSERT INTO "group" (name, enabled, description) VALUES (?1, ?2, ?3) ON CONFLICT(name) DO UPDATE SET enabled = ?2, description = ?3`).run(item, enabled, commentOf(body));
            }
            processed.success.push({ item });
          } catch (e) {
            if (!isUniqueViolation(e)) throw e;
            if (!compat(rt)) throw duplicateError(newName, enabled === 1, e);
            processed.errors.push({ item, error: sqlMessage(e) });
          }
        });
        return { groups: list(rt, newName), processed };
      },
      {
        body: t.Object(
          { name: t.Optional(t.String({ description: "new name (rename)" })), comment: t.Optional(t.Union([t.String(), t.Null()])), enabled: t.Optional(t.Boolean()) },
          { additionalProperties: true },
        ),
        response: GroupsReply,
        detail: documented(piholeParams("/{name}", { tags, summary: "Create or update a group; body name renames it" }), { responses: { 400: "Bad request, or the new name is taken", 404: "Renaming a group that does not exist" } }),
      },
    )
    .delete(
      "/groups/*",
      ({ request }) => {
        const { item } = pathParts(request, "groups", 0);
        if (item === null) throw uriError("Invalid request: Specify item in URI");
        const n = write(rt, "group deleted", () => rt.gravityDb.query(`DELETE FROM "group" WHERE name = ?`).run(item).changes);
        if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      { detail: piholeParams("/{name}", { tags, summary: "Delete a group (204; 404 when absent). Deleting Default re-creates it empty" }) },
    )
    .post(
      "/groups:batchDelete",
      ({ body, request }) => {
        const items = batchItems(body, "none");
        const del = rt.gravityDb.query(`DELETE FROM "group" WHERE name = ?`);
        const n = write(rt, "groups deleted", () => items.reduce((s, b) => s + del.run(b.item).changes, 0));
        if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      { body: t.Unknown({ description: '[{"item":"<name>"}]' }), detail: documented({ tags, summary: "Delete several groups" }, { responses: { 204: "Deleted", 400: "The body is not a list of items", 404: "None of the items exists" } }) },
    );
}
