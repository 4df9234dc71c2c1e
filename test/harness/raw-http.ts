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
      reject(new Error(`no complete reply within ${timeoutMs} ms: ${JSON.stringify(Buffer.concat(chunks).toString().slice(0, 300))}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const end = text.indexOf("\r\n\r\n");
      const head = (end < 0 ? text : text.slice(0, end)).split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? "")?.[1] ?? 0);
      const headers = new Map<string, string>();
      for (const line of head.slice(1)) {
        const i = line.indexOf(":");
        if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
      }
      let body = end < 0 ? "" : text.slice(end + 4);
      if (headers.get("transfer-encoding") === "chunked") body = dechunk(body);
      resolve({ status, headers, body, text });
    };
    s.on("data", (c: Buffer) => chunks.push(c));
    s.on("end", finish);
    s.on("error", (e) => (chunks.length ? finish() : reject(e)));
  });
}

function dechunk(body: string): string {
  let out = "";
  let rest = body;
  for (;;) {
    const nl = rest.indexOf("\r\n");
    if (nl < 0) return out;
    const size = parseInt(rest.slice(0, nl), 16);
    if (!size) return out;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
}
