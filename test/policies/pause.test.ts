// The pause policy (src/policies/pause/) against the real server: a paused address or client ID is blocked, the pause
// ends by itself or when resumed, and survives a restart.
import { describe, expect, test } from "bun:test";
import { call } from "../lists/helpers.ts";
import { until } from "../dns/helpers.ts";
import { dohA, digA, FWD, t, useFamily } from "./family.ts";

useFamily();

describe("pausing a client", () => {
  test("UDP: a paused address is blocked, another is not, and the pause ends by itself", async () => {
    const r = await call(t.moat, "POST", "/api/pauses/127.0.0.3", { minutes: 0.05 });
    expect(r.status).toBe(200);
    expect(r.json.pauses).toContainEqual({ client: "127.0.0.3", until: expect.any(Number) });
    expect(await digA("pause1.test", "127.0.0.3")).toEqual({ addr: "0.0.0.0", ede: "client paused" });
    expect((await digA("pause1.test", "127.0.0.2")).addr).toBe(FWD);
    await until(async () => (await digA("pause2.test", "127.0.0.3")).addr === FWD, 8000, "the pause to end");
    expect((await call(t.moat, "GET", "/api/pauses")).json.pauses).toEqual([]);
  });

  test("DoH: a paused client ID is blocked until resumed, also across a restart", async () => {
    expect((await call(t.moat, "POST", "/api/pauses/kid", {})).status).toBe(200);
    expect(await dohA("pause3.test", "kid")).toEqual({ addr: "0.0.0.0", ede: "client paused" });
    expect((await dohA("pause3.test", "teen")).addr).toBe(FWD);
    await t.moat.restart();
    expect((await call(t.moat, "GET", "/api/pauses")).json.pauses).toEqual([{ client: "kid", until: null }]);
    expect((await dohA("pause4.test", "kid")).addr).toBe("0.0.0.0");
    const q = await call(t.moat, "GET", "/api/queries?domain=pause3.test");
    expect(q.json.queries.some((x: { status: string; list_id: number }) => x.list_id === -1_000_000)).toBe(true);
    expect((await t.moat.api("/api/pauses/kid", { method: "DELETE" })).status).toBe(204);
    expect((await dohA("pause5.test", "kid")).addr).toBe(FWD);
    expect((await t.moat.api("/api/pauses/kid", { method: "DELETE" })).status).toBe(404);
  });

  test("a client nothing has seen is paused with a warning that says so; one that asked, without", async () => {
    const unknown = await call(t.moat, "POST", "/api/pauses/192.0.2.99", { minutes: 5 });
    expect(unknown.status).toBe(200);
    expect(unknown.json.warning).toStartWith("No device has been seen as 192.0.2.99");
    expect(unknown.json.pauses).toContainEqual({ client: "192.0.2.99", until: expect.any(Number) });
    expect((await digA("pause6.test", "127.0.0.2")).addr).toBe(FWD);
    const seen = await call(t.moat, "POST", "/api/pauses/127.0.0.2", { minutes: 5 });
    expect([seen.status, seen.json.warning]).toEqual([200, undefined]);
    for (const c of ["192.0.2.99", "127.0.0.2"])
      expect((await t.moat.api(`/api/pauses/${c}`, { method: "DELETE" })).status).toBe(204);
  });

  test("an invalid client or duration is refused", async () => {
    expect((await call(t.moat, "POST", "/api/pauses/bad%20name", { minutes: 5 })).status).toBe(400);
    expect((await call(t.moat, "POST", "/api/pauses/127.0.0.9", { minutes: -1 })).status).toBe(400);
  });
});
