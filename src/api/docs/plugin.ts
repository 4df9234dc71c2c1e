// GET /api/docs: the OpenAPI reference generated from the TypeBox schemas of the running build,
// rendered by Scalar from a bundle Moat serves itself (no internet needed on the appliance).
import { swagger } from "@elysiajs/swagger";
import { Elysia } from "elysia";
// Embedded into the compiled binary by `bun build --compile` (a file import is bundled as an asset).
import scalarBundle from "../../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import type { VersionInfo } from "../../core/version.ts";
import { paramsTemplateOf } from "../core/route-meta.ts";
import { describe, routeTable } from "../info/endpoints.ts";

export const DOCS_ASSET = "/api/docs/assets/scalar.js";

/**
 * The routes the swagger plugin leaves out because Elysia spells them with a wildcard
 * (/api/clients/*), documented under Pi-hole's template (/api/clients/{client}) with their schemas.
 * A route whose template is the bare path (PATCH /api/config/*) is an alias and stays out.
 */
function wildcardPaths(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const r of routeTable()) {
    const detail = (r.detail ?? {}) as Record<string, unknown>;
    if (!r.path.includes("*") || detail.hide === true || !paramsTemplateOf(detail)) continue;
    const { uri, parameters } = describe(r.path, detail);
    const key = uri + parameters;
    const names = [...parameters.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const response = r.response && typeof r.response === "object" && !("type" in r.response) && 200 in r.response ? (r.response as Record<number, unknown>)[200] : r.response;
    (out[key] ??= {})[r.method.toLowerCase()] = {
      ...detail,
      parameters: names.map((name) => ({ in: "path", name, required: true, schema: { type: "string" } })),
      responses: response ? { 200: { description: "OK", content: { "application/json": { schema: JSON.parse(JSON.stringify(response)) } } } } : { 200: { description: "OK" } },
    };
  }
  return out;
}

/** `documentation.paths` is spread into every /api/docs/json reply: computed then, when the route table exists. */
const lazyPaths = new Proxy({} as Record<string, unknown>, {
  ownKeys: () => Reflect.ownKeys(wildcardPaths()),
  getOwnPropertyDescriptor: (_t, key) => {
    const v = wildcardPaths()[key as string];
    return v === undefined ? undefined : { value: v, enumerable: true, configurable: true, writable: false };
  },
  get: (_t, key) => wildcardPaths()[key as string],
});

export function docsPlugin(version: VersionInfo) {
  return new Elysia({ name: "docs" })
    .get("/docs/assets/scalar.js", () => new Response(Bun.file(scalarBundle), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
      detail: { hide: true },
    })
    .use(
      swagger({
        path: "/docs",
        provider: "scalar",
        scalarCDN: DOCS_ASSET,
        scalarConfig: { spec: { url: "/api/docs/json" } } as never,
        exclude: [/^\/api\/docs/],
        documentation: {
          info: {
            title: "Moat API",
            version: version.version,
            description: "Moat's REST API (Pi-hole v6 compatible). Authenticate with POST /api/auth, then send the SID as X-FTL-SID header, sid header, cookie (+X-FTL-CSRF) or ?sid=.",
          },
          components: {
            securitySchemes: {
              header_sid: { type: "apiKey", in: "header", name: "X-FTL-SID" },
              query_sid: { type: "apiKey", in: "query", name: "sid" },
              cookie_sid: { type: "apiKey", in: "cookie", name: "sid" },
            },
          },
          security: [{ header_sid: [] }, { query_sid: [] }, { cookie_sid: [] }],
          paths: lazyPaths as never,
        },
      }),
    );
}
