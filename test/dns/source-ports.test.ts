// Upstream source ports (RFC 5452 §9.2): forwarded UDP queries leave from a pool of sockets per
// upstream on ports from the CSPRNG (src/dns/upstream.ts), so an off-path attacker has to guess ~15 bits
// of port on top of the 16 of the ID. A socket takes at most 32 queries and new ones for half a second;
// queries further apart than that each get a port of their own; two queries for the same question are
// never in flight on one port (RFC 5452 §5). The test upstream logs the source port of each query it
// receives.
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

test("queries further apart than the pool's half second each leave from a port of their own", async () => {
  // more than the pool's 8 sockets: a pool that kept its sockets past half a second would send the
  // ninth and tenth from ports already used (two ports of 28,232 drawn alike by chance: 1 in 600)
  const M = 10;
  for (let i = 0; i < M; i++) {
    const name = `quiet-${i}.quiet.test`;
    checkAnswer(await ask(moat.dnsPort, name, { timeoutMs: 5000 }), name);
    await Bun.sleep(600);
  }
  const ports = portsOf(".quiet.test");
  expect(ports.length).toBe(M);
  expect(new Set(ports).size).toBeGreaterThanOrEqual(M - 1);
}, 30000);

test("200 queries in one burst: several ports at once, none carrying more than 32", async () => {
  const names = Array.from({ length: N }, (_, i) => `burst-${i}.burst.test`);
  const replies = await Promise.all(names.map((n) => ask(moat.dnsPort, n, { timeoutMs: 8000 })));
  for (const [i, r] of replies.entries()) checkAnswer(r, names[i]!);
  const ports = portsOf(".burst.test");
  expect(ports.length).toBe(N);
  const perPort = new Map<number, number>();
  for (const p of ports) perPort.set(p, (perPort.get(p) ?? 0) + 1);
  expect(Math.max(...perPort.values())).toBeLessThanOrEqual(32);
  expect(perPort.size).toBeGreaterThanOrEqual(8); // the pool's 8 sockets at least
}, 30000);

test("the same question in flight many times at once leaves from as many ports", async () => {
  // the upstream answers slow-… after 400 ms, so all 20 are in flight together; more than the pool's
  // 8 sockets, so each socket would get two or three of them if the question were not looked at
  const M = 20;
  const name = "slow-same.twin.test";
  const replies = await Promise.all(Array.from({ length: M }, () => ask(moat.dnsPort, name, { timeoutMs: 8000 })));
  for (const r of replies) checkAnswer(r, name);
  const ports = portsOf(".twin.test");
  expect(ports.length).toBe(M);
  expect(new Set(ports).size).toBe(M);
}, 30000);

test("a flood is answered, and no socket carries more than 32 queries", async () => {
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
  // a socket carries at most 32; a later socket may draw a closed one's port (~50 sockets over 28,232
  // ports: a pair by chance 1 time in 25), so one port may show two sockets' queries
  expect(Math.max(...perPort.values())).toBeLessThanOrEqual(64);
  // a new port at least every 32 queries
  expect(perPort.size).toBeGreaterThanOrEqual(M / 32);
}, 60000);
