// The HTTP layer (src/http/) against the real server: a GET's JSON body carries the SID exactly as
// Pi-hole's API checker sends its first request, bodies are refused without being read, and the
// mounts (/api, /metrics, /admin/, /api/docs) answer as before.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { getWithBody } from "../harness/get-with-body.ts";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

const PASSWORD = "http layer";
let m: MoatProcess;
let sid: string;

beforeAll(async () => {
  m = await startMoat({ configToml: `[webserver.api]\npassword = "${PASSWORD}"\n` });
  const r = await m.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  sid = ((await r.json()) as { session: { sid: string } }).session.sid;
});
afterAll(async () => {
  await m.dispose();
});

test('GET /api/endpoints with {"sid": …} in its JSON body authenticates (Pi-hole\'s checker)', async () => {
  const r = await getWithBody(`${m.base}/api/endpoints`, JSON.stringify({ sid }));
  expect(r.status).toBe(200);
  const body = (await r.json()) as { endpoints: { get: unknown[] } };
  expect(body.endpoints.get.length).toBeGreaterThan(10);
  // the refreshed session cookie comes back, as on every authenticated request
  expect(r.headers.get("set-cookie")).toContain(`sid=${sid}`);
  // GET /api/auth reports the session found in the body
  const a = (await (await getWithBody(`${m.base}/api/auth`, JSON.stringify({ sid }))).json()) as {
    session: { valid: boolean };
  };
  expect(a.session.valid).toBe(true);
});

test("a GET body with a wrong SID, no SID or no JSON is 401", async () => {
  for (const body of [JSON.stringify({ sid: "not-a-session" }), "{}", "not json"]) {
    const r = await getWithBody(`${m.base}/api/endpoints`, body);
    expect(r.status).toBe(401);
    expect(((await r.json()) as { error: { key: string } }).error.key).toBe("unauthorized");
  }
});

test("the body's SID comes first, as in Pi-hole: a bad one there is not rescued by a good header", async () => {
  const r = await getWithBody(`${m.base}/api/endpoints`, JSON.stringify({ sid: "not-a-session" }), { sid });
  expect(r.status).toBe(401);
});

test("a GET body over 64 KiB is 413 in the JSON envelope", async () => {
  const r = await getWithBody(`${m.base}/api/endpoints`, JSON.stringify({ sid, pad: "x".repeat(70 * 1024) }));
  expect(r.status).toBe(413);
  expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(((await r.json()) as { error: { key: string } }).error.key).toBe("payload_too_large");
});

test("mounts: /api/docs, /admin/, /metrics and paths outside them", async () => {
  expect((await m.api("/api/docs")).headers.get("content-type")).toContain("text/html");
  const admin = await m.api("/admin/");
  expect(admin.status).toBe(200);
  expect(await admin.text()).toContain("<html");
  expect((await m.api("/admin", { redirect: "manual" })).status).toBe(308);
  // /metrics is its own mount: without a token configured it says so
  const metrics = (await (await m.api("/metrics")).json()) as { error: { hint: string } };
  expect(metrics.error.hint).toContain("metricsToken");
  for (const path of ["/apix", "/nothing/here"]) {
    const r = await m.api(path);
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { hint: string } }).error.hint).toBe(path);
  }
});

test("POST bodies still reach the routes (JSON and the gravity progress stream)", async () => {
  const r = await m.api("/api/groups", {
    method: "POST",
    headers: { sid },
    body: JSON.stringify({ name: "via node:http" }),
  });
  expect(r.status).toBe(201);
  const g = await m.api("/api/action/gravity", { method: "POST", headers: { sid } });
  expect(g.status).toBe(200);
  expect(await g.text()).toContain("Done");
});
