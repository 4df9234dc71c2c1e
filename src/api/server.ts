// The HTTP listeners: one Bun server per `webserver.port` entry, all serving the same app. This
// layer records arrival time and client address, answers OPTIONS from the route table, and adds
// the configured security headers to every reply.
import type { Server } from "bun";
import { parseWebPort } from "../config/index.ts";
import type { Runtime } from "../core/runtime.ts";
import { createApp, errorResponse } from "./app.ts";
import { createAuth } from "./auth/index.ts";
import { Errors } from "./core/errors.ts";
import { applyHeaders } from "./core/reply.ts";
import { setRequestState } from "./core/request-state.ts";
import { setRouteTable } from "./info/endpoints.ts";
import { metricsHandler } from "./metrics/handler.ts";
import { dashboard } from "../web/index.ts";

/** Largest body Bun will buffer; routes apply their own, smaller limits (JSON 64 KiB). */
const MAX_BUFFERED_BODY = 64 * 1024 * 1024;

export interface HttpService {
  urls: string[];
  stop(): Promise<void>;
}

function routeMatcher(path: string): RegExp {
  const re = path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[A-Za-z_]+/g, "(?:/[^/]+)?").replace(/\*$/, ".*");
  return new RegExp(`^${re}$`);
}

export function startHttp(rt: Runtime): HttpService {
  const auth = createAuth(rt);
  const app = createApp(rt, auth);
  // GET /metrics lives outside /api and uses its own bearer token, never a session.
  const metrics = metricsHandler(rt, () => (auth as { sessions?: { list(): unknown[] } }).sessions?.list().length ?? 0);
  const routes = app.routes.map((r) => ({ method: r.method, path: r.path, detail: r.hooks?.detail, response: r.hooks?.response, re: routeMatcher(r.path) }));
  setRouteTable(() => routes);

  const handle = async (req: Request, server: Server<unknown>): Promise<Response> => {
    const ip = server.requestIP(req)?.address ?? "0.0.0.0";
    setRequestState(req, { started: performance.now(), ip: ip.startsWith("::ffff:") ? ip.slice(7) : ip, tls: false });
    let res: Response;
    if (req.method === "OPTIONS") {
      const path = new URL(req.url).pathname;
      const methods = [...new Set(routes.filter((r) => r.re.test(path)).map((r) => r.method))];
      res = methods.length
        ? new Response(null, { status: 204, headers: { allow: methods.join(", "), connection: "close" } })
        : errorResponse(Errors.notFound(path), req, rt);
    } else if (new URL(req.url).pathname === "/metrics") {
      res = metrics(req);
    } else if (!new URL(req.url).pathname.startsWith("/api")) {
      res = (await dashboard(req)) ?? errorResponse(Errors.notFound(new URL(req.url).pathname), req, rt);
    } else {
      res = await app.handle(req);
    }
    applyHeaders(res, rt.config.current.webserver.headers);
    return res;
  };

  const servers: Server<unknown>[] = [];
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
      const s = Bun.serve({ hostname, port: p.port, fetch: handle, maxRequestBodySize: MAX_BUFFERED_BODY, idleTimeout: 30 });
      servers.push(s);
      urls.push(`http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${s.port}/api`);
    } catch (e) {
      if (p.optional) {
        rt.log("warn", `optional HTTP port ${entry.trim()} unavailable: ${(e as Error).message}`);
        continue;
      }
      for (const s of servers) s.stop(true);
      throw new Error(`cannot listen for HTTP on ${hostname}:${p.port}: ${(e as Error).message}`);
    }
  }
  return {
    urls,
    async stop() {
      await Promise.all(servers.map((s) => s.stop(true)));
    },
  };
}
