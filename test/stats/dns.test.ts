// End to end through the real resolver: queries of known kinds (forwarded, cached, blocked by
// the denylist) from several loopback clients, sent with dig to the real server, which forwards
// to a real dnsmasq on 127.0.0.1; then the statistics must show exactly those queries.
// Runs once the DNS engine is part of `moat serve`.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, ROOT, startMoat, type MoatProcess } from "../harness/moat.ts";

const DNS_WIRED =
  existsSync(join(ROOT, "src/dns/server.ts")) &&
  /DnsServer/.test(readFileSync(join(ROOT, "src/services.ts"), "utf8")) &&
  Bun.which("dnsmasq") !== null &&
  Bun.which("dig") !== null;

let moat: MoatProcess;
let upstream: ReturnType<typeof Bun.spawn> | undefined;

async function dig(name: string, client: string, type = "A"): Promise<string> {
  const p = Bun.spawn(
    ["dig", "+short", "+tries=1", "+time=5", "-b", client, "-p", String(moat.dnsPort), "@127.0.0.1", name, type],
    { stdout: "pipe", stderr: "pipe" },
  );
  const out = await new Response(p.stdout).text();
  await p.exited;
  return out.trim();
}

async function get(path: string): Promise<Record<string, any>> {
  const r = await moat.api(path);
  expect(r.status).toBe(200);
  return (await r.json()) as Record<string, any>;
}

beforeAll(async () => {
  if (!DNS_WIRED) return;
  const port = await freePort();
  upstream = Bun.spawn(
    [
      "dnsmasq",
      "--no-daemon",
      "--conf-file=/dev/null",
      "--no-resolv",
      "--no-hosts",
      "--bind-interfaces",
      "--listen-address=127.0.0.1",
      `--port=${port}`,
      "--local-ttl=300",
      "--address=/fwd1.test/192.0.2.1",
      "--address=/fwd2.test/192.0.2.2",
      "--address=/blocked.test/192.0.2.66",
      "--user=root",
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  moat = await startMoat({
    env: {
      FTLCONF_dns_upstreams: `127.0.0.1#${port}`,
      FTLCONF_database_DBinterval: "1",
      FTLCONF_webserver_api_metricsToken: "t0ken",
    },
  });
}, 30_000);

afterAll(async () => {
  await moat?.dispose();
  upstream?.kill();
});

test.skipIf(!DNS_WIRED)("forwarded, cached and denylisted queries from three clients show up exactly", async () => {
  const r = await moat.api("/api/domains/deny/exact", {
    method: "POST",
    body: JSON.stringify({ domain: "blocked.test" }),
  });
  expect(r.status).toBe(201);
  // the filter snapshot is rebuilt off the hot path: poll until the block is in force
  const deadline = Date.now() + 15_000;
  while ((await dig("blocked.test", "127.0.0.9")) !== "0.0.0.0" && Date.now() < deadline) await Bun.sleep(100);
  const before = (await get("/api/stats/summary")).queries.total;
  const repliesBefore = (await get("/api/info/metrics")).metrics.dns.replies;

  expect(await dig("fwd1.test", "127.0.0.1")).toBe("192.0.2.1");
  expect(await dig("fwd1.test", "127.0.0.2")).toBe("192.0.2.1"); // from the cache
  expect(await dig("fwd2.test", "127.0.0.2")).toBe("192.0.2.2");
  expect(await dig("blocked.test", "127.0.0.3")).toBe("0.0.0.0");
  expect(await dig("blocked.test", "127.0.0.3")).toBe("0.0.0.0");

  const s = await get("/api/stats/summary");
  expect(s.queries.total - before).toBe(5);
  const log = (await get("/api/queries?length=5")).queries.reverse();
  expect(log.map((q: any) => [q.domain, q.client.ip, q.status])).toEqual([
    ["fwd1.test", "127.0.0.1", "FORWARDED"],
    ["fwd1.test", "127.0.0.2", "CACHE"],
    ["fwd2.test", "127.0.0.2", "FORWARDED"],
    ["blocked.test", "127.0.0.3", "DENYLIST"],
    ["blocked.test", "127.0.0.3", "DENYLIST"],
  ]);
  expect(log[0].upstream).toMatch(/^127\.0\.0\.1#\d+$/);
  expect(log[0].reply.type).toBe("IP");
  expect((await get("/api/stats/top_domains?blocked=true")).domains[0]).toEqual({
    domain: "blocked.test",
    count: expect.any(Number),
  });
  expect((await get("/api/queries?client_ip=127.0.0.3")).recordsFiltered).toBeGreaterThanOrEqual(2);
  expect((await get("/api/stats/top_clients")).clients.map((c: any) => c.ip)).toEqual(
    expect.arrayContaining(["127.0.0.1", "127.0.0.2", "127.0.0.3"]),
  );
  // the long-term database catches up within DBinterval (1 s)
  const until = Math.ceil(Date.now() / 1000) + 1;
  let db: Record<string, any> = {};
  const end = Date.now() + 15_000;
  do {
    db = await get(`/api/stats/database/summary?from=0&until=${until}`);
    if (db.sum_queries === s.queries.total) break;
    await Bun.sleep(200);
  } while (Date.now() < end);
  expect(db.sum_queries).toBe(s.queries.total);
  expect(db.sum_blocked).toBe(s.queries.blocked);
  const metrics = await (await moat.api("/metrics", { headers: { authorization: "Bearer t0ken" } })).text();
  expect(metrics).toMatch(/^moat_queries_total\{status="DENYLIST"\} [1-9]/m);
  expect(metrics).toMatch(/^moat_cache_inserted_total [1-9]/m);
  expect((await get("/api/info/metrics")).metrics.dns.cache.inserted).toBeGreaterThan(0);
  // answers by origin: two forwarded, two blocked ones answered locally, the cache hit in neither
  const replies = (await get("/api/info/metrics")).metrics.dns.replies;
  expect(replies.forwarded - repliesBefore.forwarded).toBe(2);
  expect(replies.local - repliesBefore.local).toBe(2);
  expect(replies.unanswered - repliesBefore.unanswered).toBe(0);
  expect(replies.sum).toBe(replies.forwarded + replies.unanswered + replies.local + replies.optimized + replies.auth);
});

test.skipIf(!DNS_WIRED)("/metrics is 404 while no token is configured", async () => {
  const m2 = await startMoat();
  try {
    const r = await m2.api("/metrics");
    expect(r.status).toBe(404);
    expect(((await r.json()) as any).error.hint).toContain("webserver.api.metricsToken");
  } finally {
    await m2.dispose();
  }
});
