// What a route says about itself for the reference beyond its schemas, kept in its `detail` like
// the rest of its documentation: the statuses it answers besides the generic ones, and examples.
// Each example is a real request with the status (and reply) it gets: the docs page shows it as a
// curl command and test/api/docs.test.ts sends it to a real server.
import type { DocumentDecoration } from "elysia";

const KEY = "x-moat-docs";

export interface DocExample {
  summary: string;
  /** the path as sent (path items filled in); the route's own path when absent */
  path?: string;
  query?: Record<string, string>;
  body?: unknown;
  /** send a valid session with the request (default: when the route needs one) */
  session?: boolean;
  /** the server must have a password set (default) or none */
  passwordSet?: boolean;
  /** only in this mode (webserver.api.piholeCompat) */
  compat?: boolean;
  status: number;
  /** the reply without `took`; values of volatile members (sid, csrf, validity, ids, times) are only type-checked */
  response?: unknown;
}

export interface RouteDocs {
  /** statuses this route answers besides 400 (validation), 401 (no session) and its success */
  responses?: Record<number, string>;
  examples?: DocExample[];
  /** the reply's media type when it is not JSON */
  replyType?: string;
  /** the body's media type when it is not JSON */
  bodyType?: string;
  bodyOptional?: boolean;
  /** the route takes input but never rejects it with 400 */
  noValidationError?: boolean;
  /**
   * The reply's schema, for the reference only, where Elysia cannot be given it as `response`:
   * Elysia compiles a reply schema into a cleaner with exact-mirror, which writes object keys into
   * generated code unquoted unless they hold a space, "-", "." or a bracket, so Pi-hole's "%mem",
   * "%cpu" and "%used" make it fail, and Elysia then prints the whole schema to the log.
   */
  reply?: unknown;
}

export function documented(detail: DocumentDecoration, docs: RouteDocs): DocumentDecoration {
  return { ...detail, [KEY]: docs } as DocumentDecoration;
}

export function docsOf(detail: unknown): RouteDocs {
  return ((detail as Record<string, unknown> | undefined)?.[KEY] as RouteDocs | undefined) ?? {};
}
