// Session authentication over HTTP (README "Authentication"): how a request proves it holds a
// session (sid.ts's channels, the CSRF header, the client address), the session cookie, and the
// API's replies for refused logins. Who may log in and the sessions themselves: src/auth/.
import type { Context } from "../../core/runtime.ts";
import type { Auth } from "../../auth/auth.ts";
import type { NewSession, Session } from "../../auth/sessions.ts";
import type { TotpRefusal } from "../../auth/totp-guard.ts";
import { bodyForAuth, type AuthRequest, type Authenticator } from "../core/auth-hook.ts";
import { ApiError, Errors } from "../core/errors.ts";
import { csrfHeader, findSid } from "./sid.ts";

export const AuthErrors = {
  seatsExceeded: () =>
    new ApiError(429, "api_seats_exceeded", "API seats exceeded", "increase webserver.api.max_sessions"),
  rateLimited: () => new ApiError(429, "rate_limiting", "Rate-limiting login attempts", null),
  totpRateLimited: () => new ApiError(429, "rate_limiting", "Rate-limiting 2FA token requests, try again later", null),
  noTotp: () => Errors.badRequest("No 2FA token found in JSON payload"),
  reusedTotp: () => Errors.unauthorized("Reused 2FA token", "wait for new token"),
  invalidTotp: () => Errors.unauthorized("Invalid 2FA token"),
} as const;

const TOTP_ERRORS: Record<TotpRefusal, () => ApiError> = {
  missing: AuthErrors.noTotp,
  "rate-limited": AuthErrors.totpRateLimited,
  reused: AuthErrors.reusedTotp,
  invalid: AuthErrors.invalidTotp,
};

type CheckResult = { session: Session } | { reason: string };

export class AuthService implements Authenticator {
  constructor(
    private readonly rt: Context,
    readonly auth: Auth,
  ) {}

  /** webserver.api.piholeCompat: Pi-hole's replies where Moat's differ (docs/pihole-differences.md) */
  get compat(): boolean {
    return this.rt.config.current.webserver.api.piholeCompat;
  }

  /**
   * The session this request carries, or why none. `requireCsrf` is false only where Pi-hole reads
   * the cookie without one (GET/POST /api/auth, which only report or reuse the session).
   */
  check(request: Request, url: URL, body: unknown, ip: string, requireCsrf = true): CheckResult {
    // the body's SID as parsed: a GET's body reaches no route schema, and schemas strip `sid`
    const found = findSid(request, url, bodyForAuth(request, body));
    if (!found) return { reason: "no SID provided" };
    const s = this.auth.sessions.lookup(found.sid);
    if (typeof s === "string") return { reason: s };
    if (found.channel === "cookie" && requireCsrf) {
      const csrf = csrfHeader(request);
      if (!csrf) return { reason: "Cookie authentication without CSRF token" };
      if (csrf !== s.csrf) return { reason: "CSRF token mismatch" };
    }
    // Moat binds a session to its client address; Pi-hole no longer does (docs/pihole-differences.md)
    if (!this.compat && s.remoteAddr !== ip) return { reason: "session unknown" };
    return { session: s };
  }

  /** Extends the session and gives the refreshed cookie. */
  refresh(s: Session, tls: boolean): Record<string, string> {
    this.auth.sessions.touch(s, this.auth.timeout, tls);
    return { "set-cookie": this.cookie(s, tls) };
  }

  /** The session cookie; `Secure` when the request came over HTTPS. */
  cookie(s: Session, tls: boolean): string {
    return `sid=${s.sid}; SameSite=Lax; Path=/; Max-Age=${this.auth.timeout}; HttpOnly${tls ? "; Secure" : ""}`;
  }

  static readonly deleteCookie =
    "sid=deleted; SameSite=Lax; Path=/; Max-Age=-1; Expires=Thu, 01 Jan 1970 00:00:00 GMT;";

  authenticate(req: AuthRequest): { session: unknown; headers?: Record<string, string> } | ApiError {
    if (!this.auth.passwordSet) return { session: null };
    const r = this.check(req.request, req.url, req.body, req.ip);
    if ("reason" in r) return Errors.unauthorized();
    return { session: r.session, headers: this.refresh(r.session, req.url.protocol === "https:") };
  }

  /** Checks the 2FA token of a main-password login; throws the reply for a bad one. */
  checkTotp(totp: unknown, ip: string): void {
    const refusal = this.auth.checkTotp(totp, ip);
    if (refusal) throw TOTP_ERRORS[refusal]();
  }

  /** A new session, or the 429 for a full table. */
  open(info: NewSession): Session {
    const s = this.auth.open(info);
    if (!s) throw AuthErrors.seatsExceeded();
    return s;
  }
}

export function createAuth(rt: Context & { auth: Auth }): AuthService {
  return new AuthService(rt, rt.auth);
}
