// The API core against the real server: envelope, took, content type, bad bodies, unknown paths.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

let moat: MoatProcess;
beforeAll(async () => {
  moat = await startMoat();
});
afterAll(async () => {
  await moat.dispose();
});

async function json(r: Response) {
  expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
  return (await r.json()) as Record<string, any>;
}

test("unknown path: 404 not_found with the path as hint, and took", async () => {
  const r = await moat.api("/api/no/such/thing");
  expect(r.status).toBe(404);
  const b = await json(r);
  expect(b.error).toEqual({ key: "not_found", message: "Not found", hint: "/api/no/such/thing" });
  expect(typeof b.took).toBe("number");
});

test("wrong method on a known path is 404 like Pi-hole", async () => {
  const r = await moat.api("/api/info/version", { method: "PATCH" });
  expect(r.status).toBe(404);
  expect((await json(r)).error.key).toBe("not_found");
});

test("malformed JSON, empty body, wrong type, huge body, invalid UTF-8", async () => {
  const post = (body: string | Uint8Array | null, headers: Record<string, string> = {}) =>
    moat.api("/api/dns/blocking", { method: "POST", body, headers });
  let r = await post("{bad");
  expect(r.status).toBe(400);
  expect((await json(r)).error).toMatchObject({
    key: "bad_request",
    message: "Invalid request body data (no valid JSON), error at hint",
  });
  r = await post(null);
  expect(r.status).toBe(400);
  expect((await json(r)).error).toMatchObject({ key: "bad_request", message: "No request body data" });
  r = await post(JSON.stringify({ blocking: "yes" }));
  expect(r.status).toBe(400);
  expect((await json(r)).error).toMatchObject({ key: "body_error", message: 'No "blocking" boolean in body data' });
  r = await post(JSON.stringify({ blocking: true, pad: "x".repeat(1024 * 1024) }));
  expect(r.status).toBe(413);
  expect((await json(r)).error.key).toBe("payload_too_large");
  r = await post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
  expect(r.status).toBe(400);
  expect((await json(r)).error.key).toBe("bad_request");
  r = await post(JSON.stringify({ blocking: true, comment: "'; DROP TABLE domainlist; --" }));
  expect(r.status).toBe(200);
  // still healthy
  r = await moat.api("/api/info/login");
  expect(r.status).toBe(200);
});

test("JSON is parsed whatever the Content-Type (curl -d)", async () => {
  const r = await moat.api("/api/dns/blocking", {
    method: "POST",
    body: JSON.stringify({ blocking: true }),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  expect(r.status).toBe(200);
  expect((await json(r)).blocking).toBe(true);
});

test("security headers on every reply, OPTIONS lists methods", async () => {
  const r = await moat.api("/api/info/login");
  expect(r.headers.get("x-frame-options")).toBe("DENY");
  expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  await r.arrayBuffer();
  const o = await moat.api("/api/dns/blocking", { method: "OPTIONS" });
  expect(o.status).toBe(204);
  expect(o.headers.get("allow")).toContain("GET");
  expect(o.headers.get("allow")).toContain("POST");
});

test("docs render on the server and the endpoint list derives from the route table", async () => {
  const d = await moat.api("/api/docs");
  expect(d.status).toBe(200);
  const html = await d.text();
  // written on the server: every route is on the page, nothing is loaded from elsewhere
  expect(html).toContain("<code>/api/dns/blocking</code>");
  expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
  const spec = (await (await moat.api("/api/docs/json")).json()) as { paths: Record<string, unknown> };
  expect(Object.keys(spec.paths)).toContain("/api/dns/blocking");
  const e = await json(await moat.api("/api/endpoints"));
  expect(e.endpoints.post).toContainEqual({ uri: "/api/dns/blocking", parameters: "" });
});

test("blocking timer flips the state back", async () => {
  let b = await json(
    await moat.api("/api/dns/blocking", { method: "POST", body: JSON.stringify({ blocking: false, timer: 1 }) }),
  );
  expect(b.blocking).toBe(false);
  expect(b.timer).toBeGreaterThan(0);
  const deadline = Date.now() + 10000;
  do {
    await Bun.sleep(200);
    b = await json(await moat.api("/api/dns/blocking"));
  } while (b.blocking !== true && Date.now() < deadline);
  expect(b).toMatchObject({ blocking: true, timer: null });
});
