// GET /api/guide/check: the setup guide's evidence that a device uses Moat. A real query (dig) from
// the asking address counts as recent; a probe name counts only once a query for it arrives, and
// the reply names the address it came from. Moat answers the probe zone itself (NXDOMAIN).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { run, startMoat, type MoatProcess } from "../harness/moat.ts";

const PASSWORD = "guide password";
let moat: MoatProcess;
let sid = "";

beforeAll(async () => {
  moat = await startMoat({ env: { FTLCONF_webserver_api_password: PASSWORD } });
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  sid = ((await r.json()) as { session: { sid: string } }).session.sid;
});

afterAll(async () => {
  await moat?.dispose();
});

type Check = {
  address: string;
  recent: number;
  last: number | null;
  zone: string;
  probe: { name: string; seen: boolean; client: string | null } | null;
  hidden: boolean;
};

async function check(query = "", withSid = true): Promise<{ status: number; body: { check: Check } }> {
  const r = await moat.api(`/api/guide/check${query}`, { headers: withSid ? { sid } : {} });
  return { status: r.status, body: (await r.json()) as { check: Check } };
}

const dig = (name: string) =>
  run(["dig", "+time=2", "+tries=1", "-p", String(moat.dnsPort), "@127.0.0.1", name, "A"]).then((r) => r.stdout);

test("a probe name is unseen until a query for it arrives, then seen from the querying address", async () => {
  expect((await check("", false)).status).toBe(401);
  const before = await check("?probe=abcdef0123456789");
  expect(before.status).toBe(200);
  expect(before.body.check.address).toBe("127.0.0.1");
  expect(before.body.check.recent).toBe(0);
  expect(before.body.check.last).toBeNull();
  expect(before.body.check.hidden).toBe(false);
  const zone = before.body.check.zone;
  expect(before.body.check.probe).toEqual({ name: `abcdef0123456789.${zone}`, seen: false, client: null });

  // another probe's query does not count for this one
  expect(await dig(`otherprobe0000.${zone}`)).toContain("status: NXDOMAIN");
  expect((await check("?probe=abcdef0123456789")).body.check.probe?.seen).toBe(false);

  const answer = await dig(`abcdef0123456789.${zone}`);
  // Moat answers the zone itself, so the probe never leaves the house
  expect(answer).toContain("status: NXDOMAIN");
  const after = (await check("?probe=ABCDEF0123456789")).body.check;
  expect(after.probe).toEqual({ name: `abcdef0123456789.${zone}`, seen: true, client: "127.0.0.1" });
  expect(after.recent).toBe(2);
  expect(after.last).toBeGreaterThan(Date.now() / 1000 - 60);
});

test("without a probe the reply has none; a malformed probe is refused in the error envelope", async () => {
  expect((await check()).body.check.probe).toBeNull();
  for (const bad of ["short", "has.dot.in.it", "x".repeat(41), "bad-hyphen1"]) {
    const r = await check(`?probe=${encodeURIComponent(bad)}`);
    expect(r.status).toBe(400);
    const body = r.body as unknown as { error: { key: string; message: string; hint: string } };
    expect(body.error.key).toBe("bad_request");
    expect(body.error.message.length).toBeGreaterThan(0);
  }
});

test("a privacy level that hides names or clients is said, as a probe's query can then not be found", async () => {
  const set = (level: number) =>
    moat.api("/api/config", {
      method: "PATCH",
      headers: { sid },
      body: JSON.stringify({ config: { misc: { privacylevel: level } } }),
    });
  expect((await set(1)).status).toBe(200);
  const zone = (await check()).body.check.zone;
  await dig(`hiddenprobe00001.${zone}`);
  const c = (await check("?probe=hiddenprobe00001")).body.check;
  expect(c.hidden).toBe(true);
  expect(c.probe?.seen).toBe(false);
  expect((await set(0)).status).toBe(200);
  expect((await check()).body.check.hidden).toBe(false);
});
