// /api/domains: single allow/deny entries, exact names and regexes (Pi-hole's domains.yaml). The item
// is read from the raw path so that `/`, `+` and spaces arrive as Pi-hole decodes them.
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import type { Runtime } from "../../core/runtime.ts";
import { ApiError, Errors } from "../core/errors.ts";
import {
  absent, batchItems, boolInt, commentOf, compat, createdReply, duplicateError, encodeItem, groupMap, isUniqueViolation,
  itemsOf, newProcessed, pathParts, rejectWhitespace, setGroups, sqlMessage, write, type Processed,
} from "../lists/common.ts";
import { normaliseExact, unicodeOf, validateRegex } from "./validate.ts";

export const DOMAIN_TYPES = ["allow", "deny"] as const;
export const DOMAIN_KINDS = ["exact", "regex"] as const;
type DType = (typeof DOMAIN_TYPES)[number];
type DKind = (typeof DOMAIN_KINDS)[number];

/** domainlist.type: 0 allow exact, 1 deny exact, 2 allow regex, 3 deny regex */
export const typeCode = (type: DType, kind: DKind) => (type === "allow" ? 0 : 1) + (kind === "regex" ? 2 : 0);
const typeName = (code: number): DType => (code % 2 === 0 ? "allow" : "deny");
const kindName = (code: number): DKind => (code >= 2 ? "regex" : "exact");

interface Target {
  codes: number[];
  /** exactly one list (writable) */
  type?: DType;
  kind?: DKind;
  item: string | null;
}

const isType = (s: string | undefined): s is DType => s === "allow" || s === "deny";
const isKind = (s: string | undefined): s is DKind => s === "exact" || s === "regex";

/** /api/domains[/type[/kind]][/item]; /exact and /regex are aggregates too */
function target(request: Request): Target {
  const { segments, item } = pathParts(request, "domains", 2);
  const [a, b] = segments;
  if (isType(a) && isKind(b)) return { codes: [typeCode(a, b)], type: a, kind: b, item };
  const rest = (from: number) => {
    const parts = [segments.slice(from).join("/"), item].filter((x) => x !== null && x !== "");
    return parts.length ? parts.join("/") : null;
  };
  if (isType(a)) return { codes: [typeCode(a, "exact"), typeCode(a, "regex")], item: rest(1) };
  if (isKind(a)) return { codes: [typeCode("allow", a), typeCode("deny", a)], item: rest(1) };
  return { codes: [0, 1, 2, 3], item: rest(0) };
}

export interface DomainRow {
  id: number;
  type: number;
  domain: string;
  enabled: number;
  comment: string | null;
  date_added: number;
  date_modified: number;
}

function list(rt: Runtime, codes: number[], item: string | null) {
  const db = rt.gravityDb;
  const where = `type IN (${codes.join(",")})` + (item !== null ? " AND domain = ?" : "");
  const rows = db.query(`SELECT id, type, domain, enabled, comment, date_added, date_modified FROM domainlist WHERE ${where} ORDER BY id`).all(...(item !== null ? [item] : [])) as DomainRow[];
  const groups = groupMap(db, "domainlist_by_group", "domainlist_id");
  return rows.map((r) => domainEntry(r, groups));
}

/** A domainlist row as the API shows it (also used by /api/search). */
export function domainEntry(r: DomainRow, groups: Map<number, number[]>) {
  return {
    domain: r.domain,
    unicode: unicodeOf(r.domain),
    type: typeName(r.type),
    kind: kindName(r.type),
    comment: r.comment,
    groups: groups.get(r.id) ?? [],
    enabled: r.enabled === 1,
    id: r.id,
    date_added: r.date_added,
    date_modified: r.date_modified,
  };
}

function normaliseAll(items: string[], kind: DKind): string[] {
  if (kind === "regex") {
    for (const i of items) validateRegex(i);
    return items;
  }
  rejectWhitespace(items);
  return items.map(normaliseExact);
}

const writable = (tg: Target): tg is Target & { type: DType; kind: DKind } => tg.type !== undefined && tg.kind !== undefined;
const uriError = (message: string) => new ApiError(400, "uri_error", message, null);

export const DomainEntry = t.Object({
  domain: t.String({ description: "as stored: lowercase punycode for exact entries" }),
  unicode: t.String(),
  type: t.Union([t.Literal("allow"), t.Literal("deny")]),
  kind: t.Union([t.Literal("exact"), t.Literal("regex")]),
  comment: t.Union([t.String(), t.Null()]),
  groups: t.Array(t.Integer()),
  enabled: t.Boolean(),
  id: t.Integer(),
  date_added: t.Integer(),
  date_modified: t.Integer(),
});
const ProcessedSchema = t.Object({
  success: t.Array(t.Object({ item: t.String() })),
  errors: t.Array(t.Object({ item: t.String(), error: t.String() })),
});
const DomainsReply = t.Object({ domains: t.Array(DomainEntry), processed: t.Optional(ProcessedSchema) });
/** What a GET answers (writes add `processed`). */
const DomainsList = t.Object({ domains: t.Array(DomainEntry) });
const PostBody = t.Object(
  {
    domain: t.Optional(t.Unknown({ description: "one domain/regex (string) or several (array)" })),
    comment: t.Optional(t.Union([t.String(), t.Null()])),
    groups: t.Optional(t.Array(t.Integer(), { description: "replaces the group links (default: group 0)" })),
    enabled: t.Optional(t.Boolean({ default: undefined })),
  },
  { additionalProperties: true },
);
const PutBody = t.Object(
  {
    comment: t.Optional(t.Union([t.String(), t.Null()])),
    groups: t.Optional(t.Array(t.Integer())),
    enabled: t.Optional(t.Boolean()),
    type: t.Optional(t.String({ description: "current type when moving the entry" })),
    kind: t.Optional(t.String({ description: "current kind when moving the entry" })),
  },
  { additionalProperties: true },
);

const tags = ["Domain management"];

export function domainRoutes(rt: Runtime) {
  const reply = (tg: { type: DType; kind: DKind }, last: string, processed: Processed) => ({
    domains: list(rt, [typeCode(tg.type, tg.kind)], last),
    processed,
  });

  const get = ({ request }: { request: Request }) => {
    const tg = target(request);
    const domains = list(rt, tg.codes, tg.item);
    if (tg.item !== null && domains.length === 0) absent(rt, request);
    return { domains };
  };

  return new Elysia({ name: "domains" })
    .get("/domains", get, { response: DomainsList, detail: piholeParams("/{type}/{kind}/{domain}", { tags, summary: "All domain entries" }) })
    .get("/domains/*", get, { response: DomainsList, detail: piholeParams("/{type}/{kind}/{domain}", { tags, summary: "Domain entries of a list (/allow, /deny/regex, …), or one entry" }) })
    .post(
      "/domains/*",
      ({ request, body }) => {
        const tg = target(request);
        if (!writable(tg)) throw uriError("Invalid request: Specify list to modify more precisely");
        if (tg.item !== null) throw uriError("Invalid request: Specify item in payload, not as URI parameter");
        const items = normaliseAll(itemsOf(body, "domain", request), tg.kind);
        const enabled = boolInt(body.enabled);
        const comment = commentOf(body);
        const code = typeCode(tg.type, tg.kind);
        const processed = newProcessed();
        const db = rt.gravityDb;
        write(rt, "domains added", () => {
          const ins = db.query("INSERT INTO domainlist (type, domain, enabled, comment) VALUES (?, ?, ?, ?) RETURNING id");
          for (const item of items) {
            let id: number;
            try {
              id = (ins.get(code, item, enabled, comment) as { id: number }).id;
            } catch (e) {
              if (!isUniqueViolation(e)) throw e;
              if (!compat(rt)) throw duplicateError(item, enabled === 1, e);
              processed.errors.push({ item, error: sqlMessage(e) });
              continue;
            }
            if (body.groups) setGroups(db, "domainlist_by_group", "domainlist_id", id, body.groups);
            processed.success.push({ item });
          }
        });
        const last = items[items.length - 1]!;
        return createdReply(rt, request, reply(tg, last, processed), `/api/domains/${tg.type}/${tg.kind}/${encodeItem(last)}`);
      },
      { body: PostBody, detail: documented(piholeParams("/{type}/{kind}", { tags, summary: "Add one or more entries to a list" }), {
        responses: { 201: "Created (Location names the last entry)", 400: "Bad request, a bad domain or regex, or a duplicate (database_error; with webserver.api.piholeCompat: 201 with processed.errors)" },
        examples: [{ summary: "deny a domain", path: "/api/domains/deny/exact", body: { domain: "ads.example.com", comment: "from the docs" }, status: 201 }],
      }) },
    )
    .put(
      "/domains/*",
      ({ request, body }) => {
        const tg = target(request);
        if (!writable(tg)) throw uriError("Invalid request: Specify list to modify more precisely");
        if (tg.item === null) throw uriError("Invalid request: Specify item in URI");
        const [item] = normaliseAll([tg.item], tg.kind);
        const processed = newProcessed();
        const newCode = typeCode(tg.type, tg.kind);
        let oldCode = newCode;
        if ((body.type === undefined) !== (body.kind === undefined)) {
          processed.errors.push({ item: item!, error: body.type === undefined ? "Field type missing from request" : "Field oldkind missing from request" });
          return { domains: list(rt, [newCode], item!), processed };
        }
        if (body.type !== undefined) {
          const ot = body.type.toLowerCase(), ok = body.kind!.toLowerCase();
          if (!isType(ot) || !isKind(ok)) {
            processed.errors.push({ item: item!, error: "Cannot interpret type/kind" });
            return { domains: list(rt, [newCode], item!), processed };
          }
          oldCode = typeCode(ot, ok);
        }
        const enabled = boolInt(body.enabled);
        const db = rt.gravityDb;
        write(rt, "domain updated", () => {
          let id: number;
          try {
            id = (
              db
                .query(
                  `INSERT INTO domainlist (domain, type, enabled, comment) VALUES (?1, ?2, ?3, ?4)
                   ON CONFLICT(domain, type) DO UPDATE SET type = ?5, enabled = ?3, comment = ?4 RETURNING id`,
                )
                .get(item!, oldCode, enabled, commentOf(body), newCode) as { id: number }
            ).id;
          } catch (e) {
            if (!isUniqueViolation(e)) throw e;
            if (!compat(rt)) throw duplicateError(item!, enabled === 1, e);
            processed.errors.push({ item: item!, error: sqlMessage(e) });
            return;
          }
          // a fresh row was inserted at the old location: move it
          if (oldCode !== newCode) db.query("UPDATE domainlist SET type = ? WHERE id = ? AND type = ?").run(newCode, id, oldCode);
          if (body.groups) setGroups(db, "domainlist_by_group", "domainlist_id", id, body.groups);
          processed.success.push({ item: item! });
        });
        return reply(tg, item!, processed);
      },
      { body: PutBody, response: DomainsReply, detail: piholeParams("/{type}/{kind}/{domain}", { tags, summary: "Create or replace an entry; body type+kind name its current list to move it" }) },
    )
    .delete(
      "/domains/*",
      ({ request }) => {
        const tg = target(request);
        if (!writable(tg)) throw uriError("Invalid request: Specify list to modify more precisely");
        if (tg.item === null) throw uriError("Invalid request: Specify item in URI");
        const n = write(rt, "domain deleted", () => rt.gravityDb.query("DELETE FROM domainlist WHERE domain = ? AND type = ?").run(tg.item, typeCode(tg.type, tg.kind)).changes);
        if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      { detail: piholeParams("/{type}/{kind}/{domain}", { tags, summary: "Delete an entry (204; 404 when absent)" }) },
    )
    .post(
      "/domains:batchDelete",
      ({ body, request }) => {
        const items = batchItems(body, "type+kind");
        for (const b of items)
          if (!isType(b.type) || !isKind(b.kind))
            throw Errors.badRequest('Invalid request: Batch delete requires an valid combination of "type" and "kind" for each object');
        const del = rt.gravityDb.query("DELETE FROM domainlist WHERE domain = ? AND type = ?");
        const n = write(rt, "domains deleted", () => items.reduce((sum, b) => sum + del.run(b.item, typeCode(b.type as DType, b.kind as DKind)).changes, 0));
        if (n === 0) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      { body: t.Unknown({ description: '[{"item","type":"allow|deny","kind":"exact|regex"}]' }), detail: documented({ tags, summary: "Delete several entries in one transaction" }, { responses: { 204: "Deleted", 400: "The body is not a list of items", 404: "None of the items exists" } }) },
    );
}
