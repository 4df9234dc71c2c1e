// Session authentication (README "Authentication"): who may call the API, how a
// password becomes a session, and how a request proves it holds one.
import { timingSafeEqual } from "node:crypto";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Runtime } from "../../core/runtime.ts";
import { bodyForAuth, type AuthRequest, type Authenticator } from "../core/auth-hook.ts";
import { ApiError, Errors } from "../core/errors.ts";
import { clientKey } from "./client-key.ts";
import { LoginLimiter } from "./login-limit.ts";
import { hashPasswordAsync, randomBytes, verifyPasswordAsync, verifyPasswordFast, type Verdict } from "./password.ts";
import { SessionTable, type NewSession, type Session } from "./sessions.ts";
import { csrfHeader, findSid } from "./sid.ts";
import { base32Decode, totpMatches } from "./totp.ts";

/** Config keys whose change ends every session, as in Pi-hole. */
const SESSION_RESET_KEYS = ["webserver.api.pwhash", "webserver.api.password", "webserver.api.totp_secret", "webserver.api.app_pwhash"];

export const AuthErrors = {
  seatsExceeded: () => new ApiError(429, "api_seats_exceeded", "API seats exceeded", "increase webserver.api.max_sessions"),
  rateLimited: () => new ApiError(429, "rate_limiting", "Rate-limiting login attempts", null),
  totpRateLimited: () => new ApiError(429, "rate_limiting", "Rate-limiting 2FA token requests, try again later", null),
  noTotp: () => Errors.badRequest("No 2FA token found in JSON payload"),
  reusedTotp: () => Errors.unauthorized("Reused 2FA token", "wait for new token"),
  invalidTotp: () => Errors.unauthorized("Invalid 2FA token"),
} as const;

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export type CheckResult = { session: Session } | { reason: string };
export type LoginKind = "password" | "app" | "cli";

export class AuthService implements Authenticator {
  readonly sessions: SessionTable;
  /** the CLI password of this run (<data-dir>/cli_pw), or null when `webserver.api.cli_pw` is off */
  readonly cliPassword: string | null = null;
  /** failed and running password checks per client (webserver.api.loginRateLimit) */
  readonly loginLimiter = new LoginLimiter(() => this.rt.config.current.webserver.api.loginRateLimit);
  private lastTotp: number | null = null;
  /** when each client (clientKey) last had a 2FA token checked: one check a second per client */
  private readonly totpChecks = new Map<string, number>();
  /** set while Moat itself rewrites pwhash (legacy upgrade), which must not end sessions */
  private upgrading = false;

  constructor(private readonly rt: Runtime) {
    const cfg = rt.config.current.webserver;
    this.sessions = new SessionTable(cfg.api.max_sessions, rt.queryDb, rt.log);
    this.sessions.restore(cfg.session.restore);
    if (cfg.api.cli_pw) this.cliPassword = this.writeCliPassword();
    rt.config.subscribe((_next, _prev, changed) => {
      if (this.upgrading) return;
      if (changed.some((p) => SESSION_RESET_KEYS.includes(p))) this.sessions.clear();
    });
  }

  private writeCliPassword(): string | null {
    const pw = Buffer.from(randomBytes(32)).toString("base64");
    const file = join(this.rt.paths.dataDir, "cli_pw");
    try {
      writeFileSync(file, pw, { mode: 0o640 });
      chmodSync(file, 0o640);
      return pw;
    } catch (e) {
      this.rt.log("warn", `could not write the CLI password file ${file}: ${(e as Error).message}`);
      return null;
    }
  }

  private get cfg() {
    return this.rt.config.current.webserver;
  }

  get passwordSet(): boolean {
    return this.cfg.api.pwhash !== "";
  }

  get totpEnabled(): boolean {
    return this.cfg.api.totp_secret !== "";
  }

  get compat(): boolean {
    return this.cfg.api.piholeCompat;
  }

  get timeout(): number {
    return this.cfg.session.timeout;
  }

  /**
   * The session this request carries, or why none. `requireCsrf` is false only where Pi-hole reads
   * the cookie without one (GET/POST /api/auth, which only report or reuse the session).
   */
  check(request: Request, url: URL, body: unknown, ip: string, requireCsrf = true): CheckResult {
    // the body's SID as parsed: a GET's body reaches no route schema, and schemas strip `sid`
    const found = findSid(request, url, bodyForAuth(request, body));
    if (!found) return { reason: "no SID provided" };
    const s = this.sessions.lookup(found.sid);
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
    this.sessions.touch(s, this.timeout, tls);
    return { "set-cookie": this.cookie(s, tls) };
  }

  /** The session cookie; `Secure` when the request came over HTTPS. */
  cookie(s: Session, tls: boolean): string {
    return `sid=${s.sid}; SameSite=Lax; Path=/; Max-Age=${this.timeout}; HttpOnly${tls ? "; Secure" : ""}`;
  }

  static readonly deleteCookie = "sid=deleted; SameSite=Lax; Path=/; Max-Age=-1; Expires=Thu, 01 Jan 1970 00:00:00 GMT;";

  authenticate(req: AuthRequest): { session: unknown; headers?: Record<string, string> } | ApiError {
    if (!this.passwordSet) return { session: null };
    const r = this.check(req.request, req.url, req.body, req.ip);
    if ("reason" in r) return Errors.unauthorized();
    return { session: r.session, headers: this.refresh(r.session, req.url.protocol === "https:") };
  }

  private async checkHash(password: string, stored: string): Promise<Verdict> {
    return verifyPasswordFast(password, stored) ?? verifyPasswordAsync(password, stored);
  }

  /** Which password this is: CLI first, then the main password, then the app password. */
  async verify(password: string): Promise<LoginKind | null> {
    if (this.cliPassword !== null && this.cfg.api.cli_pw && sameText(password, this.cliPassword)) return "cli";
    const main = await this.checkHash(password, this.cfg.api.pwhash);
    if (main === "legacy") await this.upgradeLegacy(password);
    if (main !== "incorrect") return "password";
    if (this.cfg.api.app_pwhash !== "" && (await this.checkHash(password, this.cfg.api.app_pwhash)) === "correct") return "app";
    return null;
  }

  private async upgradeLegacy(password: string): Promise<void> {
    if (this.rt.config.envForced.has("webserver.api.pwhash")) return;
    const hash = await hashPasswordAsync(password);
    this.upgrading = true;
    try {
      const r = this.rt.config.update([{ path: "webserver.api.pwhash", value: hash }]);
      if (r.ok) this.rt.log("info", "Upgrading password from SHA256^2 to BALLOON-SHA256");
    } finally {
      this.upgrading = false;
    }
  }

  /** Checks the 2FA token of a main-password login; throws the reply for a bad one. */
  checkTotp(totp: unknown, ip: string): void {
    const secret = base32Decode(this.cfg.api.totp_secret);
    if (totp === undefined || totp === null || totp === "") throw AuthErrors.noTotp();
    const t = Date.now() / 1000;
    const key = clientKey(ip);
    if (t - (this.totpChecks.get(key) ?? 0) < 1) throw AuthErrors.totpRateLimited();
    if (this.totpChecks.size >= 4096) for (const [k, at] of this.totpChecks) if (t - at >= 1) this.totpChecks.delete(k);
    this.totpChecks.set(key, t);
    const code = typeof totp === "number" ? totp : /^\s*\d{1,10}\s*$/.test(String(totp)) ? Number(totp) : NaN;
    if (code === this.lastTotp) throw AuthErrors.reusedTotp();
    if (!secret || !Number.isInteger(code) || !totpMatches(secret, code, t)) throw AuthErrors.invalidTotp();
    this.lastTotp = code;
  }

  /** A new session, or the 429 for a full table. */
  open(info: NewSession): Session {
    const s = this.sessions.create(info, this.timeout);
    if (!s) {
      this.rt.log("warn", `No free API seats available (webserver.api.max_sessions = ${this.sessions.size}), not authenticating client`);
      throw AuthErrors.seatsExceeded();
    }
    return s;
  }
}

export function createAuth(rt: Runtime): Authenticator {
  return new AuthService(rt);
}
