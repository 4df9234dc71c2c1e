// API replies compressed for clients that ask (RFC 9110 §12.5.3): gzip for JSON past 1 KB when the
// request accepts it; plain JSON for Pi-hole clients that send no Accept-Encoding, for small replies
// and for the streams (gravity's progress). Requests go through node:http, which, unlike fetch, does
// not decompress or add Accept-Encoding by itself, so the test sees the bytes on the wire.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

const PASSWORD = "compress me";
let m: MoatProcess;
let sid: string;

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

function raw(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${m.base}${path}`, { method, headers: { sid, ...headers } }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** the reply without `took`, which differs between two requests */
function json(bytes: Buffer): unknown {
  const { took: _took, ...rest } = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
  return rest;
}

beforeAll(async () => {
  m = await startMoat({ configToml: `[webserver.api]\npassword = "${PASSWORD}"\n` });
  const r = await m.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  sid = ((await r.json()) as { session: { sid: string } }).session.sid;
});
afterAll(async () => {
  await m.dispose();
});

test("a large JSON reply is gzip when accepted, and decompresses to the same JSON", async () => {
  const plain = await raw("/api/endpoints");
  const zipped = await raw("/api/endpoints", { "accept-encoding": "gzip, deflate, br" });
  expect(plain.status).toBe(200);
  expect(zipped.status).toBe(200);
  expect(plain.headers["content-encoding"]).toBeUndefined();
  expect(plain.body.byteLength).toBeGreaterThan(1024);
  expect(zipped.headers["content-encoding"]).toBe("gzip");
  expect(zipped.headers["content-type"]).toContain("application/json");
  expect(String(zipped.headers.vary)).toContain("Accept-Encoding");
  expect(zipped.body.byteLength).toBeLessThan(plain.body.byteLength / 3);
  expect(json(gunzipSync(zipped.body))).toEqual(json(plain.body));
});

test("Pi-hole clients that send no Accept-Encoding, or refuse gzip, get plain JSON", async () => {
  const cases: Array<Record<string, string>> = [
    {},
    { "accept-encoding": "identity" },
    { "accept-encoding": "gzip;q=0, br;q=0" },
  ];
  for (const headers of cases) {
    const r = await raw("/api/config", headers);
    expect(r.status).toBe(200);
    expect(r.headers["content-encoding"]).toBeUndefined();
    expect(r.body.byteLength).toBeGreaterThan(1024);
    expect((json(r.body) as { config: object }).config).toBeDefined();
  }
});

test("small replies and error replies under 1 KB stay plain", async () => {
  const r = await raw("/api/info/login", { "accept-encoding": "gzip" });
  expect(r.status).toBe(200);
  expect(r.headers["content-encoding"]).toBeUndefined();
  expect(json(r.body)).toHaveProperty("dns");
  const missing = await raw("/api/no/such/route", { "accept-encoding": "gzip" });
  expect(missing.status).toBe(404);
  expect(missing.headers["content-encoding"]).toBeUndefined();
  expect((json(missing.body) as { error: { key: string } }).error.key).toBe("not_found");
});

test("gravity's progress stream is not compressed", async () => {
  const r = await raw("/api/action/gravity", { "accept-encoding": "gzip" }, "POST");
  expect(r.status).toBe(200);
  expect(r.headers["content-type"]).toContain("text/plain");
  expect(r.headers["content-encoding"]).toBeUndefined();
  expect(r.body.toString("utf8")).toContain("\n");
});
