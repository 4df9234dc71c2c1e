// Requests at the edge of HTTP: an empty or invalid Host, methods nobody routes, request lines over
// the limit, garbage. Each is answered with the JSON envelope and the security headers (it used to
// be Bun's HTML error page with source lines, a closed connection, or an empty 431).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { rawHttp, type RawReply } from "../harness/raw-http.ts";

let m: MoatProcess;
beforeAll(async () => {
  m = await startMoat();
});
afterAll(async () => {
  await m.dispose();
});

function expectEnvelope(r: RawReply, status: number, key: string): Record<string, any> {
  expect(r.status, r.text.slice(0, 300)).toBe(status);
  expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
  // the configured security headers (webserver.headers) are on it
  expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  expect(r.headers.get("x-frame-options")).toBe("DENY");
  expect(r.text).not.toContain("<html");
  expect(r.text).not.toContain("/src/");
  const body = JSON.parse(r.body) as Record<string, any>;
  expect(body.error.key).toBe(key);
  expect(typeof body.error.message).toBe("string");
  expect(typeof body.took).toBe("number");
  return body;
}

const req = (line: string, headers: string[] = ["Host: 127.0.0.1"]) =>
  [line, ...headers, "Connection: close", "", ""].join("\r\n");

test("an empty or invalid Host header is answered like any other request", async () => {
  for (const host of [
    "Host: ",
    "Host: a b",
    "Host: [::1",
    "Host: ::::",
    "Host: example.com:99999999",
    "Host: http://x/",
    "Host: ü.example",
  ]) {
    const r = await rawHttp(m.httpPort, req("GET /api/info/login HTTP/1.1", [host]));
    expect(r.status, `${JSON.stringify(host)} → ${r.text.slice(0, 200)}`).toBe(200);
    expect(JSON.parse(r.body)).toHaveProperty("dns");
    const nf = await rawHttp(m.httpPort, req("GET /api/nothing HTTP/1.1", [host]));
    expectEnvelope(nf, 404, "not_found");
  }
  // a control character is refused by the parser, still in the envelope
  expectEnvelope(await rawHttp(m.httpPort, req("GET /api/info/login HTTP/1.1", ["Host: \x7f"])), 400, "bad_request");
  // HTTP/1.0 without any Host
  const r10 = await rawHttp(m.httpPort, "GET /api/nothing HTTP/1.0\r\n\r\n");
  expectEnvelope(r10, 404, "not_found");
});

test("an HTTP/1.1 request without a Host header is 400 in the envelope (RFC 9112 §3.2), never Bun's empty one", async () => {
  for (const path of ["/api/info/login", "/api/nothing", "/admin/"]) {
    const r = await rawHttp(m.httpPort, `GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
    const body = expectEnvelope(r, 400, "bad_request");
    expect(body.error.message).toBe("Missing Host header");
    expect(r.headers.get("connection")).toBe("close");
  }
  // with a body, and without Connection: close, the connection still ends after the reply
  const post = await rawHttp(
    m.httpPort,
    'POST /api/auth HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"password":"x"}',
  );
  expectEnvelope(post, 400, "bad_request");
  // the server is still serving
  expect((await m.api("/api/info/login")).status).toBe(200);
});

test("unknown and unrouted methods get the envelope, never a closed connection", async () => {
  for (const method of ["FOO", "BREW", "PROPFIND", "TRACE", "CONNECT", "M-SEARCH"]) {
    const r = await rawHttp(m.httpPort, req(`${method} /api/info/login HTTP/1.1`));
    const body = expectEnvelope(r, r.status, r.status === 404 ? "not_found" : "bad_request");
    expect([400, 404, 405], `${method}: ${r.status}`).toContain(r.status);
    expect(body.error.message.length).toBeGreaterThan(0);
  }
});

test("a request line or header block over the limit is 431 in the envelope", async () => {
  const r = await rawHttp(m.httpPort, req(`GET /api/info/login?${"a".repeat(20_000)} HTTP/1.1`));
  const body = expectEnvelope(r, 431, "bad_request");
  expect(body.error.message).toContain("larger than");
  const h = await rawHttp(
    m.httpPort,
    req("GET /api/info/login HTTP/1.1", ["Host: 127.0.0.1", `X-Big: ${"b".repeat(20_000)}`]),
  );
  expectEnvelope(h, 431, "bad_request");
});

test("garbage and malformed request lines are 400 in the envelope", async () => {
  for (const raw of [
    "garbage\r\n\r\n",
    "GET\r\n\r\n",
    "GET / HTTP/9.9\r\n\r\n",
    "GET /api/info/login HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
  ]) {
    const r = await rawHttp(m.httpPort, raw);
    expectEnvelope(r, r.status, "bad_request");
    expect([400, 405]).toContain(r.status);
  }
  // the server is still serving
  expect((await m.api("/api/info/login")).status).toBe(200);
});

test("an absolute-form request target is served by its path", async () => {
  const r = await rawHttp(m.httpPort, req("GET http://elsewhere.example/api/info/login HTTP/1.1"));
  expect(r.status).toBe(200);
});

test("numbers past what SQLite binds as an integer are clamped, not a 500 (found by test/fuzz/api)", async () => {
  const r = await m.api("/api/queries?start=99999999999999999999&length=99999999999999999999");
  expect(r.status).toBe(200);
  expect(((await r.json()) as { queries: unknown[] }).queries).toEqual([]);
  for (const path of [
    "/api/stats/top_domains?count=1e300",
    "/api/history/database?from=-1e300&until=1e300",
    "/api/queries?from=1e300&until=-1e300&length=-99999999999999999999",
  ]) {
    expect((await m.api(path)).status, path).toBeLessThan(500);
  }
});

test("strings that are not Unicode text (unpaired surrogate escapes) are refused (found by test/fuzz/api)", async () => {
  for (const body of [
    '{"client":"\\ud800::1"}',
    '{"client":"a","comment":"\\udfff"}',
    '{"\\ud800":1}',
    '[[["\\udbff"]]]',
  ]) {
    const r = await m.api("/api/clients", { method: "POST", body });
    expect(r.status, body).toBe(400);
    const e = ((await r.json()) as { error: { key: string; hint: string } }).error;
    expect(e.key).toBe("bad_request");
    expect(e.hint).toContain("surrogate");
  }
  // a proper pair is text
  const ok = await m.api("/api/clients", { method: "POST", body: '{"client":"127.0.0.9","comment":"\\ud83d\\ude00"}' });
  expect(ok.status).toBe(201);
  // and a big raw reply with non-ASCII text is read whole (chunked over a raw socket)
  const docs = await rawHttp(m.httpPort, "GET /api/docs/json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  expect(JSON.parse(docs.body).openapi).toBeDefined();
});
