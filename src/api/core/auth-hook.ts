// The contract between the API core and the authentication module: the core asks, for every
// protected route, whether the request carries a valid session.
import type { ApiError } from "./errors.ts";

export interface AuthRequest {
  request: Request;
  url: URL;
  /** parsed JSON body, or null */
  body: unknown;
  ip: string;
}

export interface Authenticator {
  /** Returns the session (opaque to the core) and reply headers, or an ApiError to send. */
  authenticate(req: AuthRequest): { session: unknown; headers?: Record<string, string> } | ApiError;
}

const bodySids = new WeakMap<Request, string>();

/**
 * Remembers the body's `sid` member as parsed: route schemas strip members they do not declare
 * before the auth check runs, and any request may carry its SID in the body.
 */
export function rememberBodySid<T>(request: Request, body: T): T {
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const sid = (body as Record<string, unknown>).sid;
    if (typeof sid === "string") bodySids.set(request, sid);
  }
  return body;
}

/** The body as the authenticator should see it: the route's body, with the original `sid`. */
export function bodyForAuth(request: Request, body: unknown): unknown {
  const sid = bodySids.get(request);
  if (sid === undefined) return body;
  return { ...(body && typeof body === "object" && !Array.isArray(body) ? body : {}), sid };
}

/** Routes answered without a session (public in Pi-hole's router too). */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set([
  "/api/auth",
  "/api/info/client",
  "/api/info/login",
  "/api/docs",
  "/api/docs/json",
  "/api/docs/assets/*",
]);
