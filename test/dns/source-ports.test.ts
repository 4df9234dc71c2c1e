// Upstream source ports (RFC 5452 §9.2, §10): every forwarded UDP query leaves from a fresh random
// port, as unbound and dnsmasq send them, so an off-path attacker has to guess ~15 bits of port on
// top of the 16 of the ID, and no socket lives long enough for a SAD DNS port scan (CVE-2020-25705)
// to find it. The test upstream logs the source port of each query it receives.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress, type Reply } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.77" });
  // the flood test sends 1,500 queries from one client: no rate limit
  moat = await startMoat({ configToml: `[dns]\nupstreams = ["${up.address}"]\nrateLimit.count = 0\n` });
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

const N = 200;

function checkAnswer(r: Reply, name: string): void {
  // the ID was checked on receipt (sendUdp takes only a datagram with the query's ID)
  expect([r.msg.type, r.rcode, r.msg.questions![0]!.name, firstAddress(r)]).toEqual([
    "response",
    "NOERROR",
    name,
    "192.0.2.77",
  ]);
}

function portsOf(suffix: string): number[] {
  return up
    .queries()
    .filter((q) => q.proto === "udp" && q.name.endsWith(suffix))
    .map((q) => q.port);
}

test("200 queries one per 50 ms leave from at least 150 different source ports", async () => {
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < N; i++) {
    const name = `paced-${i}.ports.test`;
    pending.push(ask(moat.dnsPort, name, { timeoutMs: 5000 }).then((r) => checkAnswer(r, name)));
    await Bun.sleep(50);
  }
  await Promise.all(pending);
  const ports = portsOf(".ports.test");
  expect(ports.length).toBe(N);
  expect(new Set(ports).size).toBeGreaterThanOrEqual(150);
}, 30000);

test("200 queries in one burst leave from at least 150 different source ports", async () => {
  const names = Array.from({ length: N }, (_, i) => `burst-${i}.burst.test`);
  const replies = await Promise.all(names.map((n) => ask(moat.dnsPort, n, { timeoutMs: 8000 })));
  for (const [i, r] of replies.entries()) checkAnswer(r, names[i]!);
  const ports = portsOf(".burst.test");
  expect(ports.length).toBe(N);
  expect(new Set(ports).size).toBeGreaterThanOrEqual(150);
}, 30000);

test("a flood past the fresh-port budget is answered, and no socket carries more than 32 queries", async () => {
  const M = 1500;
  for (let i = 0; i < M; i += 100) {
    const names = Array.from({ length: 100 }, (_, k) => `flood-${i + k}.flood.test`);
    const replies = await Promise.all(names.map((n) => ask(moat.dnsPort, n, { timeoutMs: 8000 })));
    for (const [k, r] of replies.entries()) checkAnswer(r, names[k]!);
  }
  const ports = portsOf(".flood.test");
  expect(ports.length).toBe(M);
  const perPort = new Map<number, number>();
  for (const p of ports) perPort.set(p, (perPort.get(p) ?? 0) + 1);
  // a socket carries at most 32; the kernel may hand a closed socket's port to a later one (~580
  // sockets over 28,232 ports: a few such pairs by chance), so one port may show two sockets' queries
  expect(Math.max(...perPort.values())).toBeLessThanOrEqual(64);
  // the budget left after the tests above, then a new port at least every 32 queries
  expect(perPort.size).toBeGreaterThanOrEqual(M / 32);
}, 60000);
