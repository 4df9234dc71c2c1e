// Authentication under other settings, one real server each: session expiry, no password,
// Pi-hole compatibility mode, TOTP with app and CLI passwords, the login rate limit and the
// legacy hash upgrade.
import { describe, afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashPassword, verifyPassword } from "../../src/auth/password.ts";
import { BUN, run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, callFrom, login, totp, type Json } from "./auth-helpers.ts";

// Balloon runs take a few hundred ms each, more on a loaded machine
setDefaultTimeout(20000);

const PW = "hunter2-but-longer";

function server(opts: Parameters<typeof startMoat>[0]) {
  const ref: { m: MoatProcess } = {} as { m: MoatProcess };
  beforeAll(async () => {
    ref.m = await startMoat(opts);
  });
  afterAll(async () => {
    await ref.m.dispose();
  });
  return ref;
}

describe("expiry (webserver.session.timeout = 2, one slot)", () => {
  const s = server({
    env: {
      FTLCONF_webserver_api_password: PW,
      FTLCONF_webserver_session_timeout: "2",
      FTLCONF_webserver_api_max_sessions: "1",
    },
  });

  test("sliding expiry, then the SID is refused and the slot is free again", async () => {
    const m = s.m;
    const l = await login(m, PW);
    expect(l.status).toBe(200);
    expect(l.body!.session.validity).toBe(2);
    const sid = l.body!.session.sid;
    expect(l.headers.get("set-cookie")).toContain("Max-Age=2;");
    // the only slot is taken: another address is refused (a new login from this one would take it over)
    const other = await callFrom(m, "127.0.0.2", "/api/auth", {
      method: "POST",
      body: JSON.stringify({ password: PW }),
    });
    expect(other.body!.error.key).toBe("api_seats_exceeded");
    // requests every 0.7 s keep it alive past the 2 s timeout
    for (let i = 0; i < 4; i++) {
      await Bun.sleep(700);
      expect((await call(m, "/api/dns/blocking", { headers: { sid } })).status).toBe(200);
    }
    // idle past the timeout: expired
    await Bun.sleep(3000);
    const st = await call(m, "/api/auth", { headers: { sid } });
    expect(st.status).toBe(401);
    expect(st.body!.session).toEqual({
      valid: false,
      totp: false,
      sid: null,
      validity: -1,
      message: "session expired",
    });
    expect((await call(m, "/api/dns/blocking", { headers: { sid } })).status).toBe(401);
    // the expired session's slot is given to a new login
    const again = await login(m, PW);
    expect(again.status).toBe(200);
    await call(m, "/api/auth", { method: "DELETE", headers: { sid: again.body!.session.sid } });
  }, 20000);
});

describe("no password set", () => {
  const s = server({});

  test("the API is open and GET /api/auth says so", async () => {
    const m = s.m;
    const st = await call(m, "/api/auth");
    expect(st.status).toBe(200);
    expect(st.body!.session).toEqual({ valid: true, totp: false, sid: null, validity: -1, message: "no password set" });
    expect(typeof st.body!.took).toBe("number");
    expect((await call(m, "/api/dns/blocking")).status).toBe(200);
    expect((await call(m, "/api/auth/sessions")).body).toMatchObject({ sessions: [] });
    const l = await login(m, "anything");
    expect(l.status).toBe(200);
    expect(l.body!.session).toMatchObject({ valid: true, sid: null, validity: -1 });
    expect((await call(m, "/api/auth", { method: "DELETE" })).status).toBe(410);
    // validation still applies
    expect((await call(m, "/api/auth", { method: "POST", body: "{}" })).body!.error.message).toBe(
      "No password found in JSON payload",
    );
  });
});

describe("webserver.api.piholeCompat = true", () => {
  const s = server({ env: { FTLCONF_webserver_api_password: PW, FTLCONF_webserver_api_piholeCompat: "true" } });

  test("wrong password: 401 with the session object (Pi-hole's reply)", async () => {
    const r = await login(s.m, "wrong");
    expect(r.status).toBe(401);
    expect(r.body!.session).toEqual({
      valid: false,
      totp: false,
      sid: null,
      validity: -1,
      message: "password incorrect",
    });
    expect(typeof r.body!.took).toBe("number");
    expect(r.body!.error).toBeUndefined();
  });

  test("logout is 204; without a session 401 with the session object", async () => {
    const l = await login(s.m, PW);
    const sid = l.body!.session.sid;
    const d = await call(s.m, "/api/auth", { method: "DELETE", headers: { sid } });
    expect(d.status).toBe(204);
    expect(d.text).toBe("");
    const again = await call(s.m, "/api/auth", { method: "DELETE", headers: { sid } });
    expect(again.status).toBe(401);
    expect(again.body!.session).toMatchObject({ valid: false, sid: null, validity: -1 });
  });

  test("sessions are not bound to the client address; the CSRF rule still holds", async () => {
    const l = await login(s.m, PW);
    const { sid, csrf } = l.body!.session;
    expect((await callFrom(s.m, "127.0.0.2", "/api/dns/blocking", { headers: { sid } })).status).toBe(200);
    expect((await call(s.m, "/api/dns/blocking", { headers: { cookie: `sid=${sid}` } })).status).toBe(401);
    expect(
      (await call(s.m, "/api/dns/blocking", { headers: { cookie: `sid=${sid}`, "X-CSRF-Token": csrf } })).status,
    ).toBe(200);
    expect((await call(s.m, "/api/auth", { method: "DELETE", headers: { sid } })).status).toBe(204);
  });

  test("parallel wrong passwords: at most loginRateLimit of them are checked, the rest get 429", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => login(s.m, `wrong-${i}`)));
    const unauthorized = results.filter((r) => r.status === 401);
    const limited = results.filter((r) => r.status === 429);
    expect(unauthorized.length + limited.length).toBe(8);
    expect(unauthorized.length).toBeLessThanOrEqual(3);
    for (const r of limited)
      expect(r.body!.error).toEqual({ key: "rate_limiting", message: "Rate-limiting login attempts", hint: null });
    await Bun.sleep(1100);
    expect((await login(s.m, PW)).status).toBe(200);
  }, 20000);
});

describe("TOTP, app password, CLI password", () => {
  const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
  const APP = "an-application-password-for-tests";
  const s = server({
    env: { FTLCONF_webserver_api_password: PW },
    configToml: `[webserver.api]\ntotp_secret = "${SECRET}"\napp_pwhash = "${hashPassword(APP)}"\n`,
  });
  const tick = () => Bun.sleep(1100); // one 2FA check per second

  test("2FA: missing, invalid, valid (string), rate limited, reused, valid (number)", async () => {
    const m = s.m;
    const st = await call(m, "/api/auth");
    expect(st.status).toBe(401);
    expect(st.body!.session.totp).toBe(true);

    const missing = await login(m, PW);
    expect(missing.status).toBe(400);
    expect(missing.body!.error).toEqual({
      key: "bad_request",
      message: "No 2FA token found in JSON payload",
      hint: null,
    });

    const now = Date.now() / 1000;
    const near = new Set([-1, 0, 1].map((d) => totp(SECRET, now + 30 * d)));
    let wrong = 123456;
    while (near.has(wrong)) wrong++;
    const bad = await login(m, PW, { totp: wrong });
    expect(bad.status).toBe(401);
    expect(bad.body!.error).toEqual({ key: "unauthorized", message: "Invalid 2FA token", hint: null });

    await tick();
    const code = totp(SECRET);
    const ok = await login(m, PW, { totp: String(code).padStart(6, "0") });
    expect(ok.status).toBe(200);
    expect(ok.body!.session).toMatchObject({ valid: true, totp: true, message: "password correct" });

    const fast = await login(m, PW, { totp: code });
    expect(fast.status).toBe(429);
    expect(fast.body!.error).toEqual({
      key: "rate_limiting",
      message: "Rate-limiting 2FA token requests, try again later",
      hint: null,
    });

    await tick();
    const reused = await login(m, PW, { totp: code });
    expect(reused.status).toBe(401);
    expect(reused.body!.error).toEqual({
      key: "unauthorized",
      message: "Reused 2FA token",
      hint: "wait for new token",
    });

    await tick();
    const next = totp(SECRET, Date.now() / 1000 + 30);
    if (next !== code) {
      const asNumber = await login(m, PW, { totp: next });
      expect(asNumber.status).toBe(200);
    }
  }, 20000);

  test("the app password logs in without 2FA; app sessions are flagged and may not change config", async () => {
    const m = s.m;
    const r = await login(m, APP);
    expect(r.status).toBe(200);
    expect(r.body!.session).toMatchObject({ valid: true, totp: true, message: "app-password correct" });
    const sid = r.body!.session.sid;
    const list = await call(m, "/api/auth/sessions", { headers: { sid } });
    expect(list.body!.sessions.find((x: Json) => x.current_session)).toMatchObject({ app: true, cli: false });
    const patch = await call(m, "/api/config", {
      method: "PATCH",
      headers: { sid },
      body: JSON.stringify({ config: { webserver: { api: { app_sudo: true } } } }),
    });
    expect(patch.status).toBe(403);
    expect(patch.body!.error.key).toBe("forbidden");
  });

  test("the CLI password file: fresh, mode 0640, no newline; CLI sessions are flagged", async () => {
    const m = s.m;
    const file = join(m.dataDir, "cli_pw");
    const pw = readFileSync(file, "utf8");
    expect(pw).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(statSync(file).mode & 0o777).toBe(0o640);
    const r = await login(m, pw);
    expect(r.status).toBe(200);
    expect(r.body!.session.message).toBe("password correct");
    const list = await call(m, "/api/auth/sessions", { headers: { sid: r.body!.session.sid } });
    expect(list.body!.sessions.find((x: Json) => x.current_session)).toMatchObject({ app: false, cli: true });
  });

  test("GET /api/auth/totp and /api/auth/app suggest secrets; changing a secret ends all sessions", async () => {
    const m = s.m;
    const sid = (await login(m, APP)).body!.session.sid;
    const t = await call(m, "/api/auth/totp", { headers: { sid } });
    expect(t.status).toBe(200);
    expect(t.body!.totp).toMatchObject({
      type: "totp",
      account: "pi.hole",
      algorithm: "SHA1",
      digits: 6,
      period: 30,
      offset: 0,
    });
    expect(t.body!.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(t.body!.totp.codes.length).toBe(5);
    const now = Date.now() / 1000;
    expect([totp(t.body!.totp.secret, now), totp(t.body!.totp.secret, now - 30)]).toContain(t.body!.totp.codes[1]);

    const a = await call(m, "/api/auth/app", { headers: { sid } });
    expect(a.status).toBe(200);
    expect(a.body!.app.password).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(verifyPassword(a.body!.app.password, a.body!.app.hash)).toBe("correct");
    expectUnauthorizedStatus(await call(m, "/api/auth/app"));

    // a full session (CLI password: no 2FA, may not write config either) cannot PATCH; log in with 2FA
    await Bun.sleep(1100);
    let code = totp(SECRET);
    let full = await login(m, PW, { totp: code });
    if (full.status !== 200) {
      // the code was used by the previous test: wait for the next step
      await Bun.sleep((30 - ((Date.now() / 1000) % 30)) * 1000 + 1200);
      code = totp(SECRET);
      full = await login(m, PW, { totp: code });
    }
    expect(full.status).toBe(200);
    const fsid = full.body!.session.sid;
    const patch = await call(m, "/api/config", {
      method: "PATCH",
      headers: { sid: fsid },
      body: JSON.stringify({ config: { webserver: { api: { app_pwhash: a.body!.app.hash } } } }),
    });
    expect(patch.status).toBe(200);
    expect((await call(m, "/api/dns/blocking", { headers: { sid: fsid } })).status).toBe(401);
    expect((await call(m, "/api/dns/blocking", { headers: { sid } })).status).toBe(401);
    const viaNewApp = await login(m, a.body!.app.password);
    expect(viaNewApp.status).toBe(200);
    expect((await login(m, APP)).status).toBe(401);
  }, 60000);
});

function expectUnauthorizedStatus(r: { status: number; body: Json | null }) {
  expect(r.status).toBe(401);
  expect(r.body!.error.key).toBe("unauthorized");
}

describe("login rate limit and the legacy hash upgrade", () => {
  const OLD = "old-v5-password";
  const legacy = new Bun.CryptoHasher("sha256")
    .update(new Bun.CryptoHasher("sha256").update(OLD).digest("hex"))
    .digest("hex");
  const s = server({ configToml: `[webserver.api]\npwhash = "${legacy}"\n` });

  test("failed logins beyond webserver.api.loginRateLimit per second get 429 rate_limiting", async () => {
    const m = s.m;
    const seen: number[] = [];
    for (let i = 0; i < 10 && !seen.includes(429); i++) seen.push((await login(m, `wrong-${i}`)).status);
    expect(seen.slice(0, 3)).toEqual([401, 401, 401]);
    expect(seen).toContain(429);
    const r = await login(m, "wrong-again");
    expect(r.status).toBe(429);
    expect(r.body!.error).toEqual({ key: "rate_limiting", message: "Rate-limiting login attempts", hint: null });
    expect(typeof r.body!.took).toBe("number");
  });

  test("a legacy v5 hash verifies and is upgraded to BALLOON-SHA256 without ending the session", async () => {
    const m = s.m;
    await Bun.sleep(1100);
    const r = await login(m, OLD);
    expect(r.status).toBe(200);
    const toml = readFileSync(join(m.dataDir, "pihole.toml"), "utf8");
    expect(toml).toMatch(/pwhash = "\$BALLOON-SHA256\$v=1\$s=1024,t=32\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}="/);
    expect(toml).not.toContain(legacy);
    expect((await call(m, "/api/dns/blocking", { headers: { sid: r.body!.session.sid } })).status).toBe(200);
    expect((await login(m, OLD)).status).toBe(200);
  }, 20000);
});

describe("moat password and moat totp", () => {
  test("a password set with `moat password` (stdin) is stored as Balloon and logs in; `moat totp` prints the code", async () => {
    const dir = mkdtempSync(join(tmpdir(), "moat-auth-cli-"));
    try {
      const set = await run([BUN, "src/main.ts", "password", "--data-dir", dir], { stdin: "from stdin pw\n" });
      expect(set.code).toBe(0);
      const toml = readFileSync(join(dir, "pihole.toml"), "utf8");
      expect(toml).toMatch(/pwhash = "\$BALLOON-SHA256\$v=1\$s=1024,t=32\$/);
      const none = await run([BUN, "src/main.ts", "totp", "--data-dir", dir]);
      expect(none.code).toBe(1);
      const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
      const t = await run([BUN, "src/main.ts", "totp", "--data-dir", dir], {
        env: { FTLCONF_webserver_api_totp_secret: secret },
      });
      expect(t.code).toBe(0);
      const now = Date.now() / 1000;
      expect([totp(secret, now), totp(secret, now - 30)].map((c) => String(c).padStart(6, "0"))).toContain(
        t.stdout.trim(),
      );
      const m = await startMoat({ dataDir: dir });
      try {
        expect((await login(m, "from stdin pw")).status).toBe(200);
        expect((await login(m, "from stdin pw\n")).status).toBe(401);
      } finally {
        await m.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30000);
});
