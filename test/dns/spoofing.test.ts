// Off-path spoofing resistance (RFC 5452): upstream queries carry IDs from the CSPRNG, leave from a
// pool of source ports that keeps changing, and carry the name in random letter case (0x20); an
// answer counts only on the port, ID and question it was sent with. The test upstream records what
// it received and forges answers wrong in each of those ways before the real one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;
let lower: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.55" });
  lower = await startUpstream({ addr: "192.0.2.56" });
  moat = await startMoat({
    configToml: `
[dns]
upstreams = ["${up.address}"]
revServers = ["true,10.98.0.0/16,${lower.address},lower.test"]
`,
  });
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
  await lower?.stop();
});

test("upstream queries: random IDs, a changing pool of source ports, random letter case", async () => {
  const N = 600;
  for (let i = 0; i < N; i += 50) {
    const batch = Array.from({ length: 50 }, (_, k) =>
      ask(moat.dnsPort, `rnd-${i + k}.ports.test`, { timeoutMs: 8000 }),
    );
    for (const r of await Promise.all(batch)) expect(firstAddress(r)).toBe("192.0.2.55");
  }
  const qs = up.queries().filter((q) => q.name.endsWith(".ports.test") && q.proto === "udp");
  expect(qs.length).toBe(N);
  const ids = qs.map((q) => q.id);
  expect(new Set(ids).size).toBeGreaterThan(N - 15); // ~3 repeats expected by chance among 600 of 65536
  const steps = new Set(ids.slice(1).map((id, i) => (id - ids[i]! + 65536) & 0xffff));
  expect(steps.size).toBeGreaterThan(N * 0.9); // not a constant (or few) strides
  const ports = new Set(qs.map((q) => q.port));
  expect(ports.size).toBeGreaterThanOrEqual(N / 32); // 8 sockets at a time, each replaced after 32 queries
  // "rnd-N.ports.test" has 12 letters: all lowercase by chance once in 4096
  const mixed = qs.filter((q) => q.sent !== q.name).length;
  expect(mixed).toBeGreaterThan(N * 0.95);
});

test("forged answers (wrong ID, wrong question, wrong source or destination port) are ignored; the real one is taken", async () => {
  const names = Array.from({ length: 10 }, (_, i) => `Spoof-${i}.Example.Test`);
  const replies = await Promise.all(names.map((n) => ask(moat.dnsPort, n, { timeoutMs: 8000 })));
  for (const [i, r] of replies.entries()) {
    expect([r.rcode, firstAddress(r), r.msg.questions![0]!.name]).toEqual(["NOERROR", "192.0.2.55", names[i]!]);
  }
  // asked again: the cache holds the real answer, not a forged one
  for (const n of names) expect(firstAddress(await ask(moat.dnsPort, n))).toBe("192.0.2.55");
});

test("an upstream that lowercases the question still answers, with the client's case; after a few it gets plain queries", async () => {
  for (let i = 0; i < 16; i++) {
    const name = `Lower-${i}.Lower.Test`;
    const r = await ask(moat.dnsPort, name, { timeoutMs: 8000 });
    expect([r.rcode, firstAddress(r), r.msg.questions![0]!.name]).toEqual(["NOERROR", "192.0.2.56", name]);
  }
  const qs = lower.queries().filter((q) => q.name.endsWith(".lower.test"));
  // each of the first ones went twice (random case, then the client's), the later ones once
  expect(qs.length).toBeLessThanOrEqual(16 + 8 + 1);
  expect(qs.filter((q) => q.name === "lower-15.lower.test").length).toBe(1);
});
