// Gravity against a local list server of the test: good, broken, slow, 304 and 404 lists, the
// streamed progress, a failed update that keeps blocking, a 500k-line list, and real DNS answers.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import type { TCPSocketListener } from "bun";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call } from "./helpers.ts";

let moat: MoatProcess;
let lists: ReturnType<typeof Bun.serve>;
let truncated: TCPSocketListener;
const hits: Record<string, number> = {};
let goodBroken = false;

const GOOD =
  "\uFEFF# comment\r\n0.0.0.0 ads.one.test\r\n127.0.0.1 localhost\r\n0.0.0.0 trk.one.test # inline\r\nplain.one.test\r\n||abp.one.test^\r\n||opt.one.test^$third-party\r\nnot a domain!\r\nexample.com##.banner\r\n";
const BIG_LINES = 500_000;
const big = () => Array.from({ length: BIG_LINES }, (_, i) => `0.0.0.0 d${i}.big.test`).join("\n");

beforeAll(async () => {
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      hits[path] = (hits[path] ?? 0) + 1;
      switch (path) {
        case "/good.txt":
          if (goodBroken) return new Response("gone", { status: 500 });
          if (req.headers.get("if-none-match") === '"v1"') return new Response(null, { status: 304 });
          return new Response(GOOD, { headers: { etag: '"v1"' } });
        case "/allow.txt":
          return new Response("@@||plain.one.test^\nallowed.one.test\n");
        case "/binary.bin":
          return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 3]));
        case "/junk.txt":
          return new Response(`${"x".repeat(5_000_000)}\n${"~!junk line\n".repeat(400_000)}`);
        case "/slow.txt":
          await Bun.sleep(6000);
          return new Response("slow.one.test\n");
        case "/redirect.txt":
          return Response.redirect("/good.txt", 302);
        case "/big.txt":
          return new Response(big());
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  // A download cut short: the headers promise 100000 bytes, the connection closes after one line. A raw
  // socket does it without an error thrown inside the test's own HTTP server (which Bun would print).
  truncated = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket) {
        socket.end("HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n0.0.0.0 part.one.test\n");
      },
    },
  });
  moat = await startMoat({ env: { FTLCONF_gravity_downloadTimeout: "3" } });
});

afterAll(async () => {
  await moat?.dispose();
  lists?.stop(true);
  truncated?.stop(true);
});

const url = (p: string) => `http://127.0.0.1:${p === "/truncated.txt" ? truncated.port : lists.port}${p}`;

function db<T>(fn: (d: Database) => T): T {
  const d = new Database(join(moat.dataDir, "gravity.db"), { readonly: true });
  try {
    return fn(d);
  } finally {
    d.close();
  }
}
const listRow = (address: string) => db((d) => d.query("SELECT * FROM adlist WHERE address = ?").get(address) as any);

async function runGravity(): Promise<string> {
  const r = await moat.api("/api/action/gravity", { method: "POST" });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/plain");
  return await r.text();
}

async function dig(name: string): Promise<string> {
  const p = Bun.spawn(["dig", "+short", "+time=3", "+tries=2", "-p", String(moat.dnsPort), "@127.0.0.1", name, "A"], {
    stdout: "pipe",
  });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return out.trim();
}

async function eventually(fn: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return true;
    await Bun.sleep(100);
  }
  return fn();
}

const dnsUp = () => moat.output.includes("DNS listening");

test("lists API: ?type rules, create, fields, duplicates", async () => {
  let r = await call(moat, "POST", "/api/lists", { address: url("/good.txt") });
  expect(r.status).toBe(400);
  expect(r.json.error.message).toBe('Invalid request: Specify type parameter (should be either "allow" or "block")');
  r = await call(moat, "POST", "/api/lists?type=deny", { address: url("/good.txt") });
  expect(r.json.error.message).toBe('Invalid request: Invalid type parameter (should be either "allow" or "block")');
  r = await call(moat, "POST", "/api/lists?type=block", {
    address: [
      url("/good.txt"),
      url("/binary.bin"),
      url("/junk.txt"),
      url("/truncated.txt"),
      url("/slow.txt"),
      url("/missing.txt"),
      url("/redirect.txt"),
      "file:///nonexistent/list.txt",
    ],
  });
  expect(r.status).toBe(201);
  expect(r.headers.get("location")).toBe(`/api/lists/${encodeURIComponent("file:///nonexistent/list.txt")}?type=block`);
  expect(r.json.lists[0]).toMatchObject({ type: "block", enabled: true, groups: [0], number: 0, status: 0 });
  r = await call(moat, "POST", "/api/lists?type=allow", { address: url("/allow.txt") });
  expect(r.status).toBe(201);
  r = await call(moat, "POST", "/api/lists?type=block", { address: url("/good.txt") });
  expect(r.status).toBe(400);
  expect(r.json.error.key).toBe("database_error");
  expect(r.json.error.hint.sql_msg).toBe("UNIQUE constraint failed: adlist.address, adlist.type");
  r = await call(moat, "GET", `/api/lists/${encodeURIComponent(url("/good.txt"))}`);
  expect(r.status).toBe(200);
  expect(r.json.lists).toHaveLength(1);
  r = await call(moat, "GET", "/api/lists?type=allow");
  expect(r.json.lists).toHaveLength(1);
  r = await call(moat, "PUT", `/api/lists/${encodeURIComponent(url("/good.txt"))}`, { comment: "x" });
  expect(r.status).toBe(400);
});

test("gravity: streamed progress, per-list status and counts, ABP, redirects, failures isolated", async () => {
  const text = await runGravity();
  expect(text).toContain(`Target: ${url("/good.txt")}`);
  expect(text).toContain("Done");
  const good = listRow(url("/good.txt"));
  // ads, trk, plain, ads via ABP; localhost ignored; 3 invalid (options, "not", "a", "domain!")
  expect(good).toMatchObject({ status: 1, number: 3, abp_entries: 1 });
  expect(good.invalid_domains).toBeGreaterThanOrEqual(2);
  expect(listRow(url("/redirect.txt"))).toMatchObject({ status: 1, number: 3 });
  expect(listRow(url("/binary.bin")).status).toBe(4);
  expect(listRow(url("/truncated.txt")).status).toBe(4);
  expect(listRow(url("/slow.txt")).status).toBe(4);
  expect(listRow(url("/missing.txt")).status).toBe(4);
  expect(listRow("file:///nonexistent/list.txt").status).toBe(4);
  const junk = listRow(url("/junk.txt"));
  expect(junk).toMatchObject({ status: 1, number: 0 });
  expect(junk.invalid_domains).toBeGreaterThan(0);
  expect(text).toMatch(/Download failed: HTTP 404/);
  const rows = db((d) =>
    d
      .query("SELECT domain FROM gravity ORDER BY domain")
      .all()
      .map((r: any) => r.domain),
  );
  expect(rows).toContain("ads.one.test");
  expect(rows).toContain("||abp.one.test^");
  expect(rows).not.toContain("localhost");
  const anti = db((d) =>
    d
      .query("SELECT domain FROM antigravity ORDER BY domain")
      .all()
      .map((r: any) => r.domain),
  );
  expect(anti).toEqual(["@@||plain.one.test^", "allowed.one.test"]);
  const info = db((d) =>
    Object.fromEntries((d.query("SELECT property, value FROM info").all() as any[]).map((r) => [r.property, r.value])),
  );
  expect(Number(info.gravity_count)).toBe(4);
  expect(info.abp_domains).toBe("1");
  expect(Number(info.updated)).toBeGreaterThan(0);
  // search finds the list that holds a domain
  const s = await call(moat, "GET", "/api/search/ads.one.test?debug=true");
  expect(s.status).toBe(200);
  expect(s.json.search.results.gravity.block).toBe(2);
  expect(s.json.search.debug.abp_pattern.gravity[0]).toBe("||ads.one.test^");
  // a partial term finds the rows that contain it (on the long-term reader thread), with their list
  const p = await call(moat, "GET", "/api/search/s.one.te?partial=true");
  expect(p.status).toBe(200);
  expect(p.json.search.parameters.partial).toBe(true);
  expect(p.json.search.gravity.map((g: { domain: string }) => g.domain).sort()).toEqual(
    s.json.search.gravity.map((g: { domain: string }) => g.domain).sort(),
  );
  expect(p.json.search.gravity.every((g: { address: string }) => typeof g.address === "string")).toBe(true);
  expect((await call(moat, "GET", "/api/search/nowhere-at-all?partial=true")).json.search.results.gravity).toEqual({
    allow: 0,
    block: 0,
  });
  if (dnsUp()) expect(await eventually(async () => (await dig("ads.one.test")) === "0.0.0.0")).toBe(true);
}, 60_000);

test("second run: 304 keeps the copy (status 2); a failing list keeps its cached copy (status 3) and blocking stays", async () => {
  const before = db((d) => (d.query("SELECT COUNT(*) AS n FROM gravity").get() as any).n);
  goodBroken = false;
  let text = await runGravity();
  expect(listRow(url("/good.txt")).status).toBe(2);
  goodBroken = true;
  text = await runGravity();
  expect(text).toMatch(/using the cached copy/);
  expect(listRow(url("/good.txt"))).toMatchObject({ status: 3, number: 3 });
  expect(db((d) => (d.query("SELECT COUNT(*) AS n FROM gravity").get() as any).n)).toBe(before);
  if (dnsUp()) expect(await dig("ads.one.test")).toBe("0.0.0.0");
}, 60_000);

test("concurrent requests share one run", async () => {
  const before = hits["/allow.txt"] ?? 0;
  const [a, b] = await Promise.all([runGravity(), runGravity()]);
  expect(a).toContain("Done");
  expect(b).toContain("Done");
  expect((hits["/allow.txt"] ?? 0) - before).toBe(1);
}, 60_000);

test("deleting a list deletes its gravity rows; batchDelete", async () => {
  let r = await call(moat, "DELETE", `/api/lists/${encodeURIComponent(url("/redirect.txt"))}`);
  expect(r.status).toBe(400);
  r = await call(moat, "DELETE", `/api/lists/${encodeURIComponent(url("/redirect.txt"))}?type=block`);
  expect(r.status).toBe(204);
  const id = listRow(url("/good.txt")).id;
  r = await call(moat, "POST", "/api/lists:batchDelete", [
    { item: url("/good.txt"), type: "block" },
    { item: url("/missing.txt"), type: "block" },
  ]);
  expect(r.status).toBe(204);
  expect(db((d) => (d.query("SELECT COUNT(*) AS n FROM gravity WHERE adlist_id = ?").get(id) as any).n)).toBe(0);
  r = await call(moat, "POST", "/api/lists:batchDelete", [{ item: url("/good.txt"), type: "block" }]);
  expect(r.status).toBe(404);
});

test("a 500k-line list compiles through the CLI and answers", async () => {
  await call(moat, "POST", "/api/lists?type=block", { address: url("/big.txt") });
  const p = Bun.spawn(
    [process.execPath, join(import.meta.dir, "../../src/main.ts"), "gravity", "--data-dir", moat.dataDir],
    { stdout: "pipe", stderr: "pipe" },
  );
  const out = await new Response(p.stdout).text();
  expect(await p.exited).toBe(0);
  expect(out).toContain("Done");
  expect(listRow(url("/big.txt"))).toMatchObject({ status: 1, number: BIG_LINES });
  if (dnsUp()) expect(await eventually(async () => (await dig("d499999.big.test")) === "0.0.0.0", 10_000)).toBe(true);
}, 120_000);
