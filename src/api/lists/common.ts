// What the four list resources (domains, groups, clients, lists) share: reading the item from the
// raw path the way Pi-hole decodes it, the per-item `processed` report, the replies to src/lists/'s
// refusals (the duplicate reply of Moat, or of Pi-hole with webserver.api.piholeCompat,
// docs/pihole-differences.md), and batch-delete bodies. The tables themselves are src/lists/'s.
import type { Context } from "../../core/runtime.ts";
import { ListsError, type OnDuplicate } from "../../lists/store.ts";
import { type ApiError, Errors, capEcho } from "../core/errors.ts";
import { jsonResponse } from "../core/reply.ts";
import { ITEM_WORDS } from "./input.ts";
import { requestState } from "../core/request-state.ts";

export interface Processed {
  success: Array<{ item: string }>;
  errors: Array<{ item: string; error: string }>;
}

export const newProcessed = (): Processed => ({ success: [], errors: [] });

/** Pi-hole's router decodes the path in form mode: `+` is a space, `%2F` a slash (as Pi-hole's web server does). */
function formDecode(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw.replace(/\+/g, " ");
  }
}

/**
 * The path segments after `/api/<resource>/`, the last `fixed` of which are plain segments and the
 * rest (slashes included) the item, decoded. `/api/domains/allow/exact/a%2Fb` with fixed 2 gives
 * { segments: ["allow","exact"], item: "a/b" }.
 */
export function pathParts(
  request: Request,
  resource: string,
  fixed: number,
): { segments: string[]; item: string | null } {
  const path = new URL(request.url).pathname;
  const base = `/api/${resource}`;
  let rest = path.startsWith(base) ? path.slice(base.length) : "";
  if (rest.startsWith("/")) rest = rest.slice(1);
  const segments: string[] = [];
  while (segments.length < fixed && rest !== "") {
    const i = rest.indexOf("/");
    segments.push(formDecode(i < 0 ? rest : rest.slice(0, i)));
    rest = i < 0 ? "" : rest.slice(i + 1);
  }
  return { segments, item: rest === "" ? null : formDecode(rest) };
}

/** Elysia hands an object schema `{}` for an empty body; the request's length tells them apart. */
function isEmptyBody(request: Request, body: unknown): boolean {
  const len = request.headers.get("content-length");
  return (
    (len === null || len === "0") &&
    !request.headers.has("transfer-encoding") &&
    typeof body === "object" &&
    Object.keys(body as object).length === 0
  );
}

export const compat = (rt: Context) => rt.config.current.webserver.api.piholeCompat;

/** `domain`/`name`/`client`/`address`: a non-empty string or a non-empty array of strings. */
export function itemsOf(body: unknown, field: string, request?: Request): string[] {
  if (body === null || body === undefined || (request && isEmptyBody(request, body))) throw Errors.noBody();
  const v = body && typeof body === "object" ? (body as Record<string, unknown>)[field] : undefined;
  const list =
    typeof v === "string"
      ? [v]
      : Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string")
        ? (v as string[])
        : null;
  if (!list)
    throw Errors.badRequest(`Invalid request: No valid "${field}" in payload (must be either string or array)`);
  // Pi-hole's words above are what its clients look for; an empty text is what a person sends from a
  // form, and is told what to write instead
  if (list.some((s) => s === ""))
    throw Errors.badRequest(
      `${ITEM_WORDS[field as keyof typeof ITEM_WORDS] ?? `Enter the ${field}`}: it cannot be empty`,
    );
  return list;
}

export function rejectWhitespace(items: readonly string[]): void {
  for (const item of items)
    if (/[ \t\r\n]/.test(item))
      throw Errors.badRequest("Spaces, newlines and tabs are not allowed in domains and URLs", item);
}

/** comment: empty or absent becomes NULL */
export function commentOf(body: { comment?: string | null }): string | null {
  return typeof body.comment === "string" && body.comment !== "" ? body.comment : null;
}

/** the SQLite message without bun's prefix, e.g. "UNIQUE constraint failed: domainlist.domain, domainlist.type" */
const sqlMessage = (e: unknown) => (e instanceof Error ? e.message.replace(/^SQLiteError:\s*/, "") : String(e));

/**
 * Moat's reply to adding an entry that exists: 400 with hint {argument, enabled, sql_msg} as the spec
 * has it, its message saying why in words (docs/pihole-differences.md).
 */
function duplicateError(item: string, enabled: boolean, e: unknown): ApiError {
  return Errors.database(`Could not add to gravity database: "${capEcho(item, 100)}" already exists`, {
    argument: item,
    enabled,
    sql_msg: sqlMessage(e),
  });
}

/** A duplicate aborts the write with Moat's 400, or (piholeCompat) is listed in `processed.errors` under `reportAs`. */
export function onDuplicate(rt: Context, processed: Processed, enabled: boolean, reportAs?: string): OnDuplicate {
  return (item, e) => {
    if (!compat(rt)) throw duplicateError(item, enabled, e);
    processed.errors.push({ item: reportAs ?? item, error: sqlMessage(e) });
  };
}

/** Runs a write of src/lists/ and turns its refusals into Pi-hole's replies. */
export function listsWrite<T>(request: Request, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof ListsError)) throw e;
    if (e.kind === "unknown-group") throw Errors.badRequest("Invalid request: group does not exist", e.detail);
    throw Errors.notFound(new URL(request.url).pathname);
  }
}

interface BatchItem {
  item: string;
  type?: string;
  kind?: string;
}

/** `[{item, ...}]` with Pi-hole's exact messages */
export function batchItems(body: unknown, needTypeKind: "none" | "type" | "type+kind"): BatchItem[] {
  if (body === null || body === undefined) throw Errors.noBody();
  if (!Array.isArray(body) || body.length === 0 || !body.every((x) => x && typeof x === "object" && !Array.isArray(x)))
    throw Errors.badRequest("Invalid request: Batch delete requires an array of objects");
  return body.map((raw) => {
    const o = raw as Record<string, unknown>;
    if (typeof o.item !== "string")
      throw Errors.badRequest('Invalid request: Batch delete requires an array of objects with "item" as string');
    if (needTypeKind !== "none") {
      if (typeof o.type !== "string" || (needTypeKind === "type+kind" && typeof o.kind !== "string"))
        throw Errors.badRequest(
          `Invalid request: Batch delete requires an array of objects with ${needTypeKind === "type" ? '"type"' : '"type" and "kind"'} as string`,
        );
    }
    return {
      item: o.item,
      type: typeof o.type === "string" ? o.type.toLowerCase() : undefined,
      kind: typeof o.kind === "string" ? o.kind.toLowerCase() : undefined,
    };
  });
}

/** 201 + Location for creations, as Moat's API defines it (built here: the core maps only bodies) */
export function createdReply(rt: Context, request: Request, body: Record<string, unknown>, location: string): Response {
  const st = requestState(request);
  return jsonResponse(body, 201, st.started, rt.config.current.webserver.api.prettyJSON, {
    ...st.replyHeaders,
    location,
  });
}

/** GET of an item that is absent: 404, or Pi-hole's 200 with an empty array (compat). */
export function absent(rt: Context, request: Request): void {
  if (!compat(rt)) throw Errors.notFound(new URL(request.url).pathname);
}

export const encodeItem = (s: string) => encodeURIComponent(s.toWellFormed());
