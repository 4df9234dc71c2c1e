// Forwarding over DNS over TLS and DNS over HTTPS to a real peer (unbound with a throwaway certificate):
// answers come back with the client's id and question, the statistics name the upstream as written,
// and a certificate that does not match the name, or is not trusted, is refused with a clear log line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { makeTestCa, startUnbound, type TestCa, type UnboundPeer } from "../harness/tls-peer.ts";
import { ask, encodeQuery, decodeReply, firstAddress, sendTcp, until } from "./helpers.ts";

let ca: TestCa;
let peer: UnboundPeer;
const started: MoatProcess[] = [];

beforeAll(async () => {
  ca = makeTestCa(["dns.test"]);
  peer = await startUnbound(ca, [
    "dot.example.test. 300 IN A 192.0.2.53",
    "many.example.test. 300 IN A 192.0.2.54",
    "dns.test. 300 IN A 127.0.0.1",
  ]);
});

afterAll(async () => {
  for (const m of started) await m.dispose();
  await peer?.stop();
  ca?.dispose();
});

async function moatWith(upstreams: string[], trust = true, env: Record<string, string> = {}): Promise<MoatProcess> {
  const m = await startMoat({
    env: { FTLCONF_dns_upstreams: upstreams.join(";"), ...(trust ? { NODE_EXTRA_CA_CERTS: ca.caFile } : {}), ...env },
  });
  started.push(m);
  return m;
}

async function upstreamStats(
  m: MoatProcess,
): Promise<Array<{ name: string; count: number; statistics: { response: number } }>> {
  const r = await m.api("/api/stats/upstreams");
  return ((await r.json()) as { upstreams: Array<{ name: string; count: number; statistics: { response: number } }> })
    .upstreams;
}

describe.each([
  ["DoT", () => `tls://dns.test@127.0.0.1:${peer.dotPort}`],
  ["DoH", () => `https://dns.test@127.0.0.1:${peer.dohPort}/dns-query`],
  // RFC 8484's URI template asks by GET (a POST to that path would find nothing)
  ["DoH by GET", () => `https://dns.test@127.0.0.1:${peer.dohPort}/dns-query{?dns}`],
])("forwarding over %s", (_kind, upstream) => {
  test("answers with the client's id and question, pipelined, and counts the upstream as written", async () => {
    const m = await moatWith([upstream()]);
    const r = await ask(m.dnsPort, "dot.example.test");
    expect(r.rcode).toBe("NOERROR");
    expect(r.answers.length).toBe(1);
    expect(firstAddress(r)).toBe("192.0.2.53");
    // many queries at once over TCP to Moat: each answered with its own id and name
    const names = Array.from({ length: 40 }, (_, i) => `n${i}.many.example.test`);
    // ids of their own (random ones collide about once in a hundred runs of 40)
    const qs = names.map((n, i) => {
      const q = encodeQuery(n);
      q[0] = 0x40;
      q[1] = i;
      return q;
    });
    const answers = (await sendTcp(m.dnsPort, qs, qs.length, 10000)).map(decodeReply);
    expect(answers.length).toBe(40);
    for (const a of answers) {
      const q = qs.find((x) => decodeReply(x).msg.id === a.msg.id)!;
      expect(q).toBeDefined();
      expect(a.msg.questions?.[0]?.name).toBe(decodeReply(q).msg.questions?.[0]?.name);
      expect(a.rcode).toBe("NXDOMAIN"); // a static zone: the names under many.example.test do not exist
    }
    const stats = await upstreamStats(m);
    const mine = stats.find((s) => s.name === upstream());
    expect(mine?.count).toBeGreaterThanOrEqual(41);
  }, 25000);

  test("a certificate for another name is refused, with a log line saying so", async () => {
    const wrong = upstream().replace("dns.test@", "other.test@");
    const m = await moatWith([wrong]);
    const r = await ask(m.dnsPort, "dot.example.test", { timeoutMs: 8000 });
    expect(r.rcode).toBe("SERVFAIL");
    await until(
      async () =>
        /certificate refused/.test(m.output) || /certificate refused/.test(await (await m.api("/api/logs/ftl")).text()),
      8000,
      "a log line about the certificate",
    );
  }, 25000);

  test("a certificate from an authority the system does not trust is refused", async () => {
    const m = await moatWith([upstream()], false);
    const r = await ask(m.dnsPort, "dot.example.test", { timeoutMs: 8000 });
    expect(r.rcode).toBe("SERVFAIL");
  }, 25000);
});

test("a host name of an encrypted upstream is looked up through dns.bootstrap, not through Moat", async () => {
  const m = await moatWith([`tls://dns.test:${peer.dotPort}`, `https://dns.test:${peer.dohPort}/dns-query`], true, {
    FTLCONF_dns_bootstrap: `127.0.0.1#${peer.udpPort}`,
  });
  for (let i = 0; i < 4; i++) {
    const r = await ask(m.dnsPort, `b${i}.dot.example.test`);
    expect(r.rcode).toBe("NXDOMAIN"); // answered by the peer: it knows dot.example.test, not b0.dot.example.test
  }
  expect(firstAddress(await ask(m.dnsPort, "dot.example.test"))).toBe("192.0.2.53");
  const names = (await upstreamStats(m)).filter((s) => s.count > 0).map((s) => s.name);
  expect(names.length).toBeGreaterThanOrEqual(1);
  for (const n of names) expect(n.startsWith("tls://dns.test:") || n.startsWith("https://dns.test:")).toBe(true);
}, 25000);

test("DoT: a connection the server closed when idle is opened again, and the next query is answered", async () => {
  // unbound closes idle TLS connections after 300 ms here
  const quick = await startUnbound(ca, ["dot.example.test. 300 IN A 192.0.2.53"], "  tcp-idle-timeout: 300");
  try {
    const m = await moatWith([`tls://dns.test@127.0.0.1:${quick.dotPort}`]);
    for (let i = 0; i < 3; i++) {
      const r = await ask(m.dnsPort, `idle${i}.dot.example.test`, { timeoutMs: 5000 });
      expect(r.rcode).toBe("NXDOMAIN"); // the peer's answer, not a SERVFAIL of ours
      await Bun.sleep(800);
    }
    expect(m.output).not.toContain("WARNING upstream");
  } finally {
    await quick.stop();
  }
}, 25000);
