// The /api/auth route group: login, status, logout (README "Authentication",
// test/api/auth.test.ts), the session list, and the TOTP and app-password generators.
import { IpAddress } from "../core/address.ts";
import { Elysia, t } from "elysia";
import type { Context } from "../../core/runtime.ts";
import type { Authenticator } from "../core/auth-hook.ts";
import { errorResponse } from "../core/error-reply.ts";
import { ErrorReply, Errors } from "../core/errors.ts";
import { documented } from "../docs/meta.ts";
import { emptyResponse, jsonResponse, JSON_TYPE } from "../core/reply.ts";
import { requestState } from "../core/request-state.ts";
import type { LoginKind } from "../../auth/auth.ts";
import { hashPasswordAsync, randomBytes } from "../../auth/password.ts";
import type { Session } from "../../auth/sessions.ts";
import { base32Encode, totpAt, TOTP_DIGITS, TOTP_PERIOD } from "../../auth/totp.ts";
import { AuthErrors, AuthService } from "./index.ts";

const SessionObject = t.Object({
  valid: t.Boolean({ description: "true when the session is valid" }),
  totp: t.Boolean({ description: "whether two-factor authentication is enabled" }),
  sid: t.Union([t.String(), t.Null()], { description: "session ID" }),
  csrf: t.Optional(t.String({ description: "CSRF token for this session (cookie users send it as X-FTL-CSRF)" })),
  validity: t.Integer({ description: "seconds until the session expires; -1 without a session" }),
  message: t.String(),
});
const SessionReply = t.Object({ session: SessionObject });

const LoginBody = t.Object({
  // checked in the handler so the two messages for a missing and a non-string password come out with hint null
  password: t.Optional(
    t.Unknown({
      description: "the password, the application password or the CLI password (a string)",
      examples: ["correct horse battery staple"],
    }),
  ),
  totp: t.Optional(
    t.Union([t.String(), t.Number(), t.Null()], {
      description: "the 2FA token when 2FA is enabled (string or number)",
    }),
  ),
  sid: t.Optional(t.String({ description: "an existing session, reused when password is empty" })),
});

const SessionInfo = t.Object({
  id: t.Integer(),
  current_session: t.Boolean(),
  valid: t.Boolean(),
  tls: t.Object({ login: t.Boolean(), mixed: t.Boolean() }),
  app: t.Boolean(),
  cli: t.Boolean(),
  login_at: t.Integer(),
  last_active: t.Integer(),
  valid_until: t.Integer(),
  remote_addr: IpAddress(),
  user_agent: t.Union([t.String(), t.Null()]),
  x_forwarded_for: t.Union([t.String(), t.Null()]),
});

const LOGIN_MESSAGE: Record<LoginKind, string> = {
  password: "password correct",
  app: "app-password correct",
  cli: "password correct",
};

/** The reply of the reference's examples for a valid session. */
const sessionExample = (message: string) => ({
  session: {
    valid: true,
    totp: false,
    sid: "vFA+EP4MQ5JJvJg+3Q2Jnw=",
    csrf: "Ux87YTIiMOf/GKCefVIOMw=",
    validity: 1800,
    message,
  },
});

export function authRoutes(rt: Context, authenticator: Authenticator) {
  if (!(authenticator instanceof AuthService)) throw new Error("authRoutes needs the AuthService from createAuth()");
  const http = authenticator;
  const auth = http.auth;
  const pretty = () => rt.config.current.webserver.api.prettyJSON;

  const reply = (request: Request, body: Record<string, unknown>, status = 200, headers?: Record<string, string>) =>
    jsonResponse(body, status, requestState(request).started, pretty(), headers);
  const validSession = (s: Session, message: string) => ({
    session: {
      valid: true,
      totp: auth.totpEnabled,
      sid: s.sid,
      csrf: s.csrf,
      validity: Math.max(0, Math.round(s.validUntil - Date.now() / 1000)),
      message,
    },
  });
  const invalidSession = (message: string) => ({
    session: { valid: false, totp: auth.totpEnabled, sid: null, validity: -1, message },
  });
  const noPassword = (message = "no password set") => ({
    session: { valid: true, totp: false, sid: null, validity: -1, message },
  });
  const withDeletedCookie = (res: Response) => {
    res.headers.set("set-cookie", AuthService.deleteCookie);
    return res;
  };
  const isTls = (request: Request) => new URL(request.url).protocol === "https:";

  return new Elysia({ name: "auth" })
    .get(
      "/auth",
      ({ request, body }) => {
        if (!auth.passwordSet) return reply(request, noPassword());
        const st = requestState(request);
        const r = http.check(request, new URL(request.url), body, st.ip, false);
        if ("reason" in r) return withDeletedCookie(reply(request, invalidSession(r.reason), 401));
        const headers = http.refresh(r.session, isTls(request));
        return reply(request, validSession(r.session, "correct password"), 200, headers);
      },
      {
        response: { 200: SessionReply, 401: SessionReply },
        detail: documented(
          {
            tags: ["Authentication"],
            summary: "Session status",
            description:
              "The session carried by the request (any SID channel; the cookie needs no CSRF header here). No password set: valid with sid null.",
          },
          {
            responses: {
              200: "A valid session, or no password set",
              401: "No valid session: the session object says why",
            },
            examples: [
              {
                summary: "with a session",
                session: true,
                status: 200,
                response: sessionExample("correct password"),
              },
              {
                summary: "without a session",
                status: 401,
                response: {
                  session: { valid: false, totp: false, sid: null, validity: -1, message: "no SID provided" },
                },
              },
              {
                summary: "no password set",
                passwordSet: false,
                status: 200,
                response: {
                  session: { valid: true, totp: false, sid: null, validity: -1, message: "no password set" },
                },
              },
            ],
          },
        ),
      },
    )
    .post(
      "/auth",
      async ({ request, body }) => {
        const st = requestState(request);
        const url = new URL(request.url);
        const compat = http.compat;
        if (body.password === undefined) throw Errors.badRequest("No password found in JSON payload");
        if (typeof body.password !== "string") throw Errors.badRequest("Field password has to be of type 'string'");
        const password = body.password;
        // an empty password with a valid session returns that session, as in Pi-hole
        if (password === "" && auth.passwordSet) {
          const r = http.check(request, url, body, st.ip, false);
          if ("session" in r)
            return reply(
              request,
              validSession(r.session, "correct password"),
              200,
              http.refresh(r.session, isTls(request)),
            );
        }
        if (!auth.passwordSet)
          return reply(request, noPassword(compat && password !== "" ? "password incorrect" : "no password set"));
        // per client address: one address guessing passwords never locks out another
        const wait = auth.loginLimiter.retryAfter(st.ip);
        if (wait) {
          await Bun.sleep(250);
          const res = errorResponse(AuthErrors.rateLimited(), request, rt);
          res.headers.set("retry-after", String(wait));
          return res;
        }
        const checked = auth.loginLimiter.begin(st.ip);
        let kind: LoginKind | null = null;
        try {
          kind = await auth.verify(password);
        } finally {
          checked(kind === null);
        }
        if (!kind) {
          const res = compat
            ? reply(request, invalidSession("password incorrect"), 401)
            : errorResponse(Errors.unauthorized(), request, rt);
          return withDeletedCookie(res);
        }
        if (kind === "password" && auth.totpEnabled) http.checkTotp(body.totp, st.ip);
        const s = http.open({
          remoteAddr: st.ip,
          userAgent: request.headers.get("user-agent")?.slice(0, 127) ?? null,
          xForwardedFor: request.headers.get("x-forwarded-for"),
          tlsLogin: isTls(request),
          app: kind === "app",
          cli: kind === "cli",
        });
        return reply(request, validSession(s, LOGIN_MESSAGE[kind]), 200, {
          "set-cookie": http.cookie(s, isTls(request)),
        });
      },
      {
        body: LoginBody,
        response: { 200: SessionReply, 401: t.Union([ErrorReply, SessionReply]) },
        detail: documented(
          {
            tags: ["Authentication"],
            summary: "Log in",
            description:
              "Exchanges the password (or the app or CLI password) and, with 2FA, `totp` for a session. The cookie `sid` is set too.",
          },
          {
            responses: {
              200: 'Logged in (with no password set: valid, sid null, "no password set")',
              400: "No password, a password that is not a string, or no 2FA token when 2FA is on",
              401: "Wrong password or 2FA token: the error envelope (with webserver.api.piholeCompat: the session object, valid false)",
              429: "rate_limiting: too many failed logins in one second; api_seats_exceeded: every session slot is taken",
            },
            examples: [
              {
                summary: "log in",
                body: { password: "correct horse battery staple" },
                status: 200,
                response: sessionExample("password correct"),
              },
              {
                summary: "wrong password",
                body: { password: "wrong" },
                status: 401,
                response: { error: { key: "unauthorized", message: "Unauthorized", hint: null } },
              },
              {
                summary: "wrong password (piholeCompat)",
                compat: true,
                body: { password: "wrong" },
                status: 401,
                response: {
                  session: { valid: false, totp: false, sid: null, validity: -1, message: "password incorrect" },
                },
              },
              {
                summary: "no password",
                body: {},
                status: 400,
                response: { error: { key: "bad_request", message: "No password found in JSON payload", hint: null } },
              },
              {
                summary: "password not a string",
                body: { password: 1234 },
                status: 400,
                response: {
                  error: { key: "bad_request", message: "Field password has to be of type 'string'", hint: null },
                },
              },
            ],
          },
        ),
      },
    )
    .delete(
      "/auth",
      ({ request, body }) => {
        const st = requestState(request);
        const compat = http.compat;
        const done = () => withDeletedCookie(emptyResponse(compat ? 204 : 410));
        if (!auth.passwordSet) return done();
        const r = http.check(request, new URL(request.url), body, st.ip, true);
        if ("reason" in r) {
          const res = compat
            ? reply(request, invalidSession(r.reason), 401)
            : errorResponse(Errors.unauthorized(), request, rt);
          return withDeletedCookie(res);
        }
        auth.sessions.remove(r.session.id);
        return done();
      },
      {
        response: { 401: t.Union([ErrorReply, SessionReply]) },
        detail: documented(
          {
            tags: ["Authentication"],
            summary: "Log out",
            description: "Ends the session of the request and deletes the cookie.",
          },
          {
            responses: {
              204: "Logged out, with webserver.api.piholeCompat (no content)",
              410: "Logged out (no content)",
              401: "No valid session: the error envelope (with webserver.api.piholeCompat: the session object)",
            },
            examples: [
              { summary: "log out", session: true, status: 410 },
              { summary: "log out (piholeCompat)", compat: true, session: true, status: 204 },
              {
                summary: "without a session",
                status: 401,
                response: { error: { key: "unauthorized", message: "Unauthorized", hint: null } },
              },
            ],
          },
        ),
      },
    )
    .get(
      "/auth/sessions",
      ({ request }) => {
        const st = requestState(request);
        const current = st.session as Session | null | undefined;
        const timeout = auth.timeout;
        const sessions = auth.sessions.list().map((s) => ({
          id: s.id,
          current_session: current?.id === s.id,
          valid: true,
          tls: { login: s.tlsLogin, mixed: s.tlsMixed },
          app: s.app,
          cli: s.cli,
          login_at: s.loginAt,
          last_active: Math.floor(s.validUntil - timeout),
          valid_until: Math.floor(s.validUntil),
          remote_addr: s.remoteAddr,
          user_agent: s.userAgent,
          x_forwarded_for: s.xForwardedFor,
        }));
        return reply(request, { sessions }, 200, st.replyHeaders);
      },
      {
        response: { 200: t.Object({ sessions: t.Array(SessionInfo) }) },
        detail: { tags: ["Authentication"], summary: "List the active sessions" },
      },
    )
    .delete(
      "/auth/session/:id",
      ({ request, params }) => {
        const m = /^\s*([+-]?\d+)/.exec(params.id);
        if (!m) throw Errors.badRequest("Missing or invalid session ID");
        const id = Number(m[1]);
        if (id < 0 || id >= auth.sessions.size) throw Errors.badRequest("Session ID out of bounds");
        if (!auth.sessions.remove(id)) throw Errors.badRequest("Session ID not in use");
        const headers: Record<string, string> = { ...requestState(request).replyHeaders, "content-type": JSON_TYPE };
        // ending one's own session must not hand its cookie back
        if ((requestState(request).session as Session | null)?.id === id)
          headers["set-cookie"] = AuthService.deleteCookie;
        return emptyResponse(204, headers);
      },
      {
        params: t.Object({ id: t.String() }),
        detail: documented(
          { tags: ["Authentication"], summary: "End the session with this id (slot number)" },
          { responses: { 204: "The session ended", 400: "Not a session id, out of bounds, or not in use" } },
        ),
      },
    )
    .get(
      "/auth/totp",
      ({ request }) => {
        const secretBytes = randomBytes(20);
        const now = Date.now() / 1000;
        const cfg = rt.config.current.webserver;
        const totp = {
          type: "totp",
          account: cfg.domain,
          issuer: cfg.api.piholeCompat ? "Pi-hole%20API" : "Moat%20API",
          algorithm: "SHA1",
          digits: TOTP_DIGITS,
          period: TOTP_PERIOD,
          offset: 0,
          secret: base32Encode(secretBytes),
          codes: [-1, 0, 1, 2, 3].map((d) => totpAt(secretBytes, now + d * TOTP_PERIOD)),
        };
        return reply(request, { totp }, 200, requestState(request).replyHeaders);
      },
      {
        response: {
          200: t.Object({
            totp: t.Object({
              type: t.String(),
              account: t.String(),
              issuer: t.String(),
              algorithm: t.String(),
              digits: t.Integer(),
              period: t.Integer(),
              offset: t.Integer(),
              secret: t.String({ description: "Base32" }),
              codes: t.Array(t.Integer(), { description: "the codes of the previous, current and next three periods" }),
            }),
          }),
        },
        detail: {
          tags: ["Authentication"],
          summary: "Suggest a new TOTP secret",
          description:
            "Nothing is stored: set webserver.api.totp_secret to the secret to enable 2FA (this ends all sessions).",
        },
      },
    )
    .get(
      "/auth/app",
      async ({ request }) => {
        const password = Buffer.from(randomBytes(32)).toString("base64");
        return reply(
          request,
          { app: { password, hash: await hashPasswordAsync(password) } },
          200,
          requestState(request).replyHeaders,
        );
      },
      {
        response: { 200: t.Object({ app: t.Object({ password: t.String(), hash: t.String() }) }) },
        detail: {
          tags: ["Authentication"],
          summary: "Suggest a new application password",
          description:
            "Nothing is stored: set webserver.api.app_pwhash to the hash to enable it (this ends all sessions).",
        },
      },
    );
}
