// Attacks on logging in, from distinct loopback addresses: a client guessing passwords is rate
// limited on its own (it used to lock everyone out: 1 of 14 correct logins got through), and a
// client holding every session seat gives way to another client and to the CLI password, also
// across a restart (it used to lock the administrator out for 30 minutes).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clientKey } from "../../src/auth/client-key.ts";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { callFrom } from "./auth-helpers.ts";

setDefaultTimeout(25000);
const PW = "admin password";
const SEATS = 6;
const ATTACKER = "127.0.0.2";
const ADMIN = "127.0.0.3";
let m: MoatProcess;

beforeAll(async () => {
  m = await startMoat({
    env: { FTLCONF_webserver_api_password: PW, FTLCONF_webserver_api_max_sessions: String(SEATS) },
  });
});
afterAll(async () => {
  await m.dispose();
});

const loginFrom = (from: string, password: string, headers: Record<string, string> = {}) =>
  callFrom(m, from, "/api/auth", { method: "POST", body: JSON.stringify({ password }), headers });
const logoutFrom = (from: string, sid: string) =>
  callFrom(m, from, "/api/auth", { method: "DELETE", headers: { sid } });

test("clients are counted by IPv4 address and by IPv6 /64", () => {
  expect(clientKey("192.0.2.7")).toBe("192.0.2.7");
  expect(clientKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
  expect(clientKey("2001:db8:1:2:ffff:eeee:dddd:cccc")).toBe(clientKey("2001:0db8:0001:0002::9"));
  expect(clientKey("2001:db8:1:3::1")).not.toBe(clientKey("2001:db8:1:2::1"));
  expect(clientKey("::1")).toBe("0:0:0:0::/64");
  expect(clientKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
});

test("one address guessing passwords is slowed with Retry-After; the administrator elsewhere logs in every time", async () => {
  const deadline = Date.now() + 5000;
  const attacker: Array<{ status: number; retryAfter: string | undefined; key: string }> = [];
  // the attacker also claims to be the administrator in X-Forwarded-For, which is not believed
  const worker = async () => {
    while (Date.now() < deadline && attacker.length < 400) {
      const r = await loginFrom(ATTACKER, `guess-${attacker.length}`, { "x-forwarded-for": ADMIN });
      attacker.push({
        status: r.status,
        retryAfter: r.headers["retry-after"] as string | undefined,
        key: r.body?.error?.key,
      });
    }
  };
  const attack = Promise.all([worker(), worker(), worker(), worker()]);
  const admin: number[] = [];
  await Bun.sleep(300);
  while (Date.now() < deadline - 300 && admin.length < 14) {
    const r = await loginFrom(ADMIN, PW);
    admin.push(r.status);
    if (r.status === 200) await logoutFrom(ADMIN, r.body!.session.sid);
  }
  await attack;
  console.log(
    `attacker: ${attacker.length} attempts, ${attacker.filter((a) => a.status === 429).length} rate limited; administrator: ${admin.join(",")}`,
  );
  expect(admin.length).toBeGreaterThan(2);
  expect(admin.every((s) => s === 200)).toBe(true);
  const limited = attacker.filter((a) => a.status === 429);
  expect(limited.length).toBeGreaterThan(0);
  for (const a of limited) {
    expect(a.key).toBe("rate_limiting");
    expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
  }
  for (const a of attacker) expect([401, 429]).toContain(a.status);
  // and the attacker's own limit ends: after a quiet second its next guess is checked again
  await Bun.sleep(1100);
  expect((await loginFrom(ATTACKER, "one more guess")).status).toBe(401);
});

test("a client holding every seat gives way to another address and to the CLI password, also after a restart", async () => {
  const held: string[] = [];
  for (let i = 0; i < SEATS; i++) {
    const r = await loginFrom(ATTACKER, PW);
    expect(r.status).toBe(200);
    held.push(r.body!.session.sid);
  }
  // the hoarder itself gets no more
  const more = await loginFrom(ATTACKER, PW);
  expect(more.status).toBe(429);
  expect(more.body!.error.key).toBe("api_seats_exceeded");
  // an address holding none gets a seat: the hoarder's least recently used one
  const admin = await loginFrom(ADMIN, PW);
  expect(admin.status).toBe(200);
  const adminSid = admin.body!.session.sid as string;
  expect((await callFrom(m, ATTACKER, "/api/dns/blocking", { headers: { sid: held[0]! } })).status).toBe(401);
  expect((await callFrom(m, ATTACKER, "/api/dns/blocking", { headers: { sid: held[1]! } })).status).toBe(200);
  expect((await callFrom(m, ADMIN, "/api/dns/blocking", { headers: { sid: adminSid } })).status).toBe(200);
  // the CLI password always gets a seat, even from the hoarding address
  const cliPw = readFileSync(join(m.dataDir, "cli_pw"), "utf8").trim();
  const cli = await loginFrom(ATTACKER, cliPw);
  expect(cli.status).toBe(200);
  // across a restart the seats are restored, and still give way
  await m.restart();
  const second = await loginFrom("127.0.0.4", PW);
  expect(second.status).toBe(200);
  expect((await callFrom(m, ADMIN, "/api/dns/blocking", { headers: { sid: adminSid } })).status).toBe(200);
  expect((await loginFrom(ATTACKER, PW)).status).toBe(429);
});
