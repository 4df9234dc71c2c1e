// Shared helpers for the authentication tests: logins, requests from another loopback address,
// and an independent TOTP implementation (so the server's is checked, not reused).
import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import type { MoatProcess } from "../harness/moat.ts";

export type Json = Record<string, any>;

export async function call(m: MoatProcess, path: string, init: RequestInit = {}) {
  const r = await m.api(path, init);
  const text = await r.text();
  let body: Json | null = null;
  if (text !== "") body = JSON.parse(text);
  return { status: r.status, body, text, headers: r.headers };
}

export function login(m: MoatProcess, password: unknown, extra: Json = {}, headers: Record<string, string> = {}) {
  return call(m, "/api/auth", { method: "POST", body: JSON.stringify({ password, ...extra }), headers });
}

/** An HTTP request sent from `localAddress` (e.g. 127.0.0.2) to the server on 127.0.0.1. */
export function callFrom(
  m: MoatProcess,
  localAddress: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: Json | null; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port: m.httpPort, path, method: opts.method ?? "GET", headers: opts.headers, localAddress },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (data += c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : null, headers: res.headers }),
        );
      },
    );
    req.on("error", reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function b32decode(s: string): Buffer {
  let bits = "";
  for (const ch of s.replace(/=+$/, "")) bits += B32.indexOf(ch).toString(2).padStart(5, "0");
  const out: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) out.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(out);
}

/** RFC 6238 (SHA1, 6 digits, 30 s) for a base32 secret at unix time `t`. */
export function totp(secretB32: string, t = Date.now() / 1000): number {
  const c = Buffer.alloc(8);
  c.writeBigUInt64BE(BigInt(Math.floor(t / 30)));
  const h = createHmac("sha1", b32decode(secretB32)).update(c).digest();
  const o = h[19]! & 15;
  return (h.readUInt32BE(o) & 0x7fffffff) % 1_000_000;
}
