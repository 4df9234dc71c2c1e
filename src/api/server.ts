// The web server: one listener per `webserver.port` entry (src/http/), all serving the same
// mounts: the API under /api, Prometheus metrics at /metrics, the dashboard for the rest. This layer
// records arrival time and client address, answers OPTIONS from the route table, and adds the
// configured security headers to every reply, the parser's refusals included. Entries ending in `s`
// (Pi-hole's `443s`) serve HTTPS with the certificate of src/tls through Bun.serve (HTTP/2 for DoH
// clients that speak only it, and HTTP/1.1) and also answer DNS over HTTPS at /dns-query; HSTS is
// sent only with the user's own certificate (a generated one may still need trusting on a device).
import type { Server } from "bun";
import { parseWebPort } from "../config/index.ts";
import type { ApiDeps } from "./deps.ts";
import type { Arrival, EarlyReply, Handler } from "../http/adapter.ts";
import { listen, type HttpListener } from "../http/listen.ts";
import { prefixRouter } from "../http/router.ts";
import { createApp } from "./app.ts";
import { createAuth } from "./auth/index.ts";
import { rememberBodySid } from "./core/auth-hook.ts";
import { errorResponse, unexpected } from "./core/error-reply.ts";
import { decodeJsonBody } from "./core/body.ts";
import { ApiError, Errors } from "./core/errors.ts";
import { compressJson } from "./core/compress.ts";
import { applyHeaders, jsonResponse } from "./core/reply.ts";
import { setRequestState } from "./core/request-state.ts";
import { setRouteTable } from "./info/endpoints.ts";
import { metricsHandler } from "./metrics/handler.ts";
import { dashboard } from "../web/index.ts";
import { listenFailure } from "../core/start-errors.ts";
import { dohResponse, isDohPath } from "../dns/doh-serve.ts";

/** Where a device downloads Moat's certificate authority to trust it (README: trusting the certificate). */
const CA_DOWNLOAD_PATH = "/tls/ca.crt";
/**
 * The cap Bun.serve puts on any request body on the HTTPS ports, before a route sees it. Bun streams
 * bodies with backpressure rather than buffering them (measured: a 300 MB upload read slowly raised RSS
 * by 43 MB over HTTP/1.1 and 64 MB over HTTP/2), and every route reads with its own, smaller limit (JSON
 * 64 KiB, Teleporter archives), so the cap is the largest route limit: an update bundle (update.maxDownload).
 */
const MIN_BODY_CAP = 64 * 1024 * 1024;
const bodyCap = (maxDownloadMiB: number) => Math.max(MIN_BODY_CAP, (maxDownloadMiB + 1) * 1024 * 1024);
/**
 * Seconds an HTTPS connection may stay silent before it has sent a whole request. Bun.serve has no
 * header timeout (HTTP/1.1 partial headers are cut at ~10 s by Bun itself, an unfinished HTTP/2
 * HEADERS block only by idleTimeout) and no hook on a connection before its first request, so this
 * idle timeout is the bound: like the plain listener's slow-header limit and DoT's handshake limit.
 */
const TLS_FIRST_REQUEST_S = 15;
/** Silence a request (its handler, then the kept-alive connection) may have once it has arrived. */
const TLS_REQUEST_IDLE_S = 30;

export interface HttpService {
  urls: string[];
  stop(): Promise<void>;
}

function routeMatcher(path: string): RegExp {
  const re = path
    .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
    .replace(/\/:[A-Za-z_]+/g, "(?:/[^/]+)?")
    .replace(/\*$/, ".*");
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

export async function startHttp(rt: ApiDeps): Promise<HttpService> {
  const auth = createAuth(rt);
  const app = createApp(rt, auth);
  // GET /metrics lives outside /api and uses its own bearer token, never a session.
  const metrics = metricsHandler(rt, () => auth.auth.sessions.list().length);
  const routes = app.routes.map((r) => ({
    method: r.method,
    path: r.path,
    detail: r.hooks?.detail,
    response: r.hooks?.response,
    re: routeMatcher(r.path),
  }));
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
    const path = new URL(req.url).pathname;
    if (arrival.tls && isDohPath(path)) {
      // DNS answers carry no dashboard headers
      return dohResponse(req, path, arrival.ip, (m, c, id) => rt.dns.query(m, c, id));
    }
    let res: Response;
    try {
      if (path === CA_DOWNLOAD_PATH && (req.method === "GET" || req.method === "HEAD")) {
        res = new Response(rt.tls.authorityPem(), {
          headers: {
            "content-type": "application/x-x509-ca-cert",
            "content-disposition": 'attachment; filename="moat-ca.crt"',
          },
        });
      } else if (req.method === "OPTIONS") {
        const path = new URL(req.url).pathname;
        const methods = [...new Set(routes.filter((r) => r.re.test(path)).map((r) => r.method))];
        res = methods.length
          ? new Response(null, { status: 204, headers: { allow: methods.join(", "), connection: "close" } })
          : await notFound(req, arrival);
      } else {
        res = await route(req, arrival);
        if (path.startsWith("/api/")) res = await compressJson(req, res);
      }
    } catch (e) {
      res = errorResponse(e instanceof ApiError ? e : unexpected(rt, req, e), req, rt);
    }
    applyHeaders(res, rt.config.current.webserver.headers);
    if (arrival.tls && rt.tls.current().user) res.headers.set("strict-transport-security", "max-age=31536000");
    return res;
  };

  // HTTPS: Bun.serve with the certificate of src/tls (node:http2's server is not used: HTTP/2 and
  // HTTP/1.1 on one port is what Bun.serve offers directly)
  const serveTls = (hostname: string, port: number): Server<unknown> => {
    const m = rt.tls.current();
    return Bun.serve({
      hostname,
      port,
      maxRequestBodySize: bodyCap(rt.config.current.update.maxDownload),
      idleTimeout: TLS_FIRST_REQUEST_S,
      tls: { key: m.keyPem, cert: m.certPem },
      http2: true,
      fetch: (req, server) => {
        server.timeout(req, TLS_REQUEST_IDLE_S);
        const raw = server.requestIP(req)?.address ?? "0.0.0.0";
        return handle(req, {
          started: performance.now(),
          ip: raw.startsWith("::ffff:") ? raw.slice(7) : raw,
          tls: true,
          getBody: null,
        });
      },
    });
  };
  const secure: Array<{ hostname: string; port: number; server: Server<unknown> }> = [];

  const early: EarlyReply = (status, key, message, hint, started) => {
    const res = jsonResponse(
      { error: { key, message, hint } },
      status,
      started,
      rt.config.current.webserver.api.prettyJSON,
    );
    applyHeaders(res, rt.config.current.webserver.headers);
    return res;
  };

  const listeners: HttpListener[] = [];
  const urls: string[] = [];
  // the listeners' own lines go to the web server's log (/api/logs/webserver), as Pi-hole's web server
  // writes webserver.log; what the API's routes do stays in Moat's own log
  const webLog: ApiDeps["log"] = (level, message) => rt.logs.write("webserver", level, message);
  for (const entry of rt.config.current.webserver.port.split(",")) {
    const p = parseWebPort(entry.trim());
    if (!p) continue;
    const hostname = p.host ?? "0.0.0.0";
    try {
      if (p.tls) {
        const server = serveTls(hostname, p.port);
        const l = { hostname, port: server.port ?? p.port, server };
        secure.push(l);
        listeners.push({ port: l.port, close: async () => void (await l.server.stop(true)) });
        urls.push(`https://${hostname.includes(":") ? `[${hostname}]` : hostname}:${l.port}/api`);
        continue;
      }
      const l = await listen(hostname, p.port, handle, early);
      listeners.push(l);
      urls.push(`http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${l.port}/api`);
    } catch (e) {
      if (p.optional) {
        webLog("warn", `optional HTTP port ${entry.trim()} unavailable: ${(e as Error).message}`);
        continue;
      }
      await Promise.all(listeners.map((l) => l.close()));
      throw new Error(listenFailure("HTTP", `${hostname}:${p.port}`, p.port, e, "webserver.port"));
    }
  }
  // stderr has them already (services.ts says which listeners are up once all are)
  for (const url of urls) rt.logs.buffers.webserver.push(`listening on ${url}`, "INFO");
  // a new certificate: the HTTPS listeners start again with it (open connections finish on the old one)
  const unsub = secure.length
    ? rt.tls.onChange(() => {
        for (const l of secure) {
          void l.server.stop(false);
          try {
            l.server = serveTls(l.hostname, l.port);
          } catch (e) {
            webLog(
              "error",
              `HTTPS on port ${l.port}: cannot listen again with the new certificate: ${(e as Error).message}`,
            );
          }
        }
      })
    : () => {};
  return {
    urls,
    async stop() {
      unsub();
      await Promise.all(listeners.map((l) => l.close()));
    },
  };
}
