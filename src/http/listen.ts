// One HTTP listener (node:http as Bun implements it, see adapter.ts). Requests the parser refuses
// before any handler sees them (unknown method, header block or URL over the limit, garbage) are
// still answered with the caller's reply (the API's JSON envelope), written straight to the socket.
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { requestListener, type EarlyReply, type Handler } from "./adapter.ts";

/** Largest request line plus headers (node's default); larger is refused with 431. */
const MAX_HEADER_BYTES = 16 * 1024;
/** An idle keep-alive connection is closed after this long. */
const KEEP_ALIVE_MS = 30_000;

export interface HttpListener {
  port: number;
  close(): Promise<void>;
}

/** The HTTP/1.1 bytes of a small, complete Response, for a socket no handler owns. */
async function rawBytes(res: Response): Promise<Uint8Array> {
  const body = new Uint8Array(await res.arrayBuffer());
  let head = `HTTP/1.1 ${res.status} ${res.statusText || "Error"}\r\n`;
  res.headers.forEach((v, k) => {
    if (k !== "content-length" && k !== "connection") head += `${k}: ${v}\r\n`;
  });
  head += `content-length: ${body.byteLength}\r\nconnection: close\r\n\r\n`;
  const out = new Uint8Array(Buffer.byteLength(head) + body.byteLength);
  out.set(Buffer.from(head));
  out.set(body, Buffer.byteLength(head));
  return out;
}

function parserRefusal(code: string): [number, string] {
  if (code === "HPE_HEADER_OVERFLOW") return [431, `Request line and headers larger than ${MAX_HEADER_BYTES} bytes`];
  if (code === "HPE_INVALID_METHOD") return [405, "Unknown HTTP method"];
  return [400, "Malformed HTTP request"];
}

export function listen(
  hostname: string,
  port: number,
  handle: Handler,
  early: EarlyReply,
  tls = false,
): Promise<HttpListener> {
  // requireHostHeader: false lets an HTTP/1.1 request without Host reach requestListener, which
  // answers it with the 400 that RFC 9112 §3.2 asks for, in the caller's envelope; Bun's own is empty.
  const listener = requestListener(handle, tls, early);
  const server: Server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false }, listener);
  // with this listener node no longer sends 100 Continue by itself: the adapter does, once the body is read
  server.on("checkContinue", (req, res) => void listener(req, res, true));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.on("clientError", (err: Error & { code?: string }, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, message] = parserRefusal(err.code ?? "");
    void rawBytes(early(status, "bad_request", message, err.code ?? null, performance.now())).then(
      (bytes) => socket.end(bytes),
      () => socket.destroy(),
    );
  });
  // CONNECT (a proxy tunnel) is not served; node hands it to this event and would otherwise drop the socket.
  server.on("connect", (_req: unknown, socket: Socket) => {
    void rawBytes(early(405, "bad_request", "Method CONNECT is not served", null, performance.now())).then(
      (bytes) => socket.end(bytes),
      () => socket.destroy(),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      const addr = server.address();
      resolve({
        port: typeof addr === "object" && addr ? addr.port : port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
