// Forwarding, caching, truncation, failover and wire robustness against the real server and a real
// upstream process.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, freePort, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, decodeReply, encodeQuery, firstAddress, runDig, sendTcp, sendUdp, ttlOf, until } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;
let dead: number;

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.10", ttl: 300, neg: 30 });
  dead = await freePort(); // nothing listens here: a failed upstream
  moat = await startMoat({
    env: { FTLCONF_dns_upstreams: `127.0.0.1#${dead};${up.address}`, FTLCONF_dns_cache_optimizer: "3600" },
  });
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

test("forwards to the upstream, keeps the question's letter case, sets RA", async () => {
  const r = await ask(moat.dnsPort, "FoRwArD-1.Example.TEST");
  expect(r.rcode).toBe("NOERROR");
  expect(firstAddress(r)).toBe("192.0.2.10");
  expect(r.msg.questions![0]!.name).toBe("FoRwArD-1.Example.TEST");
  expect(r.msg.flags! & 0x80).toBe(0x80);
  expect(up.count("forward-1.example.test")).toBe(1);
});

test("cache: second query is answered without the upstream, TTL decays", async () => {
  const first = await ask(moat.dnsPort, "cache-1.example.test");
  expect(ttlOf(first)).toBe(300);
  await until(async () => ttlOf(await ask(moat.dnsPort, "cache-1.example.test")) < 300, 5000, "TTL decay");
  expect(up.count("cache-1.example.test")).toBe(1);
});

test("negative answers are cached for the SOA minimum (RFC 2308)", async () => {
  const a = await ask(moat.dnsPort, "nx-neg.example.test");
  expect(a.rcode).toBe("NXDOMAIN");
  const b = await ask(moat.dnsPort, "nx-neg.example.test");
  expect(b.rcode).toBe("NXDOMAIN");
  expect(up.count("nx-neg.example.test")).toBe(1);
});

test("serve-stale: an expired answer is served at once and refreshed in the background", async () => {
  await ask(moat.dnsPort, "ttl1-stale.example.test");
  await Bun.sleep(2100);
  const stale = await ask(moat.dnsPort, "ttl1-stale.example.test");
  expect(firstAddress(stale)).toBe("192.0.2.10");
  await until(async () => up.count("ttl1-stale.example.test") >= 2, 5000, "background refresh");
});

test("DO bit answers are cached apart from plain ones", async () => {
  await ask(moat.dnsPort, "do-split.example.test");
  await ask(moat.dnsPort, "do-split.example.test", { dnssecOk: true });
  expect(up.count("do-split.example.test")).toBe(2);
});

test("failover: a dead first upstream does not stop answers, and the live one is preferred after", async () => {
  const r = await ask(moat.dnsPort, "failover.example.test", { timeoutMs: 8000 });
  expect(firstAddress(r)).toBe("192.0.2.10");
  const t0 = performance.now();
  await ask(moat.dnsPort, "failover-2.example.test", { timeoutMs: 8000 });
  expect(performance.now() - t0).toBeLessThan(1400); // the dead server is no longer tried first
});

test("truncated upstream answer is fetched over TCP; a small client gets TC and the full answer over TCP", async () => {
  const udp = await ask(moat.dnsPort, "big-1.example.test", { type: "TXT", timeoutMs: 8000 });
  expect(udp.msg.flags! & 0x200).toBe(0x200); // 40 records do not fit 1232 bytes
  expect(up.count("big-1.example.test", "tcp")).toBe(1);
  const tcp = await ask(moat.dnsPort, "big-1.example.test", { type: "TXT", tcp: true });
  expect(tcp.answers.length).toBe(40);
  const dig = await runDig(["@127.0.0.1", "-p", String(moat.dnsPort), "big-1.example.test", "TXT"]);
  expect(dig).toContain("ANSWER: 40");
});

test("EDNS: OPT is echoed with our UDP size; without EDNS no OPT comes back", async () => {
  const a = await ask(moat.dnsPort, "edns.example.test");
  const opt = a.msg.additionals!.find((x) => x.type === "OPT") as { udpPayloadSize?: number } | undefined;
  expect(opt?.udpPayloadSize).toBe(1232);
  const b = await ask(moat.dnsPort, "edns.example.test", { edns: false });
  expect((b.msg.additionals ?? []).length).toBe(0);
});

test("TCP pipelining: several queries on one connection all get their answers", async () => {
  const qs = Array.from({ length: 20 }, (_, i) => encodeQuery(`pipe-${i}.example.test`));
  const answers = (await sendTcp(moat.dnsPort, qs)).map(decodeReply);
  expect(answers.length).toBe(20);
  const names = new Set(answers.map((r) => r.msg.questions![0]!.name));
  for (let i = 0; i < 20; i++) expect(names.has(`pipe-${i}.example.test`)).toBe(true);
});

test("malformed packets: FORMERR or dropped, responses are never answered", async () => {
  // two questions
  const q = encodeQuery("x.example.test");
  const bad = new Uint8Array(q);
  bad[5] = 2;
  const r = await sendUdp(moat.dnsPort, bad);
  expect(r).not.toBeNull();
  expect(r![3]! & 0xf).toBe(1);
  // a response (QR set) is dropped
  const resp = new Uint8Array(q);
  resp[2] = resp[2]! | 0x80;
  expect(await sendUdp(moat.dnsPort, resp, "127.0.0.1", 500)).toBeNull();
  // too short
  expect(await sendUdp(moat.dnsPort, new Uint8Array([1, 2, 3]), "127.0.0.1", 500)).toBeNull();
  // a name running off the end
  const cut = q.slice(0, 16);
  cut[12] = 40;
  const r2 = await sendUdp(moat.dnsPort, cut);
  expect(r2![3]! & 0xf).toBe(1);
});

test("SERVFAIL when every upstream fails (servfail answers count as failures)", async () => {
  const r = await ask(moat.dnsPort, "servfail-x.example.test", { timeoutMs: 8000 });
  expect(r.rcode).toBe("SERVFAIL");
});

test("dig: pi.hole answers locally and IPv6 ::1 works", async () => {
  const out = await runDig(["@::1", "-p", String(moat.dnsPort), "pi.hole", "AAAA", "+short"]);
  expect(out.trim()).toBe("::1");
  const v4 = await runDig(["@127.0.0.1", "-p", String(moat.dnsPort), "pi.hole", "+short"]);
  expect(v4.trim()).toBe("127.0.0.1");
});
