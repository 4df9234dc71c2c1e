// POST /api/dns/blocking's timer: long timers last (past setTimeout's 2^31 ms), and timers out of
// range (negative, 1e308, past the documented year) get the error envelope and change nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

let moat: MoatProcess;
beforeAll(async () => {
  moat = await startMoat();
});
afterAll(async () => {
  await moat.dispose();
});

const post = async (body: unknown) => {
  const r = await moat.api("/api/dns/blocking", { method: "POST", body: JSON.stringify(body) });
  const { took: _, ...json } = (await r.json()) as any;
  return { status: r.status, json };
};
const get = async () => {
  const { took: _, ...json } = (await (await moat.api("/api/dns/blocking")).json()) as any;
  return json;
};

test("a 30-day timer keeps blocking off (no 2^31 ms overflow) and counts down from 30 days", async () => {
  const r = await post({ blocking: false, timer: 2592000 });
  expect(r.status).toBe(200);
  expect(r.json.blocking).toBe(false);
  expect(r.json.timer).toBeGreaterThan(2591990);
  await Bun.sleep(1500);
  const now = await get();
  expect(now.blocking).toBe(false);
  expect(now.timer).toBeGreaterThan(2591990);
  expect(moat.output).not.toContain("TimeoutOverflowWarning");
  expect((await post({ blocking: true })).json).toEqual({ blocking: true, timer: null });
});

test("timers out of range: 400 with the envelope, and the state stays as it was", async () => {
  for (const timer of [1e308, -5, 365 * 86400 + 1, "10"]) {
    const r = await post({ blocking: false, timer });
    expect(r.status).toBe(400);
    expect(r.json.error).toEqual({
      key: "bad_request",
      message: 'Invalid "timer": a number of seconds from 0 to 31536000, or null',
      hint: null,
    });
    expect(r.json.blocking).toBeUndefined();
    expect(await get()).toEqual({ blocking: true, timer: null });
  }
  // the edges: 0 and null are permanent, a year is accepted
  expect((await post({ blocking: true, timer: 0 })).json).toEqual({ blocking: true, timer: null });
  const year = await post({ blocking: false, timer: 365 * 86400 });
  expect(year.status).toBe(200);
  expect(year.json.timer).toBeGreaterThan(365 * 86400 - 10);
  expect((await post({ blocking: true, timer: null })).json).toEqual({ blocking: true, timer: null });
});
