// The Elysia application under /api: shared hooks (body parsing, auth, envelope, `took`), then one
// plugin per route group. The route table built here is the single source for /api/endpoints,
// OPTIONS and the docs.
import { Elysia, type ValidationError } from "elysia";
import type { ApiDeps } from "./deps.ts";
import { bodyForAuth, PUBLIC_ROUTES, rememberBodySid, type Authenticator } from "./core/auth-hook.ts";
import { parseJsonBody, readBodyBounded } from "./core/body.ts";
import { STREAMED_UPLOADS } from "./core/multipart-file.ts";
import { errorResponse, unexpected } from "./core/error-reply.ts";
import { ApiError, Errors } from "./core/errors.ts";
import { emptyResponse, jsonResponse } from "./core/reply.ts";
import { requestState } from "./core/request-state.ts";
import { validationToApiError } from "./core/validation.ts";
import { routeGroups } from "./routes.ts";
import { MAX_ARCHIVE } from "../teleporter/import.ts";
import { setDocRoutes } from "./docs/plugin.ts";

/** An upload's largest form: the archive plus room for the form's other fields and boundaries. */
const MAX_UPLOAD = MAX_ARCHIVE + 64 * 1024;

/** A multipart body read up to `limit` bytes, as Elysia's own form parser gives it (name → value). */
async function readForm(request: Request, limit: number): Promise<Record<string, unknown>> {
  const bytes = await readBodyBounded(request, limit);
  let form: Awaited<ReturnType<Response["formData"]>>;
  try {
    form = await new Response(bytes, {
      headers: { "content-type": request.headers.get("content-type") ?? "" },
    }).formData();
  } catch {
    throw Errors.badRequest("Invalid form request", "the multipart/form-data body could not be read");
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of form.entries()) out[k] = v;
  return out;
}

function isPublic(route: string): boolean {
  return PUBLIC_ROUTES.has(route) || route.startsWith("/api/docs");
}

export function createApp(rt: ApiDeps, auth: Authenticator) {
  /** Checks the session of a protected route once per request; throws the 401. */
  const authenticateOnce = (request: Request, route: string, body: unknown): void => {
    const st = requestState(request);
    if (st.authenticated || isPublic(route)) return;
    const r = auth.authenticate({ request, url: new URL(request.url), body: bodyForAuth(request, body), ip: st.ip });
    if (r instanceof ApiError) throw r;
    st.session = r.session;
    st.replyHeaders = r.headers;
    st.authenticated = true;
  };

  const core = new Elysia({ name: "core" })
    // A throw inside a parser reaches onError as Elysia's generic PARSE error, so a body problem is
    // kept aside and raised from the transform hook, which runs before validation.
    .onParse({ as: "global" }, async ({ request, contentType, route }) => {
      try {
        // File uploads (POST /api/teleporter, /api/action/update): the session is checked before a byte of the body is
        // read (an upload cannot carry its SID inside), then the form is read up to its limit.
        if (contentType.toLowerCase().startsWith("multipart/form-data")) {
          authenticateOnce(request, route, null);
          // an update bundle is streamed to disk by its route (core/multipart-file.ts)
          if (STREAMED_UPLOADS.has(route)) return { multipart: true };
          return await readForm(request, MAX_UPLOAD);
        }
        return rememberBodySid(request, await parseJsonBody(request));
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        requestState(request).bodyError = e;
        return null;
      }
    })
    // Authentication runs before the request is validated, so a caller without a session learns
    // nothing but 401 (as in Pi-hole), whatever it sent.
    .onTransform({ as: "global" }, ({ request, route, body }) => {
      const st = requestState(request);
      authenticateOnce(request, route, body);
      if (st.bodyError) throw st.bodyError;
    })
    // read-your-writes: a change answers once DNS applies it (a new filter snapshot is live)
    .onAfterHandle({ as: "global" }, async ({ request }) => {
      if (request.method !== "GET") await rt.events.settled();
    })
    .mapResponse({ as: "global" }, ({ response, request, set }) => {
      if (response instanceof Response) return response;
      const st = requestState(request);
      const status = typeof set.status === "number" ? set.status : 200;
      if (response === undefined || response === null)
        return emptyResponse(status === 200 ? 204 : status, st.replyHeaders);
      if (typeof response !== "object") return undefined;
      return jsonResponse(
        response as Record<string, unknown>,
        status,
        st.started,
        rt.config.current.webserver.api.prettyJSON,
        st.replyHeaders,
      );
    })
    .onError({ as: "global" }, ({ code, error, request }) => {
      if (error instanceof ApiError) return errorResponse(error, request, rt);
      if (code === "VALIDATION" && (error as ValidationError).type === "response") {
        // A reply that breaks its documented shape is Moat's bug, not the client's: logged, and sent as it is.
        const st = requestState(request);
        rt.log(
          "error",
          `API ${request.method} ${new URL(request.url).pathname}: reply does not match its schema: ${(error as Error).message.slice(0, 300)}`,
        );
        return jsonResponse(
          (error as ValidationError).value as Record<string, unknown>,
          200,
          st.started,
          rt.config.current.webserver.api.prettyJSON,
          st.replyHeaders,
        );
      }
      if (code === "VALIDATION") return errorResponse(validationToApiError(error as ValidationError), request, rt);
      if (code === "NOT_FOUND") return errorResponse(Errors.notFound(new URL(request.url).pathname), request, rt);
      if (code === "PARSE")
        return errorResponse(Errors.invalidJson(String((error as Error).message ?? "")), request, rt);
      return errorResponse(unexpected(rt, request, error), request, rt);
    });

  let app = new Elysia({ prefix: "/api" }).use(core);
  for (const group of routeGroups(rt, auth)) app = app.use(group) as unknown as typeof app;
  setDocRoutes(() => app.routes);
  return app;
}
