// Local answers (hosts, CNAME records, pi.hole, PTR, local domain), rate limiting, live config
// (records, upstreams) and a bounded fuzz run, against the real server.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, encodeQuery, firstAddress, runDig, sendUdp, sendTcp } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;
let up2: Upstream;

const toml = (upstream: string) => `
[dns]
upstreams = ["${upstream}"]
hosts = ["10.0.0.5 nas nas.home.test", "fd00::5 nas"]
cnameRecords = ["files.home.test,nas.home.test,60"]
[dns.rateLimit]
count = 30
interval = 60
`;

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.30" });
  up2 = await startUpstream({ addr: "192.0.2.31" });
  moat = await startMoat({ configToml: toml(up.address) });
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
  await up2?.stop();
});

async function setConfig(config: unknown): Promise<Response> {
  return moat.api("/api/config", { method: "PATCH", body: JSON.stringify({ config }) });
}

test("dns.hosts: A, AAAA, local-domain expansion, PTR, never forwarded", async () => {
  expect(firstAddress(await ask(moat.dnsPort, "nas.home.test"))).toBe("10.0.0.5");
  expect(firstAddress(await ask(moat.dnsPort, "nas"))).toBe("10.0.0.5");
  expect(firstAddress(await ask(moat.dnsPort, "nas.lan"))).toBe("10.0.0.5");
  expect(firstAddress(await ask(moat.dnsPort, "nas", { type: "AAAA" }))).toBe("fd00::5");
  const ptr = await runDig(["@127.0.0.1", "-p", String(moat.dnsPort), "-x", "10.0.0.5", "+short"]);
  expect(ptr.trim()).toBe("nas.");
  expect(up.count("nas.home.test")).toBe(0);
});

test("dns.cnameRecords: CNAME plus the target's address", async () => {
  const r = await ask(moat.dnsPort, "files.home.test");
  expect(r.answers[0]).toMatchObject({ type: "CNAME", data: "nas.home.test", ttl: 60 });
  expect(firstAddress(r)).toBe("10.0.0.5");
});

test("pi.hole, own PTR, bogus private PTR and the local domain stay local", async () => {
  expect(firstAddress(await ask(moat.dnsPort, "pi.hole"))).toBe("127.0.0.1");
  expect((await runDig(["@127.0.0.1", "-p", String(moat.dnsPort), "-x", "127.0.0.1", "+short"])).trim()).toBe(
    "localhost.",
  );
  expect((await runDig(["@127.0.0.1", "-p", String(moat.dnsPort), "-x", "::1", "+short"])).trim()).toBe("localhost.");
  expect((await ask(moat.dnsPort, "9.9.168.192.in-addr.arpa", { type: "PTR" })).rcode).toBe("NXDOMAIN");
  expect((await ask(moat.dnsPort, "unknown.lan")).rcode).toBe("NXDOMAIN");
  expect(up.count("9.9.168.192.in-addr.arpa") + up.count("unknown.lan")).toBe(0);
});

test("local records change live", async () => {
  expect((await setConfig({ dns: { hosts: ["10.0.0.6 printer.home.test"] } })).status).toBe(200);
  expect(firstAddress(await ask(moat.dnsPort, "printer.home.test", { from: "127.0.0.9" }))).toBe("10.0.0.6");
});

test("rate limit: over dns.rateLimit.count the client gets REFUSED, others are unaffected", async () => {
  const from = "127.0.0.5";
  const codes: string[] = [];
  for (let i = 0; i < 35; i++) codes.push((await ask(moat.dnsPort, `rl-${i}.test`, { from })).rcode);
  expect(codes.slice(0, 30).every((c) => c === "NOERROR")).toBe(true);
  expect(codes.slice(30).every((c) => c === "REFUSED")).toBe(true);
  expect((await ask(moat.dnsPort, "rl-other.test", { from: "127.0.0.6" })).rcode).toBe("NOERROR");
  expect(await moat.outputWith("Rate-limiting 127.0.0.5")).toContain("Rate-limiting 127.0.0.5");
});

test("upstreams change live", async () => {
  expect(firstAddress(await ask(moat.dnsPort, "live-up-1.test", { from: "127.0.0.10" }))).toBe("192.0.2.30");
  const r = await setConfig({ dns: { upstreams: [up2.address] } });
  expect(r.status).toBe(200);
  expect(firstAddress(await ask(moat.dnsPort, "live-up-2.test", { from: "127.0.0.10" }))).toBe("192.0.2.31");
});

test("fuzz: thousands of random and mutated packets, then correct answers", async () => {
  expect((await setConfig({ dns: { rateLimit: { count: 0 } } })).status).toBe(200); // let every packet reach the resolver
  const seedQueries = ["fuzz.test", "nas.home.test", "pi.hole", "x.y.z.fuzz.test"].map((n) => encodeQuery(n));
  let rnd = 12345;
  const rand = () => (rnd = (Math.imul(rnd, 1103515245) + 12345) >>> 0) / 4294967296;
  const sock = await Bun.udpSocket({ hostname: "127.0.0.20", port: 0, socket: { data() {}, error() {} } });
  const N = 20000;
  for (let i = 0; i < N; i++) {
    let pkt: Uint8Array;
    if (i % 3 === 0) {
      pkt = new Uint8Array(Math.floor(rand() * 80));
      for (let j = 0; j < pkt.length; j++) pkt[j] = Math.floor(rand() * 256);
    } else {
      pkt = seedQueries[i % seedQueries.length]!.slice(0, 12 + Math.floor(rand() * 60));
      const flips = 1 + Math.floor(rand() * 4);
      for (let f = 0; f < flips; f++) pkt[Math.floor(rand() * pkt.length)] = Math.floor(rand() * 256);
    }
    sock.send(pkt, moat.dnsPort, "127.0.0.1");
    if (i % 500 === 0) await Bun.sleep(5); // bounded pace: let the server breathe
  }
  // garbage over TCP too
  await sendTcp(moat.dnsPort, [new Uint8Array([0, 0, 0]), new Uint8Array(300).fill(0xc0)], 1, 500);
  sock.close();
  expect(firstAddress(await ask(moat.dnsPort, "after-fuzz.test", { from: "127.0.0.21" }))).toBe("192.0.2.31");
  expect(firstAddress(await ask(moat.dnsPort, "nas.home.test", { from: "127.0.0.21", tcp: true }))).toBe("192.0.2.31"); // hosts were replaced live: now forwarded
  expect(firstAddress(await ask(moat.dnsPort, "printer.home.test", { from: "127.0.0.21" }))).toBe("10.0.0.6");
  const again = await sendUdp(moat.dnsPort, encodeQuery("pi.hole"), "127.0.0.22");
  expect(again).not.toBeNull();
}, 60000);
