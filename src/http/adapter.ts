// node:http ⇄ Web Request/Response. Bun.serve drops the body of a GET, and Pi-hole's clients send
// their SID in the JSON body of a GET (FTL reads a body on every method); Bun's node:http server
// hands every body over. Bodies are never buffered here: a GET/HEAD body (which a Web Request
// cannot carry) is read up to a small limit and handed beside the request; any other body becomes a
// stream the handler pulls from, so nothing is read before the handler asks (it authenticates first).
import type { IncomingMessage, ServerResponse } from "node:http";

/** Largest body of a GET or HEAD request: enough for `{"sid": …}` and a little more. */
const MAX_GET_BODY = 64 * 1024;

export interface Arrival {
  /** performance.now() when the request arrived */
  started: number;
  /** the client's address as the socket sees it (IPv4-mapped IPv6 as plain IPv4) */
  ip: string;
  tls: boolean;
  /** the body of a GET or HEAD request, when it had one */
  getBody: Uint8Array | null;
}

export type Handler = (req: Request, arrival: Arrival) => Promise<Response>;

/** What the adapter answers itself, before any handler: kept as the API's JSON envelope by the caller. */
export type EarlyReply = (
  status: number,
  key: string,
  message: string,
  hint: string | null,
  started: number,
) => Response;

const HOST = /^(?:[A-Za-z0-9._~!$&'()*+,;=%-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function clientIp(req: IncomingMessage): string {
  const ip = req.socket.remoteAddress ?? "0.0.0.0";
  return ip.startsWith("::ffff:") ? ip.slice(7) : ip;
}

/** The request's origin: its Host header when that is a valid authority, else the listening address. */
function origin(req: IncomingMessage, tls: boolean): string {
  const scheme = tls ? "https" : "http";
  const host = req.headers.host;
  if (host && HOST.test(host)) return `${scheme}://${host}`;
  const local = req.socket.localAddress ?? "127.0.0.1";
  const addr = local.startsWith("::ffff:") ? local.slice(7) : local;
  return `${scheme}://${addr.includes(":") ? `[${addr}]` : addr}:${req.socket.localPort ?? 80}`;
}

function hasBody(req: IncomingMessage): boolean {
  const len = req.headers["content-length"];
  return (len !== undefined && len !== "0") || req.headers["transfer-encoding"] !== undefined;
}

/**
 * The body as a stream that reads from the socket only when pulled (backpressure by pause/resume).
 * `onFirstPull` runs when the handler first asks for it: the moment to send 100 Continue.
 */
function bodyStream(req: IncomingMessage, onFirstPull: () => void): ReadableStream<Uint8Array> {
  let pulled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        req.on("data", (chunk: Buffer) => {
          c.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((c.desiredSize ?? 0) <= 0) req.pause();
        });
        req.on("end", () => c.close());
        req.on("error", (e) => c.error(e));
        req.pause();
      },
      pull() {
        if (!pulled) {
          pulled = true;
          onFirstPull();
        }
        req.resume();
      },
      cancel() {
        req.destroy();
      },
    },
    { highWaterMark: 1 },
  );
}

/** Reads a GET/HEAD body, or null when larger than `limit`. */
function readSmallBody(req: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        parts.length = 0;
        resolve(null);
        return;
      }
      parts.push(chunk);
    });
    req.on("end", () => resolve(size > limit ? null : new Uint8Array(Buffer.concat(parts))));
    req.on("error", reject);
  });
}

/** The path and query of the request target; an absolute-form target (`GET http://host/path`) keeps only those. */
function requestTarget(target: string): string {
  if (target.startsWith("/")) return target;
  try {
    const u = new URL(target);
    return u.pathname + u.search;
  } catch {
    return "/";
  }
}

function toRequest(req: IncomingMessage, tls: boolean, body: ReadableStream<Uint8Array> | null): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // a header value Headers refuses (control characters) is left out rather than failing the request
    }
  }
  const path = requestTarget(req.url ?? "/");
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers };
  if (body) {
    init.body = body;
    init.duplex = "half";
  }
  return new Request(origin(req, tls) + path, init);
}

const streamed = new WeakSet<Response>();

/**
 * Marks a response whose body is written as it is produced (progress output); any other body is
 * sent in one piece, which is faster for the small JSON replies that make up nearly all traffic.
 */
export function streamedResponse(response: Response): Response {
  streamed.add(response);
  return response;
}

/** Writes a Web Response to node's response; a streamed one chunk by chunk with backpressure. */
async function writeResponse(res: ServerResponse, response: Response, closeAfter: boolean): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((v, k) => {
    if (k !== "set-cookie") headers[k] = v;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  if (closeAfter) headers.connection = "close";
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  if (!streamed.has(response)) {
    res.end(new Uint8Array(await response.arrayBuffer()));
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((r) => res.once("drain", () => r()));
      if (res.destroyed) break;
    }
  } finally {
    res.end();
  }
}

/**
 * A node:http request listener that hands each request to `handle` as a Web Request. `expectsContinue`:
 * the client sent `Expect: 100-continue` (node's checkContinue event) and waits for 100 Continue before
 * it sends the body; that goes out only once the handler reads the body, so a request refused first
 * (no session, a declared size over the route's limit) is answered before a byte of it is sent
 * (RFC 9110 §10.1.1) instead of being cut off halfway.
 */
export function requestListener(handle: Handler, tls: boolean, early: EarlyReply) {
  return async (req: IncomingMessage, res: ServerResponse, expectsContinue = false): Promise<void> => {
    let continued = !expectsContinue;
    const sendContinue = () => {
      if (continued) return;
      continued = true;
      res.writeContinue();
    };
    const started = performance.now();
    let response: Response;
    let request: Request | null = null;
    let getBody: Uint8Array | null = null;
    const bodied = hasBody(req);
    // HTTP/1.1 requires Host (RFC 9112 §3.2): the connection is closed after the 400, as Bun's own did
    const noHost = req.httpVersion === "1.1" && req.headers.host === undefined;
    try {
      if (noHost) throw new EarlyError(400, "bad_request", "Missing Host header", "HTTP/1.1 requires one (RFC 9112)");
      if (bodied && (req.method === "GET" || req.method === "HEAD")) {
        if (Number(req.headers["content-length"] ?? "0") <= MAX_GET_BODY) sendContinue();
        getBody = await readSmallBody(req, MAX_GET_BODY);
        if (getBody === null)
          throw new EarlyError(
            413,
            "payload_too_large",
            `Request body larger than ${MAX_GET_BODY} bytes`,
            `limit: ${MAX_GET_BODY} bytes`,
          );
      }
      request = toRequest(req, tls, bodied && !getBody ? bodyStream(req, sendContinue) : null);
      response = await handle(request, { started, ip: clientIp(req), tls, getBody });
    } catch (e) {
      response =
        e instanceof EarlyError
          ? early(e.status, e.key, e.message, e.hint, started)
          : early(400, "bad_request", "Malformed request", String((e as Error)?.message ?? e), started);
    }
    // A body the handler did not read (refused before reading) is not drained: the connection closes.
    const unread = bodied && !req.complete;
    await writeResponse(res, response, unread || noHost);
    if (unread || noHost) res.once("finish", () => req.socket.end());
  };
}

class EarlyError extends Error {
  constructor(
    readonly status: number,
    readonly key: string,
    message: string,
    readonly hint: string | null,
  ) {
    super(message);
  }
}
