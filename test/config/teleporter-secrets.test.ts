// A backup must not let its holder act as a logged-in user: the Teleporter export leaves out the
// live sessions (SIDs and CSRF tokens in pihole-FTL.db's `session` table, which it used to carry;
// it now carries only the four tables of that file Pi-hole's Teleporter takes),
// with no trace of them anywhere in the archive's bytes, while keeping what a restore needs (the
// password hash, so the restored machine asks for the same password).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readZip } from "../../src/teleporter/zip.ts";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

const PW = "teleporter secrets";
let a: MoatProcess;
let b: MoatProcess;
const scratch = mkdtempSync(join(tmpdir(), "moat-tp-secrets-"));

beforeAll(async () => {
  [a, b] = await Promise.all([startMoat({ configToml: `[webserver.api]\npassword = "${PW}"\n` }), startMoat()]);
});
afterAll(async () => {
  await Promise.all([a.dispose(), b.dispose()]);
  rmSync(scratch, { recursive: true, force: true });
});

async function login(m: MoatProcess): Promise<{ sid: string; csrf: string }> {
  const r = await m.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PW }) });
  expect(r.status).toBe(200);
  return ((await r.json()) as { session: { sid: string; csrf: string } }).session;
}

test("the export carries no session, SID or CSRF token; the restore keeps the password", async () => {
  const sessions = [await login(a), await login(a), await login(a)];
  const res = await a.api("/api/teleporter", { headers: { sid: sessions[0]!.sid } });
  expect(res.status).toBe(200);
  const zip = new Uint8Array(await res.arrayBuffer());
  const files = readZip(zip);
  // the live table still has them: the export left them out, the server did not lose them
  expect((await a.api("/api/auth/sessions", { headers: { sid: sessions[1]!.sid } })).status).toBe(200);

  const ftl = files.get("etc/pihole/pihole-FTL.db")!;
  expect(ftl.byteLength).toBeGreaterThan(0);
  const file = join(scratch, "pihole-FTL.db");
  writeFileSync(file, ftl);
  const db = new Database(file, { readonly: true });
  // Pi-hole's four tables of it, as its Teleporter takes them: no session table, no query log
  const tables = db.query<{ name: string }, []>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name",
  );
  expect(tables.all().map((t) => t.name)).toEqual(["aliasclient", "message", "network", "network_addresses"]);
  db.close();
  // no trace in any byte of any file of the archive (free pages, journal leftovers, config)
  const haystacks = [...files.values()].map((d) => Buffer.from(d).toString("latin1"));
  for (const s of sessions) {
    for (const secret of [s.sid, s.csrf]) expect(haystacks.some((h) => h.includes(secret))).toBe(false);
  }

  // what a restore needs stays: the password hash in pihole.toml
  const toml = new TextDecoder().decode(files.get("etc/pihole/pihole.toml")!);
  expect(toml).toMatch(/pwhash = "\$BALLOON-SHA256\$/);
  const fd = new FormData();
  fd.append("file", new Blob([zip]), "backup.zip");
  const imp = await b.api("/api/teleporter", { method: "POST", body: fd });
  expect(imp.status).toBe(200);
  expect((await b.api("/api/dns/blocking")).status).toBe(401);
  const r = await b.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PW }) });
  expect(r.status).toBe(200);
  // and no session of the source machine is valid on the restored one
  for (const s of sessions) expect((await b.api("/api/dns/blocking", { headers: { sid: s.sid } })).status).toBe(401);
});
