// JSON replies compressed for clients that ask (RFC 9110 §12.5.3 Accept-Encoding, §8.4
// Content-Encoding): the dashboard's history replies shrink about ten times. Only whole JSON bodies
// are compressed: streams (gravity's progress, the Teleporter archive) keep flowing as they are
// written, and Pi-hole clients that send no Accept-Encoding get plain JSON as before.
import { promisify } from "node:util";
import { gzip } from "node:zlib";

// node:zlib's gzip runs on libuv's thread pool: the thread that answers DNS (and serves the API) only
// waits for it. Bun.gzipSync held that thread ~55 ms for a 27 MB /api/queries page (100,000 rows);
// the async form left no gap in its event loop longer than 3 ms.
const gzipAsync = promisify(gzip);

/** Below this a compressed body saves less than the work costs (one TCP segment either way). */
const MIN_BYTES = 1024;

/** whether the Accept-Encoding header takes gzip (a q=0 refuses it, RFC 9110 §12.4.2) */
function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  for (const part of header.split(",")) {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}

/** the same reply with a gzip body when the request accepts it and the JSON is worth compressing */
export async function compressJson(req: Request, res: Response): Promise<Response> {
  if (req.method === "HEAD" || !res.body || res.headers.has("content-encoding")) return res;
  if (!res.headers.get("content-type")?.startsWith("application/json")) return res;
  const accepted = acceptsGzip(req.headers.get("accept-encoding"));
  // caches must keep the two forms apart whichever one this client gets
  res.headers.append("vary", "Accept-Encoding");
  if (!accepted) return res;
  const body = new Uint8Array(await res.arrayBuffer());
  const headers = new Headers(res.headers);
  if (body.byteLength < MIN_BYTES) return new Response(body, { status: res.status, headers });
  headers.set("content-encoding", "gzip");
  headers.delete("content-length");
  return new Response(await gzipAsync(body, { level: 6 }), { status: res.status, statusText: res.statusText, headers });
}
