// DNS over HTTPS for clients (RFC 8484) at /dns-query on the HTTPS ports: GET with ?dns=<base64url>
// or POST of application/dns-message, answered through the same resolver chain as UDP (via
// DnsServer.handle, so policy, cache and query log are the same). `/dns-query/<id>` carries a client
// ID that picks the client entry (and so the groups) of that name. Bad requests get 400/415 with a
// line saying why; nothing larger than one DNS message is read, and a body with bytes after its DNS
// message is FORMERR (DnsServer.query checks the whole body).
import { CLIENT_ID } from "../tls/store.ts";
import type { Pending } from "./context.ts";
import { walkMessage } from "./wire.ts";

const DOH_PATH = "/dns-query";
const MAX_MESSAGE = 65535;
/**
 * Bun.serve's HTTP/2 resets a stream whose reply goes out while the client still sends its body, and
 * the client never sees the reply (curl: "Stream error in the HTTP/2 framing layer"). A body that says
 * it ends within this size is read and dropped first, so its 413 arrives whole; a larger or endless one
 * gets the 413 at once, whatever the stream does after it.
 */
const DRAIN_LIMIT = 1024 * 1024;

type Query = (msg: Uint8Array, client: string, clientId: string | null) => Pending;

/** Whether a request path is the DoH endpoint (with or without a client ID). */
export function isDohPath(path: string): boolean {
  return path === DOH_PATH || path.startsWith(`${DOH_PATH}/`);
}

function problem(status: number, text: string): Response {
  return new Response(`${text}\n`, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}

export async function dohResponse(req: Request, path: string, client: string, query: Query): Promise<Response> {
  let clientId: string | null = null;
  if (path !== DOH_PATH) {
    const id = decodeURIComponent(path.slice(DOH_PATH.length + 1)).toLowerCase();
    if (!CLIENT_ID.test(id))
      return problem(400, `"${id.slice(0, 80)}" is not a client ID (letters, digits and hyphens, up to 64)`);
    clientId = id;
  }
  let msg: Uint8Array;
  if (req.method === "GET" || req.method === "HEAD") {
    const b64 = new URL(req.url).searchParams.get("dns");
    if (!b64) return problem(400, "missing the dns parameter (the query in base64url)");
    if (b64.length > Math.ceil((MAX_MESSAGE * 4) / 3) || !/^[A-Za-z0-9_-]+=*$/.test(b64))
      return problem(400, "the dns parameter is not base64url");
    msg = new Uint8Array(Buffer.from(b64, "base64url"));
  } else if (req.method === "POST") {
    const type = (req.headers.get("content-type") ?? "").toLowerCase();
    if (!type.startsWith("application/dns-message")) return problem(415, "the body must be application/dns-message");
    const declared = Number(req.headers.get("content-length") ?? 0);
    if (declared > MAX_MESSAGE) {
      if (declared <= DRAIN_LIMIT) await drain(req);
      return problem(413, "larger than one DNS message");
    }
    const body = await readMessage(req);
    if (!body) return problem(413, "larger than one DNS message");
    msg = body;
  } else {
    return new Response(null, { status: 405, headers: { allow: "GET, POST" } });
  }
  if (msg.length < 12) return problem(400, "not a DNS query");
  const answer = await query(msg, client, clientId);
  if (!answer) return problem(400, "not a DNS query this server answers");
  return new Response(answer, {
    status: 200,
    headers: { "content-type": "application/dns-message", "cache-control": `max-age=${minTtl(answer)}` },
  });
}

/**
 * The body, or null as soon as it passes MAX_MESSAGE: read as it comes, so a client that sends more
 * without ever ending the stream gets its 413 at once instead of waiting on a body never finished
 * (an HTTP/2 stream with no content-length ends only when the client says so).
 */
async function readMessage(req: Request): Promise<Uint8Array | null> {
  const reader = req.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_MESSAGE) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Bun.concatArrayBuffers(chunks, size, true);
}

/** Reads the body to its end and drops it (its declared size is at most DRAIN_LIMIT). */
async function drain(req: Request): Promise<void> {
  try {
    for await (const _ of req.body ?? []) {
      // dropped
    }
  } catch {
    // the client went away: nothing to answer
  }
}

/** The smallest TTL of the answer's records (RFC 8484 §5.1: the HTTP freshness must not outlive them). */
function minTtl(a: Uint8Array): number {
  const m = walkMessage(a);
  let ttl = Infinity;
  for (const r of m?.records ?? []) if (r.type !== 41) ttl = Math.min(ttl, r.ttl);
  return ttl === Infinity ? 0 : ttl;
}
