// Attacks on logging in, from distinct loopback addresses: a client guessing passwords is rate
// limited on its own (it used to lock everyone out: 1 of 14 correct logins got through), a
// client holding every session seat gives way to another client and to the CLI password, also
// across a restart (it used to lock the administrator out for 30 minutes), and a client that logs
// in on every poll reuses its own seats (it used to lock itself out with api_seats_exceeded).
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
  // an address holding none gets a seat: the hoarder's least recently used one
  const admin = await loginFrom(ADMIN, PW);
  expect(admin.status).toBe(200);
  const adminSid = admin.body!.session.sid as string;
  expect((await callFrom(m, ATTACKER, "/api/dns/blocking", { headers: { sid: held[0]! } })).status).toBe(401);
  expect((await callFrom(m, ATTACKER, "/api/dns/blocking", { headers: { sid: held[1]! } })).status).toBe(200);
  expect((await callFrom(m, ADMIN, "/api/dns/blocking", { headers: { sid: adminSid } })).status).toBe(200);
  // the CLI password always gets a seat, even from the hoarding address (its own least recently used)
  const cliPw = readFileSync(join(m.dataDir, "cli_pw"), "utf8").trim();
  const cli = await loginFrom(ATTACKER, cliPw);
  expect(cli.status).toBe(200);
  expect((await callFrom(m, ADMIN, "/api/dns/blocking", { headers: { sid: adminSid } })).status).toBe(200);
  // across a restart the seats are restored, and still give way
  await m.restart();
  const second = await loginFrom("127.0.0.4", PW);
  expect(second.status).toBe(200);
  expect((await callFrom(m, ADMIN, "/api/dns/blocking", { headers: { sid: adminSid } })).status).toBe(200);
  // the hoarder's own new login takes its own seat, never the administrator's or 127.0.0.4's
  expect((await loginFrom(ATTACKER, PW)).status).toBe(200);
  expect((await callFrom(m, ADMIN, "/api/dns/blocking", { headers: { sid: adminSid } })).status).toBe(200);
  expect(
    (await callFrom(m, "127.0.0.4", "/api/dns/blocking", { headers: { sid: second.body!.session.sid } })).status,
  ).toBe(200);
  await endAll(ADMIN, adminSid);
});

/** Logs out every session: the others by id through `sid`'s, then `sid`'s own. */
async function endAll(from: string, sid: string): Promise<void> {
  const list = await callFrom(m, from, "/api/auth/sessions", { headers: { sid } });
  for (const s of list.body!.sessions as Array<{ id: number; current_session: boolean }>)
    if (!s.current_session)
      await callFrom(m, from, `/api/auth/session/${s.id}`, { method: "DELETE", headers: { sid } });
  await logoutFrom(from, sid);
}

test("an address that logs in again and again with every seat taken reuses its own least recently used seat", async () => {
  // a browser keeps one session; another client holds two
  const browser = await loginFrom(ADMIN, PW);
  const other = [await loginFrom("127.0.0.5", PW), await loginFrom("127.0.0.5", PW)];
  for (const r of [browser, ...other]) expect(r.status).toBe(200);
  // a script (Home Assistant polling) logs in on every poll and never logs out: three times the table
  const script = "127.0.0.6";
  const sids: string[] = [];
  for (let i = 0; i < SEATS * 3; i++) {
    const r = await loginFrom(script, PW);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    sids.push(r.body!.session.sid);
    // its newest session works at once
    expect((await callFrom(m, script, "/api/dns/blocking", { headers: { sid: r.body!.session.sid } })).status).toBe(
      200,
    );
  }
  // nobody else's seat moved
  expect((await callFrom(m, ADMIN, "/api/dns/blocking", { headers: { sid: browser.body!.session.sid } })).status).toBe(
    200,
  );
  for (const r of other)
    expect(
      (await callFrom(m, "127.0.0.5", "/api/dns/blocking", { headers: { sid: r.body!.session.sid } })).status,
    ).toBe(200);
  // the script holds the rest of the table: its newest sessions; its oldest have given way
  const list = await callFrom(m, ADMIN, "/api/auth/sessions", { headers: { sid: browser.body!.session.sid } });
  const byAddr = (a: string) =>
    (list.body!.sessions as Array<{ remote_addr: string }>).filter((s) => s.remote_addr === a).length;
  expect(byAddr(script)).toBe(SEATS - 3);
  expect(byAddr(ADMIN)).toBe(1);
  expect(byAddr("127.0.0.5")).toBe(2);
  expect((await callFrom(m, script, "/api/dns/blocking", { headers: { sid: sids[0]! } })).status).toBe(401);
  // the fair-share rules stay: an address holding none takes the biggest holder's (the script's) oldest seat
  const newcomer = await loginFrom("127.0.0.7", PW);
  expect(newcomer.status).toBe(200);
  expect((await callFrom(m, ADMIN, "/api/dns/blocking", { headers: { sid: browser.body!.session.sid } })).status).toBe(
    200,
  );
  const after = await callFrom(m, ADMIN, "/api/auth/sessions", { headers: { sid: browser.body!.session.sid } });
  expect((after.body!.sessions as Array<{ remote_addr: string }>).filter((s) => s.remote_addr === script).length).toBe(
    SEATS - 4,
  );
  await endAll(ADMIN, browser.body!.session.sid);
});
