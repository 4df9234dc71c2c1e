// The error envelope ({error: {key, message, hint}, took}) and the one place error keys and messages are spelled.
import { t } from "elysia";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly key: string,
    message: string,
    readonly hint: unknown = null,
    /** extra top-level members (e.g. a `session` object on some auth errors) */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const Errors = {
  notFound: (uri: string) => new ApiError(404, "not_found", "Not found", uri),
  unauthorized: (message = "Unauthorized", hint: string | null = null) =>
    new ApiError(401, "unauthorized", message, hint),
  forbidden: (message: string, hint: string | null = null) => new ApiError(403, "forbidden", message, hint),
  badRequest: (message: string, hint: unknown = null) => new ApiError(400, "bad_request", message, hint),
  noBody: () => new ApiError(400, "bad_request", "No request body data", null),
  /** a list address gravity must never download from (src/net/address-rule.ts) */
  listAddressRefused: (why: string) => new ApiError(400, "bad_request", "This list address is not allowed", why),
  invalidJson: (at: string) =>
    new ApiError(400, "bad_request", "Invalid request body data (no valid JSON), error at hint", at),
  bodyTooLarge: (limit: number) =>
    new ApiError(413, "payload_too_large", `Request body larger than ${limit} bytes`, `limit: ${limit} bytes`),
  internal: (message = "Internal server error", hint: string | null = null) =>
    new ApiError(500, "internal_error", message, hint),
  database: (message: string, hint: unknown = null, status = 400) =>
    new ApiError(status, "database_error", message, hint),
  diskFull: (cause: string) =>
    new ApiError(507, "database_error", "The disk is full: no space left to save the change", cause),
  fleetUnavailable: (hint: string) =>
    new ApiError(
      503,
      "fleet_unavailable",
      "The fleet's query history (PostgreSQL) cannot be reached; node=local answers from this node's own log",
      hint,
    ),
} as const;

/** The most of a text an error's message or hint repeats (a 12 KB domain is not sent back whole). */
const ECHO_MAX = 500;

/** `s`, or its first `max` characters and how long it was. */
export function capEcho(s: string, max = ECHO_MAX): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length} characters)`;
}

/**
 * An error's hint with every string in it capped (one level into objects and arrays): the error
 * reply's last step, so no route echoes a whole input, whatever it puts in its hint.
 */
export function cappedHint(hint: unknown): unknown {
  if (typeof hint === "string") return capEcho(hint);
  if (Array.isArray(hint)) return hint.map((x) => (typeof x === "string" ? capEcho(x) : x));
  if (hint && typeof hint === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(hint)) out[k] = typeof v === "string" ? capEcho(v) : v;
    return out;
  }
  return hint;
}

/** SQLite's SQLITE_FULL and the file system's ENOSPC: the disk (or the database's quota) is full. */
export function isDiskFull(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  if (!err || typeof err !== "object") return false;
  if (err.code === "SQLITE_FULL" || err.code === "ENOSPC") return true;
  return typeof err.message === "string" && /database or disk is full|no space left on device/i.test(err.message);
}

/** The error envelope as a schema, for the routes' documented replies. */
export const ErrorReply = t.Object({
  error: t.Object({
    key: t.String({ description: "machine-readable reason, e.g. bad_request, unauthorized, not_found" }),
    message: t.String({ description: "what went wrong, in words" }),
    hint: t.Unknown({ description: "more detail: a string, an object or null" }),
  }),
});
