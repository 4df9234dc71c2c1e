// Where a request carries its SID, in Pi-hole's order (docs/pihole-differences.md): body `sid` → header
// `sid` → header `X-FTL-SID` → cookie `sid` (with a CSRF header) → query `?sid=`. The first channel
// present is the one checked; a bad SID there is not rescued by a later channel.

type SidChannel = "body" | "header" | "cookie" | "query";

interface FoundSid {
  sid: string;
  channel: SidChannel;
}

function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

/** SIDs may contain `+`; form-decoding of `?sid=` turns it into a space, which is turned back. */
const unspace = (s: string) => s.replace(/ /g, "+");

export function findSid(request: Request, url: URL, body: unknown): FoundSid | null {
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const v = (body as Record<string, unknown>).sid;
    if (typeof v === "string" && v !== "") return { sid: unspace(v), channel: "body" };
  }
  const h = request.headers.get("sid") || request.headers.get("x-ftl-sid");
  if (h) return { sid: h.trim(), channel: "header" };
  const c = cookieValue(request.headers.get("cookie"), "sid");
  if (c && c !== "deleted") return { sid: c, channel: "cookie" };
  const q = url.searchParams.get("sid");
  if (q) return { sid: unspace(q), channel: "query" };
  return null;
}

/** The CSRF token sent with a cookie: `X-FTL-CSRF` (Moat's API) or `X-CSRF-Token` (Pi-hole's clients). */
export function csrfHeader(request: Request): string | null {
  return request.headers.get("x-ftl-csrf") ?? request.headers.get("x-csrf-token");
}
