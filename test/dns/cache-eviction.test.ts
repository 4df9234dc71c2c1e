// A full cache gives up its oldest answer first, over many evictions, after re-stores and after a
// flush: the real server with dns.cache.size = 3 and a real upstream counting what reaches it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.30", ttl: 300 });
  moat = await startMoat({
    env: { FTLCONF_dns_upstreams: up.address, FTLCONF_dns_cache_size: "3", FTLCONF_dns_cache_optimizer: "-1" },
  });
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

/** Asks for `name` (ev-<name>.test) and says whether the upstream was asked (a miss) or not (a hit). */
async function miss(name: string): Promise<boolean> {
  const fqdn = `ev-${name}.test`;
  const before = up.count(fqdn);
  const r = await ask(moat.dnsPort, fqdn);
  expect([fqdn, r.rcode, firstAddress(r), r.msg.questions![0]!.name]).toEqual([fqdn, "NOERROR", "192.0.2.30", fqdn]);
  return up.count(fqdn) > before;
}

async function cacheCounters(): Promise<{ size: number; inserted: number; evicted: number }> {
  const r = await moat.api("/api/info/metrics");
  expect(r.status).toBe(200);
  return ((await r.json()) as { metrics: { dns: { cache: { size: number; inserted: number; evicted: number } } } })
    .metrics.dns.cache;
}

test("the oldest answer leaves first, hits do not reorder, a flush starts the order again", async () => {
  // [name, miss?]: the cache holds three answers in the order they were stored
  const steps: Array<[string, boolean]> = [
    ["a", true],
    ["b", true],
    ["c", true], // a b c
    ["a", false], // a hit leaves the order as it is
    ["d", true], // b c d (a out)
    ["b", false],
    ["a", true], // c d a (b out)
    ["c", false],
    ["b", true], // d a b (c out)
    ["c", true], // a b c (d out)
    ["d", true], // b c d (a out)
    ["e", true],
    ["f", true],
    ["g", true], // e f g
    ["e", false],
    ["f", false],
    ["g", false],
  ];
  for (const [name, expected] of steps) expect([name, await miss(name)]).toEqual([name, expected]);
  const mid = await cacheCounters();
  expect([mid.size, mid.inserted - mid.evicted]).toEqual([3, 3]);

  const flushed = await moat.api("/api/action/restartdns", { method: "POST" });
  expect(flushed.status).toBe(200);
  const after: Array<[string, boolean]> = [
    ["e", true],
    ["h", true],
    ["i", true], // e h i
    ["j", true], // h i j (e out)
    ["e", true], // i j e (h out)
    ["i", false],
    ["j", false],
    ["e", false],
    ["h", true], // j e h (i out)
  ];
  for (const [name, expected] of after)
    expect([`after flush ${name}`, await miss(name)]).toEqual([`after flush ${name}`, expected]);
  expect((await cacheCounters()).size).toBe(3);
});
