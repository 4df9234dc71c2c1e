// Building replies: compact JSON with `took` last, the content type clients insist on, and the
// configured security headers on everything.

export const JSON_TYPE = "application/json; charset=utf-8";

/** seconds since the request arrived */
function tookSince(startedMs: number): number {
  return (performance.now() - startedMs) / 1000;
}

export function jsonResponse(
  body: Record<string, unknown>,
  status: number,
  startedMs: number,
  pretty = false,
  headers?: Record<string, string>,
): Response {
  const withTook = { ...body, took: tookSince(startedMs) };
  const text = pretty ? JSON.stringify(withTook, null, 2) : JSON.stringify(withTook);
  const h = new Headers(headers);
  h.set("content-type", JSON_TYPE);
  return new Response(text, { status, headers: h });
}

export function emptyResponse(status: number, headers?: Record<string, string>): Response {
  return new Response(null, { status, headers });
}

export function applyHeaders(res: Response, lines: readonly string[]): void {
  for (const line of lines) {
    const i = line.indexOf(":");
    if (i <= 0) continue;
    const name = line.slice(0, i).trim();
    if (!res.headers.has(name)) res.headers.set(name, line.slice(i + 1).trim());
  }
}
