// The fleet's Redis URL follows the address rule of every URL Moat connects to (src/net/address-rule.ts):
// a link-local address (cloud metadata) is refused when it is written, and a name that leads to Moat's
// own web server (here with a trailing dot, which getaddrinfo would not resolve) is refused when the
// node connects, with the reason in GET /api/fleet, instead of Moat speaking Redis to its own API.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call } from "../lists/helpers.ts";
import { until } from "../dns/helpers.ts";
import { fleetView } from "./helpers.ts";

let moat: MoatProcess;
beforeAll(async () => {
  moat = await startMoat();
});
afterAll(async () => {
  await moat?.dispose();
});

test("fleet.redis: link-local refused when set, Moat's own web server refused when connecting", async () => {
  for (const url of ["redis://169.254.169.254:6379", "redis://[::ffff:169.254.169.254]/", "rediss://[fe80::1]:6380"]) {
    const r = await call(moat, "PATCH", "/api/config", { config: { fleet: { redis: url } } });
    expect(r.status, url).toBe(400);
    expect(r.json.error.hint, url).toMatch(
      /^fleet\.redis: not an address Moat connects to: .* is a link-local address/,
    );
  }
  const own = `redis://moat.localhost.:${moat.httpPort}`;
  expect((await call(moat, "PATCH", "/api/config", { config: { fleet: { redis: own } } })).status).toBe(200);
  await moat.restart();
  let error = "";
  await until(
    async () => {
      error = (await fleetView(moat)).error ?? "";
      return error !== "";
    },
    10_000,
    "GET /api/fleet reports the refused connection",
  );
  expect(error).toBe(`moat.localhost resolves to 127.0.0.1 port ${moat.httpPort} is Moat's own web server`);
});
