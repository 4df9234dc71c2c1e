// dns.threads = 2: two DNS threads share the UDP port through SO_REUSEPORT. Queries come from many
// source ports, so the kernel spreads them over both sockets. Every answer must be the client's (ID
// and question), both threads must answer, the statistics and the query log must count each query
// exactly once, and every change made through the API (a list entry, blocking off, restartdns) must
// be in force in every thread when the API answers.
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as packet from "dns-packet";
import { freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, decodeReply, firstAddress, sendUdp, until, type Reply } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;
const TOKEN = "thr3ads";

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.55" });
  const port = await freePort();
  moat = await startMoat({
    env: { FTLCONF_dns_threads: "2", FTLCONF_webserver_api_metricsToken: TOKEN, FTLCONF_dns_upstreams: up.address },
    // the port in the file, not the environment, so the API may change it
    configToml: `[dns]\nport = ${port}\nhosts = ["10.0.0.7 nas.threads.test"]\n`,
    dnsPortInConfig: port,
  });
}, 30_000);
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

let nextId = 0x2222;
/** One query from a fresh source port; the answer must carry its ID and question (letter case too). */
async function askFresh(name: string, type = "A", port = moat.dnsPort): Promise<Reply> {
  const id = (nextId = (nextId * 7 + 13) & 0xffff);
  const bytes = packet.encode({
    type: "query",
    id,
    flags: packet.RECURSION_DESIRED,
    questions: [{ type: type as packet.RecordType, name, class: "IN" }],
  });
  const raw = await sendUdp(port, bytes, "127.0.0.1", 5000);
  expect(raw).toBeTruthy();
  const r = decodeReply(raw!);
  expect({ id: r.msg.id, questions: r.msg.questions }).toEqual({
    id,
    questions: [{ name, type, class: "IN" }],
  } as never);
  return r;
}

/** `n` queries at once, each from its own source port. */
const many = (n: number, name: (i: number) => string) =>
  Promise.all(Array.from({ length: n }, (_v, i) => askFresh(name(i))));

/** Answers per thread as /metrics lists them: thread 0 is the main thread. */
async function allThreads(): Promise<number[]> {
  const r = await moat.api("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(r.status).toBe(200);
  const text = await r.text();
  const out: number[] = [];
  for (const m of text.matchAll(/^moat_dns_thread_answers_total\{thread="(\d+)"\} (\d+)$/gm))
    out[Number(m[1])] = Number(m[2]);
  return out;
}
/** The threads that answer UDP: with dns.threads = 2 the two workers, not the main thread. */
async function perThread(): Promise<number[]> {
  return (await allThreads()).slice(1);
}
const sum = (a: number[]) => a.reduce((s, n) => s + n, 0);

async function json(path: string, init?: RequestInit): Promise<Record<string, any>> {
  const r = await moat.api(path, init);
  expect(r.status).toBeLessThan(300);
  return (await r.json()) as Record<string, any>;
}

test("both threads answer, every answer is the client's, and the statistics count each query once", async () => {
  const before = sum(await perThread());
  const total0 = (await json("/api/stats/summary")).queries.total as number;
  const N = 120;
  const replies = await many(N, (i) =>
    i % 3 === 0 ? "Nas.Threads.Test" : i % 3 === 1 ? `Fwd-${i}.Threads.Test` : "CACHED.threads.test",
  );
  for (const [i, r] of replies.entries()) expect(firstAddress(r)).toBe(i % 3 === 0 ? "10.0.0.7" : "192.0.2.55");
  // the other thread's counters and records reach the main thread a moment after its answers
  await until(async () => sum(await perThread()) - before >= N, 10_000, "every answer counted");
  const threads = await perThread();
  expect(threads.length).toBe(2);
  // the main thread (the 24 h window's heap) answered none of them: it keeps only the wildcard
  expect((await allThreads())[0]).toBe(0);
  expect(sum(threads) - before).toBe(N);
  expect(threads.every((n) => n > 0)).toBe(true);
  expect((await json("/api/stats/summary")).queries.total - total0).toBe(N);
  // no wait: a read sees every query answered before it, whichever thread answered
  const log = await json("/api/queries?domain=*.threads.test&length=1000");
  expect(log.recordsFiltered).toBe(N);
  expect(log.queries.filter((q: any) => q.domain === "cached.threads.test").length).toBe(N / 3);
}, 30_000);

/** The cache's counters as /metrics shows them: the sum of every thread's (each reports a few times a second). */
async function cacheMetrics(): Promise<{ size: number; inserted: number; hits: number; misses: number }> {
  const r = await moat.api("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(r.status).toBe(200);
  const text = await r.text();
  const get = (m: string) => Number(new RegExp(`^moat_cache_${m} (\\d+)$`, "m").exec(text)?.[1]);
  return { size: get("size"), inserted: get("inserted_total"), hits: get("hits_total"), misses: get("misses_total") };
}

test("a name one thread asked the upstream for is a cache hit on the other (one shared cache)", async () => {
  const name = "shared.threads.test";
  const before = await perThread();
  const c0 = await cacheMetrics();
  await oneByOne(30, name);
  await until(async () => sum(await perThread()) - sum(before) >= 30, 10_000, "counted");
  // both threads answered it (30 source ports), yet the upstream was asked once
  expect((await perThread()).filter((n, i) => n > before[i]!).length).toBe(2);
  expect(up.count(name)).toBe(1);
  const log = await json(`/api/queries?domain=${name}&length=100`);
  const statuses = (log.queries as Array<{ status: string }>).map((q) => q.status).sort();
  expect(statuses).toEqual(["FORWARDED", ...Array<string>(29).fill("CACHE")].sort());
  // each event counted once, by the thread it happened in
  await until(async () => (await cacheMetrics()).hits - c0.hits >= 29, 10_000, "hits reported");
  const c1 = await cacheMetrics();
  expect([c1.inserted - c0.inserted, c1.hits - c0.hits, c1.misses - c0.misses, c1.size]).toEqual([1, 29, 1, 10000]);
}, 30_000);

test("a name blocked through the API is blocked by every thread when the API answers", async () => {
  // cached in both threads first: the block must win over the cache
  await many(40, () => "soon-blocked.threads.test");
  const r = await moat.api("/api/domains/deny/exact", {
    method: "POST",
    body: JSON.stringify({ domain: "soon-blocked.threads.test" }),
  });
  expect(r.status).toBe(201);
  const before = await perThread();
  const replies = await many(60, () => "soon-blocked.threads.test");
  expect(replies.map(firstAddress).filter((a) => a !== "0.0.0.0")).toEqual([]);
  await until(async () => sum(await perThread()) - sum(before) >= 60, 10_000, "counted");
  const after = await perThread();
  expect(after.every((n, i) => n > before[i]!)).toBe(true);
}, 30_000);

test("blocking disabled through the API is off in every thread, and on again when enabled", async () => {
  const off = await json("/api/dns/blocking", { method: "POST", body: JSON.stringify({ blocking: false }) });
  expect(off.blocking).toBe(false);
  const before = await perThread();
  const replies = await many(60, () => "soon-blocked.threads.test");
  expect(replies.map(firstAddress).filter((a) => a !== "192.0.2.55")).toEqual([]);
  await until(async () => sum(await perThread()) - sum(before) >= 60, 10_000, "counted");
  expect((await perThread()).every((n, i) => n > before[i]!)).toBe(true);
  await json("/api/dns/blocking", { method: "POST", body: JSON.stringify({ blocking: true }) });
  expect((await many(40, () => "soon-blocked.threads.test")).map(firstAddress).filter((a) => a !== "0.0.0.0")).toEqual(
    [],
  );
}, 30_000);

test("names from block lists (hosts and ABP) after a gravity run are blocked by every thread", async () => {
  const lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("0.0.0.0 listed.threads.test\n||abp.threads.test^\n"),
  });
  try {
    expect(
      (
        await moat.api("/api/lists?type=block", {
          method: "POST",
          body: JSON.stringify({ address: `http://127.0.0.1:${lists.port}/l.txt` }),
        })
      ).status,
    ).toBe(201);
    expect(await (await moat.api("/api/action/gravity", { method: "POST" })).text()).toContain("Done");
  } finally {
    lists.stop(true);
  }
  const before = await perThread();
  const replies = await many(60, (i) => (i % 2 ? "listed.threads.test" : `sub${i}.abp.threads.test`));
  expect(replies.map(firstAddress).filter((a) => a !== "0.0.0.0")).toEqual([]);
  await until(async () => sum(await perThread()) - sum(before) >= 60, 10_000, "counted");
  expect((await perThread()).every((n, i) => n > before[i]!)).toBe(true);
}, 30_000);

test("a local record added through the config API is answered by every thread", async () => {
  const r = await moat.api("/api/config/dns/hosts/10.0.0.8%20new.threads.test", { method: "PUT" });
  expect(r.status).toBe(201);
  const before = await perThread();
  const replies = await many(60, () => "new.threads.test");
  expect(replies.map(firstAddress).filter((a) => a !== "10.0.0.8")).toEqual([]);
  await until(async () => sum(await perThread()) - sum(before) >= 60, 10_000, "counted");
  expect((await perThread()).every((n, i) => n > before[i]!)).toBe(true);
}, 30_000);

/** One at a time, each from a fresh port: a thread asks the upstream only for its first query of a name. */
async function oneByOne(n: number, name: string): Promise<void> {
  for (let i = 0; i < n; i++) expect(firstAddress(await askFresh(name))).toBe("192.0.2.55");
}

test("restartdns empties every thread's cache", async () => {
  const name = "flush-me.threads.test";
  let before = await perThread();
  await oneByOne(30, name);
  await until(async () => sum(await perThread()) - sum(before) >= 30, 10_000, "counted");
  // the threads share one cache: only the first query reached the upstream
  expect((await perThread()).filter((n, i) => n > before[i]!).length).toBe(2);
  expect(up.count(name)).toBe(1);
  const asked = up.count(name);
  const r = await moat.api("/api/action/restartdns", { method: "POST" });
  expect(r.status).toBe(200);
  before = await perThread();
  await oneByOne(30, name);
  await until(async () => sum(await perThread()) - sum(before) >= 30, 10_000, "counted");
  expect((await perThread()).filter((n, i) => n > before[i]!).length).toBe(2);
  // a cache that survived would not have asked again
  expect(up.count(name) - asked).toBe(1);
}, 30_000);

test("a new dns.cache.size is one new table for all threads: what the main thread stored (TCP) is a hit on both workers", async () => {
  const r = await moat.api("/api/config", {
    method: "PATCH",
    body: JSON.stringify({ config: { dns: { cache: { size: 500 } } } }),
  });
  expect(r.status).toBe(200);
  expect((await cacheMetrics()).size).toBe(500);
  const name = "resized.threads.test";
  // TCP is answered by the main thread; no OPT record, as askFresh() asks (the key has the EDNS bit)
  expect(firstAddress(await ask(moat.dnsPort, name, { tcp: true, edns: false }))).toBe("192.0.2.55");
  expect(up.count(name)).toBe(1);
  const before = await perThread();
  await oneByOne(30, name);
  await until(async () => sum(await perThread()) - sum(before) >= 30, 10_000, "counted");
  expect((await perThread()).filter((n, i) => n > before[i]!).length).toBe(2);
  // a worker still on the old table would have asked again
  expect(up.count(name)).toBe(1);
}, 30_000);

test("a port change moves every thread to the new port; the old one is closed", async () => {
  const old = moat.dnsPort;
  const port = await freePort();
  const r = await moat.api("/api/config", { method: "PATCH", body: JSON.stringify({ config: { dns: { port } } }) });
  expect(r.status).toBe(200);
  const probe = () =>
    packet.encode({
      type: "query",
      id: 7,
      flags: packet.RECURSION_DESIRED,
      questions: [{ type: "A", name: "nas.threads.test" }],
    });
  // the API answers once every thread listens on the new port (the new threads count from zero)
  const before = await perThread();
  const replies = await Promise.all(Array.from({ length: 60 }, () => askFresh("nas.threads.test", "A", port)));
  expect(replies.map(firstAddress).filter((a) => a !== "10.0.0.7")).toEqual([]);
  await until(async () => sum(await perThread()) - sum(before) >= 60, 10_000, "counted");
  expect((await perThread()).every((n, i) => n > before[i]!)).toBe(true);
  const silent = await Promise.all(Array.from({ length: 10 }, () => sendUdp(old, probe(), "127.0.0.1", 300)));
  expect(silent.filter((x) => x !== null).length).toBe(0);
  // and the whole process stops cleanly, threads included
  await moat.stop();
  expect(moat.proc?.exitCode).toBe(0);
  expect(moat.output).not.toMatch(/DNS thread|error/i);
}, 30_000);
