// Who may update and how much is taken: POST /api/action/update wants a session that may change the system
// (none → 401 before the upload is read; an app password without app_sudo → 403), and a bundle past
// update.maxDownload is refused whether uploaded or fetched, leaving no file behind.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import type { Server } from "bun";
import { hashPassword } from "../../src/auth/password.ts";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { makeTestCa, type TestCa } from "../harness/tls-peer.ts";
import { UpdateFixture, hasRauc } from "./fixture.ts";

const PW = "update-guard-password";
const APP = "an-application-password-for-updates";
let fx: UpdateFixture;
let moat: MoatProcess;
let ca: TestCa;
let https: Server<unknown>;
let big: Uint8Array;
let plain: Server<unknown>;
let plainHits = 0;

beforeAll(async () => {
  if (!hasRauc) return;
  fx = new UpdateFixture();
  fx.systemConf();
  ca = makeTestCa(["localhost"]);
  big = new Uint8Array(3 * 1024 * 1024);
  plain = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      plainHits++;
      return new Response(new Uint8Array(1000));
    },
  });
  https = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: Bun.file(ca.certFile), key: Bun.file(ca.keyFile) },
    fetch: (req) =>
      new URL(req.url).pathname === "/redirect"
        ? Response.redirect(`http://127.0.0.1:${plain.port}/b`, 302)
        : new Response(big),
  });
  moat = await startMoat({
    env: {
      FTLCONF_webserver_api_password: PW,
      FTLCONF_update_system: fx.slots.conf,
      FTLCONF_update_maxDownload: "1",
      NODE_EXTRA_CA_CERTS: ca.caFile,
    },
    configToml: `[webserver.api]\napp_pwhash = "${hashPassword(APP)}"\n`,
  });
});

afterAll(async () => {
  if (!hasRauc) return;
  await moat?.dispose();
  https?.stop(true);
  plain?.stop(true);
  ca?.dispose();
  await fx.dispose();
});

async function sid(password: string): Promise<string> {
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password }) });
  expect(r.status).toBe(200);
  return ((await r.json()) as { session: { sid: string } }).session.sid;
}

function upload(bytes: Uint8Array, headers: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  form.append("file", new Blob([bytes]), "bundle.raucb");
  return moat.api("/api/action/update", { method: "POST", body: form, headers });
}

const leftovers = () => readdirSync(moat.dataDir).filter((f) => f.includes("raucb"));

test.skipIf(!hasRauc)("no session: 401; an app session without app_sudo: 403; nothing is written", async () => {
  const none = await upload(new Uint8Array(1000));
  expect(none.status).toBe(401);
  await none.arrayBuffer();
  const viaUrl = await moat.api("/api/action/update", {
    method: "POST",
    body: JSON.stringify({ url: `https://localhost:${https.port}/b` }),
  });
  expect(viaUrl.status).toBe(401);
  await viaUrl.arrayBuffer();
  const app = await upload(new Uint8Array(1000), { "X-FTL-SID": await sid(APP) });
  expect(app.status).toBe(403);
  await app.arrayBuffer();
  expect((await moat.api("/api/info/update")).status).toBe(401);
  expect(leftovers()).toEqual([]);
});

test.skipIf(!hasRauc)("a bundle past update.maxDownload is refused, uploaded or fetched", async () => {
  const session = { "X-FTL-SID": await sid(PW) };
  // 413, or the connection closed under the client while it still sends (as for any upload past its limit)
  const up = await upload(big, session).then(
    async (r) => (await r.arrayBuffer(), r.status),
    (e: Error) => (/ECONNRESET|closed/.test(e.message) ? 0 : e),
  );
  expect([0, 413]).toContain(up as number);
  const fetched = await moat.api("/api/action/update", {
    method: "POST",
    headers: session,
    body: JSON.stringify({ url: `https://localhost:${https.port}/b` }),
  });
  expect(fetched.status).toBe(400);
  expect(((await fetched.json()) as { error: { hint: string } }).error.hint).toBe(
    "the bundle is larger than update.maxDownload (1 MiB)",
  );
  // the refusal is the last result (RAUC's service is not running here: the status says so too)
  const info = (await (await moat.api("/api/info/update", { headers: session })).json()) as Record<string, any>;
  expect(info.available).toBe(false);
  expect(info.message).toStartWith("RAUC does not answer: ");
  expect(info.last).toMatchObject({ ok: false, message: "the bundle is larger than update.maxDownload (1 MiB)" });
  expect(leftovers()).toEqual([]);
});

test.skipIf(!hasRauc)("an https URL that redirects to plain http is refused", async () => {
  const r = await moat.api("/api/action/update", {
    method: "POST",
    headers: { "X-FTL-SID": await sid(PW) },
    body: JSON.stringify({ url: `https://localhost:${https.port}/redirect` }),
  });
  expect(r.status).toBe(400);
  expect(((await r.json()) as { error: { hint: string } }).error.hint).toBe(
    "the update URL redirected away from https://",
  );
  // the plain address was never asked
  expect(plainHits).toBe(0);
  expect(leftovers()).toEqual([]);
});
