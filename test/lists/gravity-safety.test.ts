// Where list downloads may not go and what they may not echo. A list address reaching the cloud's
// instance metadata (link-local 169.254.169.254) or Moat's own API is refused: at once when the
// address is literal, and at download time (after the name is resolved, on every redirect). A
// file:// list is read only as a list: its non-domain lines are never printed, and a file that is
// mostly not domains (a password file, a secrets file) imports nothing that /api/search could show.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call } from "./helpers.ts";

let moat: MoatProcess;
let lists: ReturnType<typeof Bun.serve>;
let dir: string;
const hits: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "moat-gravity-safety-"));
  moat = await startMoat({ env: { FTLCONF_gravity_downloadTimeout: "3" } });
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      if (path === "/hosts.txt") return new Response("0.0.0.0 remote-one.test\n");
      if (path === "/to-metadata") return Response.redirect("http://169.254.169.254/latest/meta-data/iam/", 302);
      if (path === "/to-moat") return Response.redirect(`http://127.0.0.1:${moat.httpPort}/api/info/login`, 301);
      if (path === "/to-moat-dot") return Response.redirect(`http://localhost.:${moat.httpPort}/admin/`, 302);
      return new Response("not found", { status: 404 });
    },
  });
});

afterAll(async () => {
  await moat?.dispose();
  lists?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const add = (address: string) => call(moat, "POST", "/api/lists?type=block", { address });

test("literal link-local and own-API addresses are refused when added", async () => {
  const port = moat.httpPort;
  for (const address of [
    "http://169.254.169.254/latest/meta-data/",
    "https://169.254.169.254/",
    "http://2852039166/latest/meta-data/", // 169.254.169.254 as one number
    "http://[fe80::1]/list.txt",
    "http://[::ffff:169.254.169.254]/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    `http://127.0.0.1:${port}/api/info/login`,
    `http://localhost:${port}/api/auth/sessions`,
    `http://[::1]:${port}/api/`,
    `http://0.0.0.0:${port}/api/`,
    // the same hosts in other spellings: a trailing dot, capitals, a *.localhost name (RFC 6761),
    // IPv4-mapped IPv6, the decimal, octal and short forms of 127.0.0.1
    `http://localhost.:${port}/admin/`,
    `http://LOCALHOST.:${port}/admin/`,
    `http://moat.localhost.:${port}/api/`,
    `http://[::ffff:127.0.0.1]:${port}/api/`,
    `http://2130706433:${port}/api/`,
    `http://0177.0.0.1:${port}/api/`,
    `http://127.1:${port}/api/`,
    "http://169.254.169.254./latest/meta-data/",
  ]) {
    const r = await add(address);
    expect(r.status, address).toBe(400);
    expect(r.json.error.key).toBe("bad_request");
    expect(r.json.error.message).toBe("This list address is not allowed");
    expect(r.json.error.hint, address).toMatch(/link-local|Moat's own web server/);
  }
  // PUT creates a list too
  const put = await call(moat, "PUT", `/api/lists/${encodeURIComponent("http://169.254.169.254/x")}?type=block`, {});
  expect(put.status).toBe(400);
  // nothing was stored
  const all = await call(moat, "GET", "/api/lists");
  expect(all.json.lists).toEqual([]);
  // another port on the loopback is a list server like any other
  expect((await add(`http://127.0.0.1:${lists.port}/hosts.txt`)).status).toBe(201);
});

test("redirects to the metadata address or to Moat's API are refused at download time; file:// lines are never echoed", async () => {
  const secrets = join(dir, "secrets.env");
  writeFileSync(
    secrets,
    "DB_PASSWORD = hunter2-very-secret\nAWS_SECRET_ACCESS_KEY = wJalrXUtnFEMI\nleaked.secret.example\nroot hunter3 x\n",
  );
  const local = join(dir, "local.txt");
  writeFileSync(local, "0.0.0.0 local-one.test\n0.0.0.0 local-two.test\nlocal-three.test\nprivate_word!\n");
  for (const a of [
    `http://127.0.0.1:${lists.port}/to-metadata`,
    `http://127.0.0.1:${lists.port}/to-moat`,
    `http://127.0.0.1:${lists.port}/to-moat-dot`,
    `file://${secrets}`,
    `file://${local}`,
  ])
    expect((await add(a)).status, a).toBe(201);

  const r = await moat.api("/api/action/gravity", { method: "POST" });
  expect(r.status).toBe(200);
  const out = await r.text();
  // each refused download says why, and nothing of Moat's API came back
  expect(out).toMatch(/refused: 169\.254\.169\.254 is a link-local address/);
  expect(out).toMatch(new RegExp(`refused: 127\\.0\\.0\\.1 port ${moat.httpPort} is Moat's own web server`));
  expect(out).toMatch(new RegExp(`refused: localhost resolves to 127\\.0\\.0\\.1 port ${moat.httpPort} is Moat's own`));
  expect(out).not.toContain('"https_port"');
  expect(out).not.toMatch(/<html|<script/i);
  // the secrets file: no line echoed, nothing imported
  expect(out).toContain("Not a list:");
  for (const secret of ["hunter2", "hunter3", "wjalrxutnfemi", "db_password", "leaked.secret.example", "private_word"])
    expect(out.toLowerCase()).not.toContain(secret);
  // a real local list is imported, without its samples
  expect(out).toContain("Imported 3 domains");
  const statusOf = async (address: string) =>
    (await call(moat, "GET", `/api/lists/${encodeURIComponent(address)}?type=block`)).json.lists[0];
  expect((await statusOf(`http://127.0.0.1:${lists.port}/to-metadata`)).status).toBe(4);
  expect((await statusOf(`http://127.0.0.1:${lists.port}/to-moat`)).status).toBe(4);
  expect((await statusOf(`http://127.0.0.1:${lists.port}/to-moat-dot`)).status).toBe(4);
  const s = await statusOf(`file://${secrets}`);
  expect(s.status).toBe(4);
  expect(s.number).toBe(0);
  expect((await statusOf(`file://${local}`)).number).toBe(3);
  // not searchable
  const found = await call(moat, "GET", "/api/search/leaked.secret.example?partial=true");
  expect(found.status).toBe(200);
  expect(JSON.stringify(found.json.search.gravity)).toBe("[]");
  const ok = await call(moat, "GET", "/api/search/local-two.test");
  expect(ok.json.search.gravity.length).toBeGreaterThan(0);
  // the redirect itself was followed no further than the list server
  expect(hits).toContain("/to-metadata");
}, 30000);
