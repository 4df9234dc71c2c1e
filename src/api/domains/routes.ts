// /api/domains: single allow/deny entries, exact names and regexes (Pi-hole's domains.yaml). The item
// is read from the raw path so that `/`, `+` and spaces arrive as Pi-hole decodes them.
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import type { Context } from "../../core/runtime.ts";
import type { ApiDeps } from "../deps.ts";
import { Errors } from "../core/errors.ts";
import {
  compat,
  batchItems,
  commentOf,
  itemsOf,
  listsWrite,
  newProcessed,
  onDuplicate,
  pathParts,
  rejectWhitespace,
  type Processed,
} from "../lists/common.ts";
import * as resource from "../lists/resource.ts";
import { MAX_LEN, checkLength, commentField, itemsField } from "../lists/input.ts";
import { matchesEverything, normaliseExact, unicodeOf, validateRegex } from "./validate.ts";
import {
  domainKindName,
  domainTypeCode as typeCode,
  domainTypeName,
  type DomainKind as DKind,
  type DomainRow,
  type DomainType as DType,
} from "../../lists/domains.ts";

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

function list(rt: ApiDeps, codes: number[], item: string | null) {
  const groups = rt.lists.groupMap("domainlist_by_group");
  return rt.lists.domainRows(codes, item).map((r) => domainEntry(r, groups));
}

/** A domainlist row as the API shows it (also used by /api/search). */
export function domainEntry(r: DomainRow, groups: Map<number, number[]>) {
  return {
    domain: r.domain,
    unicode: unicodeOf(r.domain),
    type: domainTypeName(r.type),
    kind: domainKindName(r.type),
    ...resource.linkedFields(r, groups),
  };
}

function normaliseAll(rt: Context, items: string[], kind: DKind): string[] {
  // a literal space cannot be part of a name a query asks for: a regex with one (a wildcard typed as
  // `exa mple.com`) would never match, so it is refused like a domain with one
  rejectWhitespace(items);
  if (kind === "regex") {
    for (const i of items) validateRegex(i);
    return items;
  }
  return items.map((i) => normaliseExact(i, compat(rt)));
}

/** The warnings of the entries written (a regex matching every domain), logged and, outside compat mode, replied. */
function warningsOf(rt: Context, tg: { type: DType; kind: DKind }, processed: Processed): { warnings?: string[] } {
  if (tg.kind !== "regex") return {};
  const warnings = processed.success
    .map(({ item }) => matchesEverything(item, tg.type))
    .filter((w): w is string => w !== null);
  for (const w of warnings) rt.log("warn", `Regex ${tg.type} entry added: ${w}`);
  return warnings.length && !compat(rt) ? { warnings } : {};
}

const writable = (tg: Target): tg is Target & { type: DType; kind: DKind } =>
  tg.type !== undefined && tg.kind !== undefined;

export const DomainEntry = t.Object({
  domain: t.String({ description: "as stored: lowercase punycode for exact entries" }),
  unicode: t.String(),
  type: t.Union([t.Literal("allow"), t.Literal("deny")]),
  kind: t.Union([t.Literal("exact"), t.Literal("regex")]),
  comment: t.Union([t.String(), t.Null()]),
  groups: t.Array(t.Integer()),
  enabled: t.Boolean(),
  ...resource.RowStamps,
});
const DomainsReply = t.Object({
  domains: t.Array(DomainEntry),
  processed: t.Optional(resource.ProcessedSchema),
  warnings: t.Optional(
    t.Array(t.String(), {
      description: "what may not be meant, e.g. a regex that matches every domain (left out in compatibility mode)",
      "x-moat-only": true,
    }),
  ),
});
const DomainsList = resource.listReply("domains", DomainEntry);
const PostBody = resource.writeBody({
  domain: itemsField(
    "domain",
    MAX_LEN.regex,
    `one domain/regex or several (an exact domain: at most ${MAX_LEN.domain} characters)`,
  ),
  comment: commentField,
  groups: t.Optional(t.Array(t.Integer(), { description: "replaces the group links (default: group 0)" })),
  enabled: t.Optional(t.Boolean({ default: undefined })),
});
const PutBody = resource.writeBody({
  comment: commentField,
  groups: t.Optional(t.Array(t.Integer())),
  enabled: t.Optional(t.Boolean()),
  type: t.Optional(t.String({ description: "current type when moving the entry" })),
  kind: t.Optional(t.String({ description: "current kind when moving the entry" })),
});

const tags = ["Domain management"];

export function domainRoutes(rt: ApiDeps) {
  const reply = (tg: { type: DType; kind: DKind }, last: string, processed: Processed) => ({
    domains: list(rt, [typeCode(tg.type, tg.kind)], last),
    processed,
    ...warningsOf(rt, tg, processed),
  });

  const get = ({ request }: { request: Request }) => {
    const tg = target(request);
    return { domains: resource.presentOr404(rt, request, tg.item, list(rt, tg.codes, tg.item)) };
  };

  return new Elysia({ name: "domains" })
    .use(
      resource.getRoutes("domains", get, DomainsList, {
        tags,
        path: "/{type}/{kind}/{domain}",
        every: "All domain entries",
        some: "Domain entries of a list (/allow, /deny/regex, …), or one entry",
      }),
    )
    .post(
      "/domains/*",
      ({ request, body }) => {
        const tg = target(request);
        if (!writable(tg)) throw resource.uriError("Invalid request: Specify list to modify more precisely");
        if (tg.item !== null) throw resource.uriError("Invalid request: Specify item in payload, not as URI parameter");
        const items = normaliseAll(rt, itemsOf(body, "domain", request), tg.kind);
        const enabled = body.enabled ?? true;
        const add = {
          code: typeCode(tg.type, tg.kind),
          domains: items,
          enabled,
          comment: commentOf(body),
          groups: body.groups,
        };
        return resource.addedReply(
          rt,
          request,
          items,
          enabled,
          (onDup) => rt.lists.addDomains(add, onDup),
          (last, processed) => reply(tg, last, processed),
          (last) => `/api/domains/${tg.type}/${tg.kind}/${last}`,
        );
      },
      {
        body: PostBody,
        detail: documented(piholeParams("/{type}/{kind}", { tags, summary: "Add one or more entries to a list" }), {
          responses: {
            201: "Created (Location names the last entry)",
            400: "Bad request, a bad domain or regex, or a duplicate (database_error; with webserver.api.piholeCompat: 201 with processed.errors)",
          },
          examples: [
            {
              summary: "deny a domain",
              path: "/api/domains/deny/exact",
              body: { domain: "ads.example.com", comment: "from the docs" },
              status: 201,
            },
          ],
        }),
      },
    )
    .put(
      "/domains/*",
      ({ request, body }) => {
        const tg = target(request);
        if (!writable(tg)) throw resource.uriError("Invalid request: Specify list to modify more precisely");
        const raw = resource.itemInUri(tg.item);
        checkLength(raw, "domain", MAX_LEN.regex);
        const [item] = normaliseAll(rt, [raw], tg.kind);
        const processed = newProcessed();
        const newCode = typeCode(tg.type, tg.kind);
        let oldCode = newCode;
        if ((body.type === undefined) !== (body.kind === undefined)) {
          processed.errors.push({
            item: item!,
            error: body.type === undefined ? "Field type missing from request" : "Field oldkind missing from request",
          });
          return { domains: list(rt, [newCode], item!), processed };
        }
        if (body.type !== undefined) {
          const ot = body.type.toLowerCase(),
            ok = body.kind!.toLowerCase();
          if (!isType(ot) || !isKind(ok)) {
            processed.errors.push({ item: item!, error: "Cannot interpret type/kind" });
            return { domains: list(rt, [newCode], item!), processed };
          }
          oldCode = typeCode(ot, ok);
        }
        const enabled = body.enabled ?? true;
        const put = {
          domain: item!,
          fromCode: oldCode,
          code: newCode,
          enabled,
          comment: commentOf(body),
          groups: body.groups,
        };
        if (listsWrite(request, () => rt.lists.putDomain(put, onDuplicate(rt, processed, enabled))))
          processed.success.push({ item: item! });
        return reply(tg, item!, processed);
      },
      {
        body: PutBody,
        response: DomainsReply,
        detail: piholeParams("/{type}/{kind}/{domain}", {
          tags,
          summary: "Create or replace an entry; body type+kind name its current list to move it",
        }),
      },
    )
    .delete(
      "/domains/*",
      ({ request }) => {
        const tg = target(request);
        if (!writable(tg)) throw resource.uriError("Invalid request: Specify list to modify more precisely");
        const item = resource.itemInUri(tg.item);
        return resource.deleted(request, rt.lists.deleteDomains([{ domain: item, code: typeCode(tg.type, tg.kind) }]));
      },
      { detail: piholeParams("/{type}/{kind}/{domain}", { tags, summary: "Delete an entry (204; 404 when absent)" }) },
    )
    .post(
      "/domains:batchDelete",
      ({ body, request }) => {
        const items = batchItems(body, "type+kind");
        for (const b of items)
          if (!isType(b.type) || !isKind(b.kind))
            throw Errors.badRequest(
              'Invalid request: Batch delete requires an valid combination of "type" and "kind" for each object',
            );
        return resource.deleted(
          request,
          rt.lists.deleteDomains(
            items.map((b) => ({ domain: b.item, code: typeCode(b.type as DType, b.kind as DKind) })),
          ),
        );
      },
      resource.batchDeleteOptions(
        tags,
        "Delete several entries in one transaction",
        '[{"item","type":"allow|deny","kind":"exact|regex"}]',
      ),
    );
}
