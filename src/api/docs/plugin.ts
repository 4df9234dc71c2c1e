// GET /api/docs: the API reference as one HTML page, and GET /api/docs/json: the OpenAPI document
// it is written from. Both come from the mounted routes (openapi.ts); nothing is fetched from
// outside, so the reference works on an appliance without internet.
import { Elysia } from "elysia";
import type { VersionInfo } from "../../core/version.ts";
import { openApiDocument, type DocRoute } from "./openapi.ts";
import { docsPage } from "./page.ts";

let routeTable: () => readonly DocRoute[] = () => [];

/** Called once the app is assembled, so the document describes the real routes. */
export function setDocRoutes(get: () => readonly DocRoute[]): void {
  routeTable = get;
}

const DESCRIPTION =
  "Moat's REST API, compatible with Pi-hole v6. Log in with POST /api/auth, then send the session ID as the header X-FTL-SID (or sid), " +
  "as ?sid=, or as the cookie sid together with the header X-FTL-CSRF. With no password set, every route answers without a session. " +
  "Every JSON reply ends with took (seconds spent on it); errors come as {error: {key, message, hint}, took}. Where Moat differs from Pi-hole, webserver.api.piholeCompat = true switches to Pi-hole's behaviour.";

export function docsPlugin(version: VersionInfo) {
  let cached: Record<string, unknown> | undefined;
  const doc = () =>
    (cached ??= openApiDocument(routeTable(), {
      title: "Moat API",
      version: version.version,
      description: DESCRIPTION,
    }));
  return new Elysia({ name: "docs" })
    .get(
      "/docs",
      ({ request }) =>
        new Response(docsPage(doc(), new URL(request.url).origin), {
          headers: { "content-type": "text/html; charset=utf-8" },
        }),
      {
        detail: { tags: ["Docs"], summary: "This API reference (HTML)" },
      },
    )
    .get("/docs/json", () => doc(), {
      detail: { tags: ["Docs"], summary: "The OpenAPI document of this API", hide: true },
    });
}
