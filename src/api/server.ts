// The web server: one listener per `webserver.port` entry (src/http/), all serving the same
// mounts: the API under /api, Prometheus metrics at /metrics, the dashboard for the rest. This layer
// records arrival time and client address, answers OPTIONS from the route table, and adds the
// configured security headers to every reply, the parser's refusals included.
import { parseWebPort } from "../config/index.ts";
import type { Runtime } from "../core/runtime.ts";
import type { Arrival, EarlyReply, Handler } from "../http/adapter.ts";
import { listen, type HttpListener } from "../http/listen.ts";
import { prefixRouter } from "../http/router.ts";
import { createApp, errorResponse, unexpected } from "./app.ts";
import { createAuth } from "./auth/index.ts";
import { rememberBodySid } from "./core/auth-hook.ts";
import { decodeJsonBody } from "./core/body.ts";
import { ApiError, Errors } from "./core/errors.ts";
import { applyHeaders, jsonResponse } from "./core/reply.ts";
import { setRequestState } from "./core/request-state.ts";
import { setRouteTable } from "./info/endpoints.ts";
import { metricsHandler } from "./metrics/handler.ts";
import { dashboard } from "../web/index.ts";
import { listenFailure } from "../core/start-errors.ts";

export interface HttpService {
  urls: string[];
  stop(): Promise<void>;
}

function routeMatcher(path: string): RegExp {
  const re = path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[A-Za-z_]+/g, "(?:/[^/]+)?").replace(/\*$/, ".*");
  return new RegExp(`^${re}$`);
}

/** The SID of a GET's JSON body (FTL reads a body on every method); anything else in it is ignored. */
function rememberGetBodySid(req: Request, bytes: Uint8Array | null): void {
  if (!bytes) return;
  try {
    rememberBodySid(req, decodeJsonBody(bytes));
  } catch {
    // a GET body that is not JSON carries no SID
  }
}

export async function startHttp(rt: Runtime): Promise<HttpService> {
  const auth = createAuth(rt);
  const app = createApp(rt, auth);
  // GET /metrics lives outside /api and uses its own bearer token, never a session.
  const metrics = metricsHandler(rt, () => (auth as { sessions?: { list(): unknown[] } }).sessions?.list().length ?? 0);
  const routes = app.routes.map((r) => ({ method: r.method, path: r.path, detail: r.hooks?.detail, response: r.hooks?.response, re: routeMatcher(r.path) }));
  setRouteTable(() => routes);
  const notFound: Handler = async (req) => errorResponse(Errors.notFound(new URL(req.url).pathname), req, rt);

  const route = prefixRouter(
    [
      { prefix: "/api", handle: (req) => app.handle(req) },
      { prefix: "/metrics", handle: async (req) => metrics(req) },
      { prefix: "/", handle: async (req, a) => (await dashboard(req)) ?? notFound(req, a) },
    ],
    notFound,
  );

  const handle = async (req: Request, arrival: Arrival): Promise<Response> => {
    setRequestState(req, { started: arrival.started, ip: arrival.ip, tls: arrival.tls });
    rememberGetBodySid(req, arrival.getBody);
    let res: Response;
    try {
      if (req.method === "OPTIONS") {
        const path = new URL(req.url).pathname;
        const methods = [...new Set(routes.filter((r) => r.re.test(path)).map((r) => r.method))];
        res = methods.length ? new Response(null, { status: 204, headers: { allow: methods.join(", "), connection: "close" } }) : await notFound(req, arrival);
      } else {
        res = await route(req, arrival);
      }
    } catch (e) {
      res = errorResponse(e instanceof ApiError ? e : unexpected(rt, req, e), req, rt);
    }
    applyHeaders(res, rt.config.current.webserver.headers);
    return res;
  };

  const early: EarlyReply = (status, key, message, hint, started) => {
    const res = jsonResponse({ error: { key, message, hint } }, status, started, rt.config.current.webserver.api.prettyJSON);
    applyHeaders(res, rt.config.current.webserver.headers);
    return res;
  };

  const listeners: HttpListener[] = [];
  const urls: string[] = [];
  for (const entry of rt.config.current.webserver.port.split(",")) {
    const p = parseWebPort(entry.trim());
    if (!p) continue;
    if (p.tls) {
      rt.log("warn", `webserver.port entry "${entry.trim()}" asks for TLS, which Moat does not serve yet; skipped`);
      continue;
    }
    const hostname = p.host ?? "0.0.0.0";
    try {
      const l = await listen(hostname, p.port, handle, early);
      listeners.push(l);
      urls.push(`http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${l.port}/api`);
    } catch (e) {
      if (p.optional) {
        rt.log("warn", `optional HTTP port ${entry.trim()} unavailable: ${(e as Error).message}`);
        continue;
      }
      await Promise.all(listeners.map((l) => l.close()));
      throw new Error(listenFailure("HTTP", `${hostname}:${p.port}`, p.port, e, "webserver.port"));
    }
  }
  return {
    urls,
    async stop() {
      await Promise.all(listeners.map((l) => l.close()));
    },
  };
}
