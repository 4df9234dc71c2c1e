// GET /api/endpoints is Pi-hole's route table, derived from Moat's own routes; the literal path
// templates Pi-hole's checker requests answer as Pi-hole answers them; /admin is alive.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, login } from "../config/helpers.ts";
import { PIHOLE_GET_PATHS, PIHOLE_OPERATIONS } from "./pihole-endpoints.ts";

const PASSWORD = "endpoints";
let compat: MoatProcess;
let plain: MoatProcess;
let sid: string;
let plainSid: string;

beforeAll(async () => {
  const toml = (c: boolean) => `[webserver.api]\npassword = "${PASSWORD}"\npiholeCompat = ${c}\n`;
  [compat, plain] = await Promise.all([startMoat({ configToml: toml(true) }), startMoat({ configToml: toml(false) })]);
  [sid, plainSid] = await Promise.all([login(compat, PASSWORD), login(plain, PASSWORD)]);
}, 60000);
afterAll(async () => {
  await Promise.all([compat.dispose(), plain.dispose()]);
});

const lines = (endpoints: Record<string, Array<{ uri: string; parameters: string }>>) =>
  Object.entries(endpoints)
    .flatMap(([m, list]) => list.map((e) => `${m.toUpperCase()} ${e.uri}${e.parameters ? ` ${e.parameters}` : ""}`))
    .sort();

test("compatibility mode: the 85 operations of Pi-hole's table, nothing else", async () => {
  const r = await call(compat, "GET", "/api/endpoints", undefined, sid);
  expect(r.status).toBe(200);
  expect(Object.keys(r.body.endpoints)).toEqual(["get", "post", "put", "patch", "delete"]);
  const want = PIHOLE_OPERATIONS.map(
    (o) => `${o.method.toUpperCase()} ${o.uri}${o.parameters ? ` ${o.parameters}` : ""}`,
  ).sort();
  expect(want.length).toBe(85);
  expect(lines(r.body.endpoints)).toEqual(want);
  expect(r.body.endpoints.get).toContainEqual({ uri: "/api/clients", parameters: "/{client}" });
  expect(r.body.endpoints.get).toContainEqual({ uri: "/api/docs", parameters: "" });
});

test("default mode lists Pi-hole's operations too (plus any of Moat's own)", async () => {
  const r = await call(plain, "GET", "/api/endpoints", undefined, plainSid);
  const got = new Set(lines(r.body.endpoints));
  for (const o of PIHOLE_OPERATIONS)
    expect(got.has(`${o.method.toUpperCase()} ${o.uri}${o.parameters ? ` ${o.parameters}` : ""}`)).toBe(true);
});

test("every GET of the table answers 200 when asked literally, templates and all (as Pi-hole's checker asks)", async () => {
  const now = Math.floor(Date.now() / 1000);
  for (const path of PIHOLE_GET_PATHS) {
    // the long-term statistics require from and until, which the checker sends from the spec's examples
    const range = /\/(stats|history)\/database/.test(path) ? `?from=${now - 3600}&until=${now}` : "";
    const r = await compat.api(path.replace(/[{}]/g, (c) => encodeURIComponent(c)) + range, { headers: { sid } });
    await r.arrayBuffer();
    expect(`${path} ${r.status}`).toBe(`${path} 200`);
  }
  const search = await call(compat, "GET", "/api/search/%7Bdomain%7D", undefined, sid);
  expect(search.body.search.results.total).toBe(0);
  expect((await call(compat, "GET", "/api/config/%7Belement%7D", undefined, sid)).body.config).toEqual({});
  // Moat's own mode keeps its clearer answers
  expect((await call(plain, "GET", "/api/search/%7Bdomain%7D", undefined, plainSid)).status).toBe(400);
  expect((await call(plain, "GET", "/api/config/%7Belement%7D", undefined, plainSid)).status).toBe(404);
}, 30000);

test("GET /admin is alive for Pi-hole's clients (200, or a redirect to the dashboard)", async () => {
  const r = await compat.api("/admin", { redirect: "manual" });
  await r.arrayBuffer();
  expect([200, 308]).toContain(r.status);
});
