// GET /api/endpoints, derived from the mounted route table: each route is listed as Pi-hole lists
// its table entry, {uri, parameters} per method. A route whose path Elysia spells differently
// (wildcards) carries Pi-hole's template in its detail (core/route-meta.ts); routes hidden from
// the docs are not operations (assets, rejections of a wrong form); Moat's own routes are left
// out in compatibility mode, so the list is then exactly Pi-hole's table.
import { Elysia, t } from "elysia";
import type { Context } from "../../core/runtime.ts";
import { isMoatOnlyRoute, paramsTemplateOf } from "../core/route-meta.ts";

export interface RouteEntry {
  method: string;
  path: string;
  detail?: unknown;
  /** the route's reply schema(s), as given to Elysia */
  response?: unknown;
}

let table: () => readonly RouteEntry[] = () => [];

/** Called once the app is assembled, so the listing is the real table. */
export function setRouteTable(get: () => readonly RouteEntry[]): void {
  table = get;
}

const Endpoint = t.Object({ uri: t.String(), parameters: t.String() });
const METHODS = ["get", "post", "put", "patch", "delete"] as const;
type Method = (typeof METHODS)[number];

/** `/api/groups/:name` → { uri: "/api/groups", parameters: "/{name}" }; a template in the detail wins. */
export function describe(path: string, detail?: unknown): { uri: string; parameters: string } {
  const bare = path.replace(/\/\*$/, "");
  const i = bare.search(/\/:/);
  const uri = i < 0 ? bare : bare.slice(0, i);
  const parameters = paramsTemplateOf(detail) ?? (i < 0 ? "" : bare.slice(i).replace(/:([A-Za-z_]+)\??/g, "{$1}"));
  return { uri, parameters };
}

/** The docs page is an operation of Pi-hole's table; the plugin's own routes (JSON, assets) are not. */
function listed(r: RouteEntry, compat: boolean): boolean {
  if (r.path === "/api/docs") return r.method === "GET";
  if ((r.detail as { hide?: boolean } | undefined)?.hide === true || r.path.startsWith("/api/docs/")) return false;
  return !(compat && isMoatOnlyRoute(r.detail));
}

function endpointTable(compat: boolean): Record<Method, Array<{ uri: string; parameters: string }>> {
  const out = { get: [], post: [], put: [], patch: [], delete: [] } as Record<
    Method,
    Array<{ uri: string; parameters: string }>
  >;
  const seen = new Set<string>();
  for (const r of table()) {
    const m = r.method.toLowerCase() as Method;
    if (!METHODS.includes(m) || !listed(r, compat)) continue;
    const d = describe(r.path, r.detail);
    const key = `${m} ${d.uri}${d.parameters}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out[m].push(d);
  }
  for (const list of Object.values(out))
    list.sort((a, b) => a.uri.localeCompare(b.uri) || a.parameters.localeCompare(b.parameters));
  return out;
}

export function endpointsRoutes(rt: Context) {
  return new Elysia({ name: "endpoints" }).get(
    "/endpoints",
    () => ({ endpoints: endpointTable(rt.config.current.webserver.api.piholeCompat) }),
    {
      response: t.Object({
        endpoints: t.Object({
          get: t.Array(Endpoint),
          post: t.Array(Endpoint),
          put: t.Array(Endpoint),
          patch: t.Array(Endpoint),
          delete: t.Array(Endpoint),
        }),
      }),
      detail: { tags: ["Info"], summary: "Every endpoint of this build, as {uri, parameters} per method" },
    },
  );
}
