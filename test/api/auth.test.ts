// Session authentication against the real server (README "Authentication": session table,
// login and logout rules, the SID channels, docs/pihole-differences.md). One server with a
// password and a small session table; every test gives its sessions back.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, callFrom, login, type Json } from "./auth-helpers.ts";

// Balloon runs take a few hundred ms each, more on a loaded machine
setDefaultTimeout(20000);

const PW = "correct horse battery staple";
const CAP = 4;
let moat: MoatProcess;
/** SIDs to log out after each test, with the address they are bound to */
const opened = new Map<string, string>();

beforeAll(async () => {
  moat = await startMoat({
    env: {
      FTLCONF_webserver_api_password: PW,
      FTLCONF_webserver_api_max_sessions: String(CAP),
      FTLCONF_webserver_api_loginRateLimit: "0",
    },
  });
});
afterAll(async () => {
  await moat.dispose();
});
afterEach(async () => {
  for (const [sid, from] of opened) await callFrom(moat, from, "/api/auth", { method: "DELETE", headers: { sid } });
  opened.clear();
});

async function session(): Promise<Json> {
  const r = await login(moat, PW);
  expect(r.status).toBe(200);
  opened.set(r.body!.session.sid, "127.0.0.1");
  return r.body!.session;
}

const blocking = (init: RequestInit = {}, query = "") => call(moat, `/api/dns/blocking${query}`, init);
const expectUnauthorized = (r: { status: number; body: Json | null }) => {
  expect(r.status).toBe(401);
  expect(r.body!.error).toEqual({ key: "unauthorized", message: "Unauthorized", hint: null });
  expect(typeof r.body!.took).toBe("number");
};

test("row 1 / rule 1: the correct password gives a new session with sid, csrf, validity and the cookie", async () => {
  const r = await login(moat, PW);
  expect(r.status).toBe(200);
  const s = r.body!.session;
  opened.set(s.sid, "127.0.0.1");
  expect(s).toMatchObject({ valid: true, totp: false, validity: 1800, message: "password correct" });
  expect(s.sid).toMatch(/^[A-Za-z0-9+/]{22}=$/);
  expect(s.csrf).toMatch(/^[A-Za-z0-9+/]{22}=$/);
  expect(typeof r.body!.took).toBe("number");
  expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(r.headers.get("set-cookie")).toBe(`sid=${s.sid}; SameSite=Lax; Path=/; Max-Age=1800; HttpOnly`);
  // the SID works
  expect((await blocking({ headers: { sid: s.sid } })).status).toBe(200);
});

test("row 1: every login gets a fresh SID and CSRF token", async () => {
  const a = await session();
  const b = await session();
  expect(new Set([a.sid, b.sid, a.csrf, b.csrf]).size).toBe(4);
});

test("row 2 / rule 6: a wrong password is 401 unauthorized with took, and creates no session", async () => {
  const before = await session();
  const r = await login(moat, "wrong");
  expectUnauthorized(r);
  expect(r.headers.get("set-cookie")).toContain("sid=deleted");
  const list = await call(moat, "/api/auth/sessions", { headers: { sid: before.sid } });
  expect(list.body!.sessions.length).toBe(1);
});

test("rules 3-5: missing password, wrong type, malformed JSON, not an object", async () => {
  const bad = async (body: string | null, message: string) => {
    const r = await call(moat, "/api/auth", { method: "POST", body });
    expect(r.status).toBe(400);
    expect(r.body!.error.key).toBe("bad_request");
    expect(r.body!.error.message).toBe(message);
    expect(typeof r.body!.took).toBe("number");
    return r.body!.error;
  };
  expect((await bad("{}", "No password found in JSON payload")).hint).toBeNull();
  expect((await bad(JSON.stringify({ totp: 1 }), "No password found in JSON payload")).hint).toBeNull();
  for (const v of [5, true, null, ["x"], { a: 1 }])
    expect((await bad(JSON.stringify({ password: v }), "Field password has to be of type 'string'")).hint).toBeNull();
  await bad("{password:", "Invalid request body data (no valid JSON), error at hint");
  await bad("", "No request body data");
  const r = await call(moat, "/api/auth", { method: "POST", body: "[1,2]" });
  expect(r.status).toBe(400);
  expect(r.body!.error.key).toBe("bad_request");
});

test("a protected endpoint without a SID is 401 unauthorized", async () => {
  expectUnauthorized(await blocking());
  expectUnauthorized(await blocking({ headers: { sid: "not-a-session-id-at-all=" } }));
});

test("SID channels: header sid, X-FTL-SID, cookie with either CSRF header, query, body", async () => {
  const s = await session();
  expect((await blocking({ headers: { sid: s.sid } })).status).toBe(200);
  expect((await blocking({ headers: { "X-FTL-SID": s.sid } })).status).toBe(200);
  expect((await blocking({ headers: { cookie: `other=1; sid=${s.sid}`, "X-FTL-CSRF": s.csrf } })).status).toBe(200);
  expect((await blocking({ headers: { cookie: `sid=${s.sid}`, "X-CSRF-TOKEN": s.csrf } })).status).toBe(200);
  expect((await blocking({ headers: { cookie: `sid=${s.sid}`, "x-csrf-token": s.csrf } })).status).toBe(200);
  expect((await blocking({}, `?sid=${encodeURIComponent(s.sid)}`)).status).toBe(200);
  // unencoded: form decoding turns '+' into a space, which the server turns back
  expect((await blocking({}, `?sid=${s.sid}`)).status).toBe(200);
  // body: the POST passes authentication (it may still fail later, 500 dns_failure, when no DNS runs)
  const r = await blocking({ method: "POST", body: JSON.stringify({ blocking: true, sid: s.sid }) });
  expect(r.status).not.toBe(401);
  expect(r.body!.error?.key).not.toBe("unauthorized");
  expect((await blocking({ method: "POST", body: JSON.stringify({ blocking: true, sid: "nope" }) })).status).toBe(401);
});

test("cookie without CSRF token, or with a wrong one, is refused", async () => {
  const s = await session();
  expectUnauthorized(await blocking({ headers: { cookie: `sid=${s.sid}` } }));
  expectUnauthorized(await blocking({ headers: { cookie: `sid=${s.sid}`, "X-FTL-CSRF": "wrong" } }));
  expectUnauthorized(await blocking({ headers: { cookie: `sid=${s.sid}`, "X-FTL-CSRF": s.sid } }));
  // logout by cookie needs the token too
  expectUnauthorized(await call(moat, "/api/auth", { method: "DELETE", headers: { cookie: `sid=${s.sid}` } }));
  // GET /api/auth reports the session from the cookie alone (it only reads), like Pi-hole
  const st = await call(moat, "/api/auth", { headers: { cookie: `sid=${s.sid}` } });
  expect(st.status).toBe(200);
  expect(st.body!.session).toMatchObject({ valid: true, sid: s.sid, csrf: s.csrf, message: "correct password" });
});

test("precedence: body, then header sid, then X-FTL-SID, then cookie, then query", async () => {
  const s = await session();
  const bad = "AAAAAAAAAAAAAAAAAAAAAA=";
  const q = `?sid=${encodeURIComponent(s.sid)}`;
  const qBad = `?sid=${encodeURIComponent(bad)}`;
  // header beats query
  expect((await blocking({ headers: { sid: s.sid } }, qBad)).status).toBe(200);
  expect((await blocking({ headers: { sid: bad } }, q)).status).toBe(401);
  // sid header beats X-FTL-SID
  expect((await blocking({ headers: { sid: s.sid, "X-FTL-SID": bad } })).status).toBe(200);
  expect((await blocking({ headers: { sid: bad, "X-FTL-SID": s.sid } })).status).toBe(401);
  // X-FTL-SID beats a cookie sent without CSRF (clients that store the cookie, docs/pihole-differences.md)
  expect((await blocking({ headers: { "X-FTL-SID": s.sid, cookie: `sid=${bad}` } })).status).toBe(200);
  expect((await blocking({ headers: { "X-FTL-SID": bad, cookie: `sid=${s.sid}`, "X-FTL-CSRF": s.csrf } })).status).toBe(
    401,
  );
  // cookie beats query
  expect((await blocking({ headers: { cookie: `sid=${s.sid}`, "X-FTL-CSRF": s.csrf } }, qBad)).status).toBe(200);
  expect((await blocking({ headers: { cookie: `sid=${bad}`, "X-FTL-CSRF": s.csrf } }, q)).status).toBe(401);
  // body beats headers
  const post = (sid: string, header: string) =>
    blocking({ method: "POST", body: JSON.stringify({ blocking: true, sid }), headers: { sid: header } });
  expect((await post(s.sid, bad)).status).not.toBe(401);
  expect((await post(bad, s.sid)).status).toBe(401);
});

test("row 4: each successful request extends the session and resends the cookie", async () => {
  const s = await session();
  const until = async () =>
    (await call(moat, "/api/auth/sessions", { headers: { sid: s.sid } })).body!.sessions.find(
      (x: Json) => x.sid === undefined && x.current_session,
    ).valid_until as number;
  const first = await until();
  await Bun.sleep(1300);
  const r = await blocking({ headers: { sid: s.sid } });
  expect(r.headers.get("set-cookie")).toBe(`sid=${s.sid}; SameSite=Lax; Path=/; Max-Age=1800; HttpOnly`);
  expect(await until()).toBeGreaterThan(first);
});

test("DELETE /api/auth: 410 with no content, then the SID is refused", async () => {
  const s = await session();
  const r = await call(moat, "/api/auth", { method: "DELETE", headers: { sid: s.sid } });
  expect(r.status).toBe(410);
  expect(r.text).toBe("");
  expect(r.headers.get("set-cookie")).toContain("sid=deleted");
  expectUnauthorized(await blocking({ headers: { sid: s.sid } }));
  // a second logout has no session to end
  expectUnauthorized(await call(moat, "/api/auth", { method: "DELETE", headers: { sid: s.sid } }));
  expectUnauthorized(await call(moat, "/api/auth", { method: "DELETE" }));
  const st = await call(moat, "/api/auth", { headers: { sid: s.sid } });
  expect(st.status).toBe(401);
  expect(st.body!.session).toEqual({ valid: false, totp: false, sid: null, validity: -1, message: "session unknown" });
  // logout through the other channels
  for (const how of ["cookie", "query", "x-ftl-sid"] as const) {
    const t = await session();
    const init: RequestInit = { method: "DELETE" };
    let path = "/api/auth";
    if (how === "cookie") init.headers = { cookie: `sid=${t.sid}`, "X-FTL-CSRF": t.csrf };
    if (how === "x-ftl-sid") init.headers = { "X-FTL-SID": t.sid };
    if (how === "query") path += `?sid=${encodeURIComponent(t.sid)}`;
    expect((await call(moat, path, init)).status).toBe(410);
    expectUnauthorized(await blocking({ headers: { sid: t.sid } }));
  }
});

test("row 7: a session is bound to the client address", async () => {
  const s = await session();
  const from2 = await callFrom(moat, "127.0.0.2", "/api/dns/blocking", { headers: { sid: s.sid } });
  expect(from2.status).toBe(401);
  expect(from2.body!.error.key).toBe("unauthorized");
  // the rule alone does not end the session
  expect((await blocking({ headers: { sid: s.sid } })).status).toBe(200);
  const l = await callFrom(moat, "127.0.0.2", "/api/auth", { method: "POST", body: JSON.stringify({ password: PW }) });
  expect(l.status).toBe(200);
  const s2 = l.body!.session;
  opened.set(s2.sid, "127.0.0.2");
  expect((await callFrom(moat, "127.0.0.2", "/api/dns/blocking", { headers: { sid: s2.sid } })).status).toBe(200);
  expect((await blocking({ headers: { sid: s2.sid } })).status).toBe(401);
  const list = await call(moat, "/api/auth/sessions", { headers: { sid: s.sid } });
  expect(list.body!.sessions.map((x: Json) => x.remote_addr).sort()).toEqual(["127.0.0.1", "127.0.0.2"]);
});

/** A session opened from another loopback address, logged out after the test. */
async function sessionFrom(from: string): Promise<Json> {
  const r = await callFrom(moat, from, "/api/auth", { method: "POST", body: JSON.stringify({ password: PW }) });
  expect(r.status).toBe(200);
  opened.set(r.body!.session.sid, from);
  return r.body!.session;
}
const loginFrom = (from: string) =>
  callFrom(moat, from, "/api/auth", { method: "POST", body: JSON.stringify({ password: PW }) });

test("row 3: the session cap gives 429 api_seats_exceeded; logout and DELETE /api/auth/session free slots", async () => {
  // one seat each: nobody holds a seat to spare
  const all: Json[] = [await session()];
  for (const from of ["127.0.0.2", "127.0.0.3", "127.0.0.4"]) all.push(await sessionFrom(from));
  const r = await loginFrom("127.0.0.5");
  expect(r.status).toBe(429);
  expect(r.body!.error).toEqual({
    key: "api_seats_exceeded",
    message: "API seats exceeded",
    hint: "increase webserver.api.max_sessions",
  });
  expect(typeof r.body!.took).toBe("number");
  // logout frees one
  expect((await call(moat, "/api/auth", { method: "DELETE", headers: { sid: all[0]!.sid } })).status).toBe(410);
  opened.delete(all[0]!.sid);
  const again = await sessionFrom("127.0.0.5");
  expect((await loginFrom("127.0.0.6")).status).toBe(429);
  // deleting a session by id frees one too
  const list = await callFrom(moat, "127.0.0.5", "/api/auth/sessions", { headers: { sid: again.sid } });
  const other = (list.body!.sessions as Json[]).find((x: Json) => !x.current_session)!;
  const d = await callFrom(moat, "127.0.0.5", `/api/auth/session/${other.id}`, {
    method: "DELETE",
    headers: { sid: again.sid },
  });
  expect(d.status).toBe(204);
  await sessionFrom("127.0.0.6");
});

test("GET /api/auth/sessions lists the slots with Pi-hole's fields", async () => {
  const s = await session();
  const r = await call(moat, "/api/auth/sessions", { headers: { sid: s.sid, "user-agent": "moat-test" } });
  expect(r.status).toBe(200);
  const me = r.body!.sessions.find((x: Json) => x.current_session);
  expect(me).toMatchObject({
    valid: true,
    tls: { login: false, mixed: false },
    app: false,
    cli: false,
    remote_addr: "127.0.0.1",
    x_forwarded_for: null,
  });
  expect(Number.isInteger(me.id) && me.id >= 0 && me.id < CAP).toBe(true);
  expect(me.valid_until - me.last_active).toBe(1800);
  expect(Number.isInteger(me.login_at)).toBe(true);
  expectUnauthorized(await call(moat, "/api/auth/sessions"));
});

test("DELETE /api/auth/session/{id}: the 400 cases", async () => {
  const s = await session();
  const del = (id: string) => call(moat, `/api/auth/session/${id}`, { method: "DELETE", headers: { sid: s.sid } });
  const msg = async (id: string) => {
    const r = await del(id);
    expect(r.status).toBe(400);
    expect(r.body!.error.key).toBe("bad_request");
    return r.body!.error.message;
  };
  expect(await msg("abc")).toBe("Missing or invalid session ID");
  expect(await msg(String(CAP))).toBe("Session ID out of bounds");
  expect(await msg("-1")).toBe("Session ID out of bounds");
  const list = await call(moat, "/api/auth/sessions", { headers: { sid: s.sid } });
  const used = new Set(list.body!.sessions.map((x: Json) => x.id));
  const free = [...Array(CAP).keys()].find((i) => !used.has(i))!;
  expect(await msg(String(free))).toBe("Session ID not in use");
  expectUnauthorized(await call(moat, `/api/auth/session/0`, { method: "DELETE" }));
});

test("an empty password with a valid session returns that session", async () => {
  const s = await session();
  const r = await login(moat, "", {}, { sid: s.sid });
  expect(r.status).toBe(200);
  expect(r.body!.session).toMatchObject({ valid: true, sid: s.sid, csrf: s.csrf });
  expectUnauthorized(await login(moat, ""));
});

test("bad inputs: exact status and key each, and the server stays healthy", async () => {
  const post = (body: string | Uint8Array, headers: Record<string, string> = {}) =>
    call(moat, "/api/auth", { method: "POST", body, headers });
  const expectErr = (r: { status: number; body: Json | null }, status: number, key: string) => {
    expect(r.status).toBe(status);
    expect(r.body!.error.key).toBe(key);
    expect(typeof r.body!.took).toBe("number");
  };
  expectErr(await post('{"password":"x"'), 400, "bad_request");
  expectErr(await post("\u0000\u0001"), 400, "bad_request");
  expectErr(await post(JSON.stringify({ password: PW, totp: { a: 1 } })), 400, "bad_request");
  expectErr(await post(JSON.stringify({ password: PW, sid: 5 })), 400, "bad_request");
  expectErr(await post(JSON.stringify({ password: "x".repeat(1024 * 1024) })), 413, "payload_too_large");
  expectErr(await post(new Uint8Array([0x7b, 0x22, 0x70, 0xff, 0xfe, 0x22, 0x7d])), 400, "bad_request");
  expectErr(await post(JSON.stringify({ password: "' OR 1=1; DROP TABLE session; --" })), 401, "unauthorized");
  // an unpaired surrogate escape is not text: refused as bad JSON (as Pi-hole's cJSON does) before any check
  expectErr(await post(JSON.stringify({ password: "\ud800" })), 400, "bad_request");
  expectErr(await blocking({ headers: { sid: "' OR '1'='1" } }), 401, "unauthorized");
  expectErr(await blocking({}, "?sid=%27%20OR%201%3D1--"), 401, "unauthorized");
  // JSON is JSON whatever the label (curl -d sends form-encoded)
  const labelled = await post(JSON.stringify({ password: PW }), {
    "content-type": "application/x-www-form-urlencoded",
  });
  expect(labelled.status).toBe(200);
  opened.set(labelled.body!.session.sid, "127.0.0.1");
  const s = await session();
  expect((await blocking({ headers: { sid: s.sid } })).status).toBe(200);
});

test("200 parallel logins never exceed the cap (and share one Balloon run)", async () => {
  // a fresh process has not remembered the password: the 200 checks must share one Balloon run to
  // finish within the test's time
  await moat.restart();
  const results = await Promise.all(Array.from({ length: 200 }, () => login(moat, PW)));
  // one address: each login past the cap takes that address's own least recently used seat
  for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(new Set(results.map((r) => r.body!.session.sid)).size).toBe(200);
  const live: string[] = [];
  for (const r of results)
    if ((await blocking({ headers: { sid: r.body!.session.sid } })).status === 200) live.push(r.body!.session.sid);
  for (const sid of live) opened.set(sid, "127.0.0.1");
  expect(live.length).toBe(CAP);
  const list = await call(moat, "/api/auth/sessions", { headers: { sid: live[0]! } });
  expect(list.body!.sessions.length).toBe(CAP);
}, 30000);

test("sessions survive a restart", async () => {
  const s = await session();
  await moat.restart();
  const r = await blocking({ headers: { sid: s.sid } });
  expect(r.status).toBe(200);
  const st = await call(moat, "/api/auth", { headers: { sid: s.sid } });
  expect(st.body!.session).toMatchObject({ valid: true, sid: s.sid, csrf: s.csrf });
  // still bound to its address after the restart
  expect((await callFrom(moat, "127.0.0.2", "/api/dns/blocking", { headers: { sid: s.sid } })).status).toBe(401);
});
