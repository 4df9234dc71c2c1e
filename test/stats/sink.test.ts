// The statistics components on their own: the 24 h window, the stores, the query-log SQL, the
// database aggregates and the sink's privacy, retention and write-failure handling.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigStore } from "../../src/config/index.ts";
import { initQueryDb, openQueryDb } from "../../src/db/index.ts";
import { dbHistory, dbQueryTypes, dbSummary, dbTop, dbUpstreams } from "../../src/longterm/dbstats.ts";
import { QUERY_TYPES, Status } from "../../src/query/enums.ts";
import { FilterError, type QueryFilter, queryPage } from "../../src/querylog/read.ts";
import type { QueryRecord } from "../../src/query/record.ts";
import { windowPage } from "../../src/stats/log-page.ts";
import { Stats } from "../../src/stats/sink.ts";
import { QueryStore } from "../../src/querylog/store.ts";
import { topN } from "../../src/stats/topn.ts";
import { HISTORY_SLOTS, QueryWindow, slotOf } from "../../src/stats/window.ts";
import { knownRecords, rec } from "./fixture.ts";

const NOW = 1_800_000_000;

test("window: exact totals, tops, upstream mean and 145 history slots", () => {
  const w = new QueryWindow(() => NOW);
  for (const r of knownRecords(NOW)) w.add(r);
  expect([w.total, w.blocked, w.forwarded, w.cached]).toEqual([20, 6, 10, 4]);
  expect(w.status[Status.GRAVITY]).toBe(3);
  expect(w.types[QUERY_TYPES.indexOf("HTTPS")]).toBe(2);
  expect(topN(w.domains, 2, (x) => x.blocked)).toEqual([
    ["ads.example", 3],
    ["track.example", 2],
  ]);
  expect(topN(w.clients, 0, (x) => x.count)).toEqual([
    ["127.0.0.1", 10],
    ["127.0.0.2", 7],
    ["127.0.0.3", 3],
  ]);
  const u = w.upstreams.get("127.0.0.1#5301")!;
  expect(u.count).toBe(2);
  expect(u.sum / u.count).toBeCloseTo(0.03, 9);
  const h = w.history();
  expect(h.length).toBe(HISTORY_SLOTS);
  expect(HISTORY_SLOTS).toBe(145);
  expect(h[144]!.timestamp).toBe(slotOf(NOW));
  expect(h.reduce((a, s) => a + (s.slot?.total ?? 0), 0)).toBe(20);
  expect(w.recentBlockedDomains(2)).toEqual(["cdn.example", "track.example"]);
});

test("window: records older than 24 h age out of every counter", () => {
  let now = NOW;
  const w = new QueryWindow(() => now);
  w.add(rec({ time: NOW - 100, domain: "old.example", client: "10.0.0.1", status: Status.GRAVITY }));
  w.add(rec({ time: NOW, domain: "new.example", client: "10.0.0.2" }));
  now = NOW + 86400 - 50;
  w.expire();
  expect([w.total, w.blocked, w.domains.size, w.clients.size, w.clientsEver.size]).toEqual([1, 0, 1, 1, 2]);
  expect(w.domains.has("old.example")).toBe(false);
  expect(w.history().reduce((a, s) => a + (s.slot?.total ?? 0), 0)).toBe(1);
});

test("window: the ring names domains and clients by ids that are reused once free, and each age-out finds its own", () => {
  let now = NOW;
  const w = new QueryWindow(() => now);
  // three generations a few hours apart; each one's domains and clients free their ids for the next
  for (let g = 0; g < 3; g++) {
    for (let i = 0; i < 50; i++)
      w.add(
        rec({
          time: NOW + g * 10000 + i,
          domain: `g${g}-d${i % 7}.example`,
          client: `10.${g}.0.${i % 5}`,
          status: i % 2 ? Status.GRAVITY : Status.FORWARDED,
          upstream: i % 3 ? "127.0.0.1#53" : null,
        }),
      );
    now = NOW + g * 10000 + 86400 - 5000; // the previous generation ages out, this one stays
    w.expire();
    expect([w.total, w.domains.size, w.clients.size]).toEqual([50, 7, 5]);
    expect([...w.domains.keys()].every((k) => k.startsWith(`g${g}-`))).toBe(true);
    expect(w.domains.get(`g${g}-d0.example`)).toMatchObject({ count: 8, blocked: 4 });
    expect(w.clients.get(`10.${g}.0.1`)).toMatchObject({ count: 10, blocked: 5 });
    now = NOW + (g + 1) * 10000;
  }
  now += 86400 * 2;
  w.expire();
  expect([w.total, w.blocked, w.domains.size, w.clients.size, w.upstreams.size]).toEqual([0, 0, 0, 0, 0]);
});

function memoryWith(records = knownRecords(NOW)) {
  const s = QueryStore.memory();
  s.insert(records.map((r, i) => ({ id: i + 1, r })));
  return s;
}

/** Both readers of /api/queries: the long-term database's SQL and the window's columns. */
function readers(records = knownRecords(NOW)) {
  const store = memoryWith(records);
  const w = new QueryWindow(() => NOW);
  records.forEach((r, i) => w.add(r, i + 1));
  return [
    {
      label: "SQL",
      page: async (f: QueryFilter) => queryPage(store.db, f),
      add: (id: number, r: QueryRecord) => store.insert([{ id, r }]),
    },
    { label: "window", page: (f: QueryFilter) => windowPage(w, f), add: (id: number, r: QueryRecord) => w.add(r, id) },
  ];
}

for (const { label, page: queryPageOf } of readers())
  test(`query log (${label}): each filter, wildcards, special upstreams and exact errors`, async () => {
    const queryPage = (_: unknown, f: QueryFilter) => queryPageOf(f);
    const db = null;
    const n = async (f: QueryFilter) => (await queryPage(db, f)).recordsFiltered;
    expect(await n({})).toBe(20);
    expect(await n({ domain: "a.example" })).toBe(8);
    expect(await n({ domain: "*.example" })).toBe(20);
    expect(await n({ domain: "*ex*" })).toBe(20);
    expect(await n({ domain: "ads*" })).toBe(3);
    expect(await n({ client_ip: "127.0.0.3" })).toBe(3);
    expect(await n({ client_ip: "127.0.0.*" })).toBe(20);
    expect(await n({ upstream: "127.0.0.1#5301" })).toBe(2);
    expect(await n({ upstream: "*#530*" })).toBe(10);
    expect(await n({ upstream: "blocklist" })).toBe(6);
    expect(await n({ upstream: "cache" })).toBe(4);
    expect(await n({ upstream: "permitted" })).toBe(14);
    expect(await n({ type: "AAAA" })).toBe(4);
    expect(await n({ type: "https" })).toBe(2);
    expect(await n({ type: "TYPE65" })).toBe(0);
    expect(await n({ status: "GRAVITY" })).toBe(3);
    expect(await n({ reply: "NXDOMAIN" })).toBe(2);
    expect(await n({ dnssec: "UNKNOWN" })).toBe(20);
    expect(await n({ from: NOW - 60 - 540 * 1, until: NOW })).toBe(2);
    expect(await n({ domain: "c.example", status: "FORWARDED", client_ip: "127.0.0.1" })).toBe(2);
    expect(await n({ domain: "a_example" })).toBe(0); // LIKE metacharacters are literal
    const cname = (await queryPage(db, { status: "DENYLIST_CNAME" })).queries[0]!;
    expect(cname).toMatchObject({
      domain: "cdn.example",
      cname: "evil.example",
      client: { ip: "127.0.0.3", name: null },
      list_id: null,
    });
    const blocked = (await queryPage(db, { status: "GRAVITY", length: 1 })).queries[0]!;
    expect(blocked).toMatchObject({
      list_id: 7,
      ede: { code: 15, text: "Blocked" },
      reply: { type: "IP" },
      upstream: null,
    });
    for (const [k, v, msg] of [
      ["type", "FOO", "Requested type is invalid"],
      ["status", "FOO", "Requested status is invalid"],
      ["reply", "X", "Requested reply is invalid"],
      ["dnssec", "Y", "Requested dnssec is invalid"],
    ] as const) {
      await expect(queryPage(db, { [k]: v })).rejects.toThrow(new FilterError(msg, v));
    }
    await expect(queryPage(db, { cursor: 21 })).rejects.toThrow("Requested cursor is invalid");
  });

for (const { label, page, add } of readers())
  test(`query log (${label}): cursor paging returns every row once, newest first, stable while rows arrive`, async () => {
    const store = {
      db: null,
      insert: (rs: Array<{ id: number; r: QueryRecord }>) => rs.forEach((x) => add(x.id, x.r)),
    };
    const queryPage = (_: unknown, f: QueryFilter) => page(f);
    const seen: number[] = [];
    const first = await queryPage(store.db, { length: 7 });
    expect(first.cursor).toBe(20);
    seen.push(...first.queries.map((q) => q.id));
    // a new query arrives between pages: the cursor keeps the pages where they were
    store.insert([{ id: 21, r: rec({ time: NOW }) }]);
    for (let start = 7; start < 20; start += 7)
      seen.push(...(await queryPage(store.db, { length: 7, start, cursor: first.cursor })).queries.map((q) => q.id));
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => 20 - i));
    // cursor as the next upper bound works too (keyset paging)
    const p = await queryPage(store.db, { length: 5, cursor: 10 });
    expect(p.queries.map((q) => q.id)).toEqual([10, 9, 8, 7, 6]);
    expect(p.recordsFiltered).toBe(21);
  });

test("database aggregates equal the live window for the same records", () => {
  const db = memoryWith().db;
  const w = new QueryWindow(() => NOW);
  for (const r of knownRecords(NOW)) w.add(r);
  const range = { from: NOW - 86400, until: NOW };
  expect(dbSummary(db, range)).toEqual({ sum_queries: 20, sum_blocked: 6, percent_blocked: 30, total_clients: 3 });
  expect(dbTop(db, range, "domain", true, 10).rows.map((r) => [r.k, r.n])).toEqual(
    topN(w.domains, 10, (x) => x.blocked),
  );
  expect(dbTop(db, range, "client", null, 10).rows.map((r) => [r.k, r.n])).toEqual(topN(w.clients, 10, (x) => x.count));
  expect(Object.values(dbQueryTypes(db, range))).toEqual(w.types);
  const u = dbUpstreams(db, range);
  expect(u.rows.map((x) => [x.upstream, x.count])).toEqual([
    ["127.0.0.1#5300", 8],
    ["127.0.0.1#5301", 2],
  ]);
  expect([u.total, u.blocked, u.cached, u.forwarded]).toEqual([20, 6, 4, 10]);
  const h = dbHistory(db, { from: slotOf(NOW) - 144 * 600, until: NOW });
  expect(h.length).toBe(145);
  expect(h.map((s) => s.total)).toEqual(w.history().map((s) => s.slot?.total ?? 0));
});

async function sinkFixture(toml = "") {
  const dir = mkdtempSync(join(tmpdir(), "moat-sink-"));
  await Bun.write(join(dir, "pihole.toml"), toml);
  const config = new ConfigStore({ file: join(dir, "pihole.toml"), env: {}, hashPassword: (p) => p });
  return { dir, config };
}

test("sink: privacy levels hide domains (1), clients (2), everything but counters (3)", async () => {
  const { dir, config } = await sinkFixture();
  const disk = openQueryDb(dir);
  try {
    const stats = new Stats({ config: config, disk, log: () => {}, now: () => NOW });
    const set = (level: number) => expect(config.update([{ path: "misc.privacylevel", value: level }]).ok).toBe(true);
    for (const level of [0, 1, 2, 3]) {
      set(level);
      stats.record(
        rec({
          time: NOW,
          domain: `l${level}.example`,
          client: `10.0.0.${level}`,
          cname: level === 1 ? "x.example" : null,
          answers: "CNAME x.example, A 192.0.2.1",
        }),
      );
    }
    stats.syncMemory();
    const rows = (await stats.queryPage({})).queries.map((q) => [q.domain, q.client.ip, q.cname, q.answers]);
    // the answer records name the CNAME chain and the addresses: hidden with the domain
    expect(rows).toEqual([
      ["hidden", "0.0.0.0", null, null],
      ["hidden", "10.0.0.1", "hidden", null],
      ["l0.example", "10.0.0.0", null, "CNAME x.example, A 192.0.2.1"],
    ]);
    expect(stats.window.total).toBe(4);
    expect([...stats.window.domains.keys()].sort()).toEqual(["hidden", "l0.example"]);
    expect(stats.flushDisk()).toBe(true);
    expect((disk.query("SELECT COUNT(*) AS n FROM query_storage").get() as { n: number }).n).toBe(3);
    expect(disk.query("SELECT text FROM moat_answer_text").all()).toEqual([{ text: "CNAME x.example, A 192.0.2.1" }]);
    // flush/logs: memory forgets everything, lifetime counters stay.
    stats.flushQueries();
    expect(stats.window.total).toBe(0);
    expect(stats.window.domains.size).toBe(0);
    expect((await stats.queryPage({})).queries).toEqual([]);
    expect(stats.window.lifetime.total).toBe(4);
    await stats.stop();
  } finally {
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("sink: a failed write keeps its records for the next attempt; retention prunes old rows", async () => {
  const { dir, config } = await sinkFixture("[database]\nmaxDBdays = 2\n");
  const disk = openQueryDb(dir);
  try {
    const stats = new Stats({ config: config, disk, log: () => {}, now: () => NOW, busyTimeoutMs: 0 });
    // the writer thread opens the long-term database behind the start: done once a first flush is
    expect(stats.flushDisk()).toBe(true);
    stats.record(rec({ time: NOW - 5 * 86400, domain: "ancient.example" }));
    stats.record(rec({ time: NOW, domain: "fresh.example" }));
    // An exclusive lock from another connection makes the write fail.
    const other = new Database(join(dir, "pihole-FTL.db"));
    other.exec("PRAGMA busy_timeout = 0");
    other.exec("BEGIN EXCLUSIVE");
    expect(stats.flushDisk()).toBe(false);
    expect(stats.pendingDisk).toBe(2);
    expect(stats.counters.diskWriteErrors).toBe(1);
    other.exec("ROLLBACK");
    other.close();
    expect(stats.flushDisk()).toBe(true);
    expect(stats.pendingDisk).toBe(0);
    const left = disk.query("SELECT domain FROM queries").all() as Array<{ domain: string }>;
    expect(left.map((r) => r.domain)).toEqual(["fresh.example"]);
    await stats.stop();
  } finally {
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("stats: queries the writer dropped are said once in a message, with how many, and the day still has them", async () => {
  const { dir, config } = await sinkFixture();
  const disk = openQueryDb(dir);
  // a backlog limit below one burst: every burst finds the writer "too far behind" (the writer's own
  // test above makes it fall behind for real)
  const logs: string[] = [];
  const stats = new Stats({ config, disk, log: (_l, m) => logs.push(m), now: () => NOW, maxBacklog: 100 });
  const messages = () =>
    disk.query("SELECT message, blob1 FROM message WHERE type = 'LONGTERM_DROPPED'").all() as Array<{
      message: string;
      blob1: number;
    }>;
  try {
    stats.start();
    for (let k = 0; k < 6; k++) {
      for (let i = 0; i < 500; i++) stats.record(rec({ time: NOW, domain: `d${k}-${i}.drop.example` }));
      await Bun.sleep(30); // each burst goes to the thread as its own batch
    }
    expect(stats.counters.dropped).toBe(3000);
    // while another connection writes the database, the message waits for a later look, not for the lock
    const other = new Database(join(dir, "pihole-FTL.db"));
    other.exec("BEGIN IMMEDIATE");
    stats.syncMemory();
    other.exec("COMMIT");
    other.close();
    expect(messages()).toEqual([]);
    // not a failed write either (one that waited out busy_timeout would have said so)
    expect(logs).toEqual([]);
    stats.syncMemory();
    const m = messages();
    expect(m.length).toBe(1);
    expect(m[0]!.blob1).toBe(3000);
    expect(m[0]!.message).toStartWith("3000 queries were not written to the long-term database");
    // the last 24 h have every query, the long-term database none
    expect((await stats.queryPage({ length: 1 })).recordsTotal).toBe(3000);
    expect(stats.flushDisk()).toBe(true);
    expect((disk.query("SELECT COUNT(*) AS n FROM query_storage").get() as { n: number }).n).toBe(0);
    // more drops within the hour: no second message
    for (let i = 0; i < 500; i++) stats.record(rec({ time: NOW, domain: `late${i}.drop.example` }));
    await Bun.sleep(30);
    expect(stats.counters.dropped).toBe(3500);
    stats.syncMemory();
    expect(messages().length).toBe(1);
  } finally {
    await stats.stop();
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("store: lookup ids are a bounded cache of the *_by_id tables; every row still names its own domain", () => {
  const db = new Database(":memory:", { strict: true });
  initQueryDb(db);
  const store = new QueryStore(db, 10);
  // 40 names cycling through 3 batches: the cache of 10 starts again several times
  for (let b = 0; b < 3; b++)
    store.insert(
      Array.from({ length: 100 }, (_, i) => ({
        id: b * 100 + i + 1,
        r: rec({ time: NOW, domain: `n${(b * 100 + i) % 40}.example`, client: `10.0.0.${i % 13}` }),
      })),
    );
  const rows = db
    .query(
      "SELECT q.id, d.domain, c.ip FROM query_storage q JOIN domain_by_id d ON d.id = q.domain JOIN client_by_id c ON c.id = q.client ORDER BY q.id",
    )
    .all() as Array<{ id: number; domain: string; ip: string }>;
  expect(rows.length).toBe(300);
  for (const r of rows)
    expect([r.domain, r.ip]).toEqual([`n${(r.id - 1) % 40}.example`, `10.0.0.${((r.id - 1) % 100) % 13}`]);
  expect((db.query("SELECT COUNT(*) AS n FROM domain_by_id").get() as { n: number }).n).toBe(40);
  expect((db.query("SELECT COUNT(*) AS n FROM client_by_id").get() as { n: number }).n).toBe(13);
  const cachedDomains = (s: QueryStore) => (s as unknown as { domains: { size: number } }).domains.size;
  expect(cachedDomains(store)).toBeLessThanOrEqual(10);
  // a store opened on the same database starts with the newest ids only
  expect(cachedDomains(new QueryStore(db, 6))).toBe(6);
});

test("sink: import at start restores the last 24 h with the same ids, and new ids continue", async () => {
  const { dir, config } = await sinkFixture();
  const disk = openQueryDb(dir);
  try {
    new QueryStore(disk).insert([
      { id: 1, r: rec({ time: NOW - 2 * 86400, domain: "old.example" }) },
      ...knownRecords(NOW).map((r, i) => ({ id: i + 2, r })),
    ]);
    const stats = new Stats({ config: config, disk, log: () => {}, now: () => NOW });
    expect(await stats.importFromDisk()).toBe(20);
    expect(stats.window.total).toBe(20);
    stats.record(rec({ time: NOW, domain: "next.example" }));
    stats.syncMemory();
    const top = (await stats.queryPage({ length: 2 })).queries;
    expect(top.map((q) => [q.id, q.domain])).toEqual([
      [22, "next.example"],
      [21, "c.example"],
    ]);
    await stats.stop();
  } finally {
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("sink: the writer thread runs at SCHED_IDLE, so it never takes a core the DNS thread wants", async () => {
  if (process.platform !== "linux") return;
  // a fresh process, so no writer thread of another test is still winding down
  const script = `
    import { readdirSync, readFileSync } from "node:fs";
    import { Stats } from "${join(import.meta.dir, "../../src/stats/sink.ts")}";
    import { ConfigStore } from "${join(import.meta.dir, "../../src/config/index.ts")}";
    import { openQueryDb } from "${join(import.meta.dir, "../../src/db/index.ts")}";
    // scheduling policy per thread: field 41 of /proc/<pid>/task/<tid>/stat
    // (a thread may end between listing and reading: it has no policy any more)
    const policy = (t) => { try { return Number(readFileSync("/proc/self/task/" + t + "/stat", "utf8").split(") ")[1].split(" ")[38]); } catch { return -1; } };
    const policies = () => readdirSync("/proc/self/task").map(policy);
    const before = policies();
    const disk = openQueryDb(process.argv[2]);
    const stats = new Stats({ config: new ConfigStore({ file: process.argv[2] + "/pihole.toml", env: {}, hashPassword: (p) => p }), disk, log: () => {} });
    // the writer sets its own policy once its thread runs, which a loaded machine may delay
    let after = policies();
    for (const end = Date.now() + 10000; !after.includes(5) && Date.now() < end; after = policies()) await Bun.sleep(20);
    await stats.stop();
    console.log(JSON.stringify({ before: before.filter((p) => p === 5).length, after: after.filter((p) => p === 5).length, self: Number(readFileSync("/proc/thread-self/stat", "utf8").split(") ")[1].split(" ")[38]) }));
  `;
  const dir = mkdtempSync(join(tmpdir(), "moat-sched-"));
  try {
    await Bun.write(join(dir, "check.ts"), script);
    const p = Bun.spawn([process.execPath, join(dir, "check.ts"), dir], { stdout: "pipe", stderr: "pipe" });
    const out = await new Response(p.stdout).text();
    expect(await p.exited).toBe(0);
    // idle threads appear with the writer, and the thread that answers DNS keeps the normal policy
    // (threads the writer starts inherit its policy, so "at least one")
    const seen = JSON.parse(out) as { before: number; after: number; self: number };
    expect(seen.before).toBe(0);
    expect(seen.after).toBeGreaterThanOrEqual(1);
    expect(seen.self).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
