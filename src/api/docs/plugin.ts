// GET /api/docs: the OpenAPI reference generated from the TypeBox schemas of the running build,
// rendered by Scalar from a bundle Moat serves itself (no internet needed on the appliance).
import { swagger } from "@elysiajs/swagger";
import { Elysia } from "elysia";
// Embedded into the compiled binary by `bun build --compile` (a file import is bundled as an asset).
import scalarBundle from "../../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import type { VersionInfo } from "../../core/version.ts";

export const DOCS_ASSET = "/api/docs/assets/scalar.js";

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
        },
      }),
    );
}
