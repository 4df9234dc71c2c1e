// Sends bytes as they are over TCP and parses the HTTP/1.1 reply, for requests no HTTP client will
// send (empty Host, unknown methods, over-long request lines).
import { connect } from "node:net";

export interface RawReply {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** everything received, for messages */
  text: string;
}

export function rawHttp(port: number, request: string | Uint8Array, timeoutMs = 5000): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const s = connect(port, "127.0.0.1", () => s.write(request));
    const timer = setTimeout(() => {
      s.destroy();
      reject(
        new Error(
          `no complete reply within ${timeoutMs} ms: ${JSON.stringify(Buffer.concat(chunks).toString().slice(0, 300))}`,
        ),
      );
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const text = all.toString("utf8");
      const end = all.indexOf("\r\n\r\n");
      const head = (end < 0 ? text : all.subarray(0, end).toString("latin1")).split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? "")?.[1] ?? 0);
      const headers = new Map<string, string>();
      for (const line of head.slice(1)) {
        const i = line.indexOf(":");
        if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
      }
      let body: Buffer = end < 0 ? Buffer.alloc(0) : all.subarray(end + 4);
      if (headers.get("transfer-encoding") === "chunked") body = dechunk(body);
      resolve({ status, headers, body: body.toString("utf8"), text });
    };
    s.on("data", (c: Buffer) => chunks.push(c));
    s.on("end", finish);
    s.on("error", (e) => (chunks.length ? finish() : reject(e)));
  });
}

/** Chunk sizes count bytes, so the body is taken apart as bytes (a string index would drift on non-ASCII text). */
function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const nl = body.indexOf("\r\n", at);
    if (nl < 0) break;
    const size = parseInt(body.subarray(at, nl).toString("latin1"), 16);
    if (!size) break;
    parts.push(body.subarray(nl + 2, nl + 2 + size));
    at = nl + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
