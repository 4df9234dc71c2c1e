// The dashboard's HTTP entry point: request -> Response, or null when the path is not the
// dashboard's. `/` and `/admin` redirect to `/admin/`; every other path under /admin/ that is not
// an asset gets the single page, which routes in the browser.
import { dashboardAssets, type Asset } from "./assets.ts";

const ASSET_PREFIX = "/admin/assets/";

function redirect(to: string): Response {
  return new Response(null, { status: 308, headers: { location: to, "cache-control": "no-store" } });
}

function serve(req: Request, a: Asset, cache: string): Response {
  if (req.headers.get("if-none-match") === a.etag)
    return new Response(null, { status: 304, headers: { etag: a.etag, "cache-control": cache } });
  const gzip = /\bgzip\b/.test(req.headers.get("accept-encoding") ?? "");
  const headers: Record<string, string> = {
    "content-type": a.type,
    etag: a.etag,
    "cache-control": cache,
    vary: "accept-encoding",
  };
  if (gzip) headers["content-encoding"] = "gzip";
  return new Response(req.method === "HEAD" ? null : gzip ? a.gzip : a.body, { status: 200, headers });
}

export async function dashboard(req: Request): Promise<Response | null> {
  if (req.method !== "GET" && req.method !== "HEAD") return null;
  const path = new URL(req.url).pathname;
  if (path === "/" || path === "/admin" || path === "/admin/index.html") return redirect("/admin/");
  if (!path.startsWith("/admin/")) return null;
  const files = await dashboardAssets();
  if (path.startsWith(ASSET_PREFIX)) {
    const a = files.get(path.slice(ASSET_PREFIX.length));
    // Names carry a content hash, so an asset never changes under its name.
    return a ? serve(req, a, "public, max-age=31536000, immutable") : null;
  }
  return serve(req, files.get("index.html")!, "no-cache");
}
