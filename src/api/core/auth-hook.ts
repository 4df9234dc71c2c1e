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

/** Routes answered without a session (reference §2: router require_auth = false). */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(["/api/auth", "/api/info/client", "/api/info/login", "/api/docs", "/api/docs/json", "/api/docs/assets/*"]);
