// A GET that carries a body, as Pi-hole's own API checker (Python requests) sends its SID. Bun's fetch
// refuses a GET body, so this goes through node:http's client.
import { request } from "node:http";
import { gunzipSync } from "node:zlib";

export function getWithBody(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "GET",
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => {
          const h = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) h.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
          const status = res.statusCode ?? 0;
          // a gzip body (the request's headers took it) decoded, as fetch does
          const raw = Buffer.concat(parts);
          const data = h.get("content-encoding") === "gzip" ? gunzipSync(raw) : raw;
          resolve(new Response(status === 204 || status === 304 ? null : data, { status, headers: h }));
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
