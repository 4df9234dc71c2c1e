// Special-use names, asked with dig as a device would: `localhost` (RFC 6761 §6.3) is loopback at once,
// `invalid` (§6.4) NXDOMAIN, `local.` (RFC 6762) and `home.arpa.` (RFC 8375) reach only the conditional
// forwarder the user routed them to, and DDR (RFC 9462) names Moat's own DoT and DoH, which kdig then
// follows. None of these reach the public upstream, whose query log the tests read.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "../lists/helpers.ts";
import { run, startTlsMoat, type TlsMoat } from "../tls/helpers.ts";
import { until } from "./helpers.ts";

const PUBLIC = "192.0.2.41",
  ROUTER = "192.0.2.42";
let t: TlsMoat;
let plain: MoatProcess;
let up: Upstream;
let router: Upstream;

beforeAll(async () => {
  [up, router] = await Promise.all([startUpstream({ addr: PUBLIC }), startUpstream({ addr: ROUTER })]);
  t = await startTlsMoat({
    FTLCONF_dns_upstreams: up.address,
    FTLCONF_dns_hosts: "192.168.77.5 nas.home.arpa",
    FTLCONF_dns_revServers: `true,192.168.77.0/24,${router.address},routed.home.arpa;true,192.168.78.0/24,${router.address},corp.local`,
  });
  plain = await startMoat({ configToml: `[dns]\nupstreams = ["${up.address}"]\n` });
});
afterAll(async () => {
  await t?.moat.dispose();
  await plain?.dispose();
  await Promise.all([up?.stop(), router?.stop()]);
});

interface Dig {
  id: number;
  status: string;
  flags: string[];
  question: string;
  /** answer records as [name, ttl, type, data] */
  answers: string[][];
}

/** dig with a chosen query ID, its header, question and answer section read back. */
async function dig(port: number, name: string, type: string, tcp = false): Promise<Dig> {
  const id = 1 + Math.floor(Math.random() * 65000);
  const r = await run(["dig", `@127.0.0.1`, "-p", String(port), `+qid=${id}`, ...(tcp ? ["+tcp"] : []), name, type]);
  const head = /->>HEADER<<- opcode: QUERY, status: (\w+), id: (\d+)/.exec(r.out);
  const flags = /;; flags: ([a-z ]+);/.exec(r.out);
  const question = /;; QUESTION SECTION:\n;(.+)\n/.exec(r.out);
  const section = /;; ANSWER SECTION:\n([\s\S]*?)\n\n/.exec(r.out);
  if (!head || !flags || !question) throw new Error(`dig ${name} ${type}: no answer\n${r.out}`);
  expect(Number(head[2])).toBe(id);
  return {
    id: Number(head[2]),
    status: head[1]!,
    flags: flags[1]!.trim().split(" ").sort(),
    question: question[1]!.split(/\s+/).join(" "),
    answers: section ? section[1]!.split("\n").map((l) => l.split(/\s+/).filter((_, i) => i !== 2)) : [],
  };
}

/** Answered by Moat itself: NOERROR/NXDOMAIN with AA and RA set, the question as asked. */
function expectOwn(d: Dig, name: string, type: string, status: string): void {
  expect([d.status, d.flags, d.question]).toEqual([status, ["aa", "qr", "ra", "rd"], `${name}. IN ${type}`]);
}

const publicSaw = (name: string) => up.queries().filter((q) => q.name === name).length;

describe("localhost (RFC 6761 §6.3)", () => {
  test("localhost and names under it are loopback, over UDP and TCP, without asking the upstream", async () => {
    for (const tcp of [false, true])
      for (const name of ["localhost", "app.localhost", "a.b.LocalHost"]) {
        const a = await dig(t.moat.dnsPort, name, "A", tcp);
        expectOwn(a, name, "A", "NOERROR");
        // the owner is the question's name, case as asked
        expect(a.answers).toEqual([[`${name}.`, "60", "A", "127.0.0.1"]]);
        const aaaa = await dig(t.moat.dnsPort, name, "AAAA", tcp);
        expectOwn(aaaa, name, "AAAA", "NOERROR");
        expect(aaaa.answers).toEqual([[`${name}.`, "60", "AAAA", "::1"]]);
        const mx = await dig(t.moat.dnsPort, name, "MX", tcp);
        expectOwn(mx, name, "MX", "NOERROR");
        expect(mx.answers).toEqual([]);
      }
    expect(publicSaw("localhost") + publicSaw("app.localhost") + publicSaw("a.b.localhost")).toBe(0);
  });

  test("with no upstream at all, localhost is still answered (not SERVFAIL)", async () => {
    const none = await startMoat();
    try {
      const a = await dig(none.dnsPort, "localhost", "A");
      expectOwn(a, "localhost", "A", "NOERROR");
      expect(a.answers).toEqual([["localhost.", "60", "A", "127.0.0.1"]]);
    } finally {
      await none.dispose();
    }
  });

  test("the query log shows it as a local answer (FTL's cache status, reply IP)", async () => {
    await dig(t.moat.dnsPort, "logged.localhost", "A");
    await until(
      async () => (await call(t.moat, "GET", "/api/queries?domain=logged.localhost")).json.queries.length > 0,
      5000,
      "the query record",
    );
    const [rec] = (await call(t.moat, "GET", "/api/queries?domain=logged.localhost")).json.queries;
    expect([rec.status, rec.reply.type, rec.upstream]).toEqual(["CACHE", "IP", null]);
  });
});

describe("invalid (RFC 6761 §6.4)", () => {
  test("invalid and names under it are NXDOMAIN without asking the upstream", async () => {
    for (const name of ["invalid", "foo.invalid", "x.y.INVALID"]) {
      const d = await dig(t.moat.dnsPort, name, "A");
      expectOwn(d, name, "A", "NXDOMAIN");
      expect(d.answers).toEqual([]);
    }
    expect(publicSaw("invalid") + publicSaw("foo.invalid") + publicSaw("x.y.invalid")).toBe(0);
  });
});

describe("local. and home.arpa. (RFC 6762, RFC 8375)", () => {
  test("never reach the public upstream: NXDOMAIN from Moat itself", async () => {
    for (const name of ["printer.local", "local", "home.arpa", "tv.home.arpa"]) {
      const d = await dig(t.moat.dnsPort, name, "A");
      expectOwn(d, name, "A", "NXDOMAIN");
    }
    for (const name of ["printer.local", "local", "home.arpa", "tv.home.arpa"]) expect(publicSaw(name)).toBe(0);
  });

  test("dns.hosts entries under home.arpa are answered", async () => {
    const d = await dig(t.moat.dnsPort, "nas.home.arpa", "A");
    expectOwn(d, "nas.home.arpa", "A", "NOERROR");
    expect(d.answers).toEqual([["nas.home.arpa.", "2", "A", "192.168.77.5"]]);
  });

  test("names the user routed (dns.revServers) go to that forwarder, and only there", async () => {
    for (const name of ["pc.routed.home.arpa", "nas.corp.local"]) {
      const d = await dig(t.moat.dnsPort, name, "A");
      expect([d.status, d.question]).toEqual(["NOERROR", `${name}. IN A`]);
      expect(d.flags).toContain("ra");
      expect(d.answers.map((a) => a.slice(2))).toEqual([["A", ROUTER]]);
      expect(router.queries().filter((q) => q.name === name).length).toBe(1);
      expect(publicSaw(name)).toBe(0);
    }
  });
});

describe("DDR: _dns.resolver.arpa SVCB (RFC 9462)", () => {
  test("names Moat's DoT and DoH endpoints (kdig parses them), and kdig follows both", async () => {
    const r = await run(["kdig", "@127.0.0.1", "-p", String(t.moat.dnsPort), "_dns.resolver.arpa", "SVCB"]);
    expect(r.out).toMatch(/status: NOERROR/);
    expect(r.out).toMatch(/Flags: qr aa rd ra;/);
    expect(r.out).toMatch(/;; _dns\.resolver\.arpa\.\s+IN\s+SVCB/);
    const records = [...r.out.matchAll(/^_dns\.resolver\.arpa\.\s+60\s+IN\s+SVCB\s+(.+)$/gm)].map((m) => m[1]!.trim());
    expect(records).toEqual([
      `1 pi.hole. alpn=dot port=${t.dotPort} ipv4hint=127.0.0.1 ipv6hint=::1`,
      `2 pi.hole. alpn=h2 port=${t.httpsPort} ipv4hint=127.0.0.1 ipv6hint=::1 key7="/dns-query{?dns}"`,
    ]);
    // a device follows the records: the target name is what it checks the certificate against
    const follow = async (rec: string, extra: string[]) => {
      const [, target, port] = /^\d+ (\S+)\. .*port=(\d+)/.exec(rec)!;
      const ip = /ipv4hint=(\S+)/.exec(rec)![1]!;
      const q = `ddr-${extra[0]!.slice(1, 6)}.example.test`;
      const out = await run([
        "kdig",
        `@${ip}`,
        "-p",
        port!,
        ...extra,
        `+tls-ca=${t.caFile}`,
        `+tls-hostname=${target}`,
        q,
      ]);
      expect(out.out).toMatch(/status: NOERROR/);
      expect(out.out).toMatch(new RegExp(`^${q.replaceAll(".", "\\.")}\\.\\s+\\d+\\s+IN\\s+A\\s+${PUBLIC}$`, "im"));
    };
    await follow(records[0]!, ["+tls"]);
    await follow(records[1]!, ["+https=/dns-query"]);
  });

  test("dig reads the same records; other types at the name are NODATA; other names under resolver.arpa NXDOMAIN", async () => {
    const d = await dig(t.moat.dnsPort, "_dns.resolver.arpa", "SVCB");
    expectOwn(d, "_dns.resolver.arpa", "SVCB", "NOERROR");
    expect(d.answers.map((a) => a.slice(2, 5))).toEqual([
      ["SVCB", "1", "pi.hole."],
      ["SVCB", "2", "pi.hole."],
    ]);
    const a = await dig(t.moat.dnsPort, "_dns.resolver.arpa", "A");
    expectOwn(a, "_dns.resolver.arpa", "A", "NOERROR");
    expect(a.answers).toEqual([]);
    expectOwn(await dig(t.moat.dnsPort, "x.resolver.arpa", "A"), "x.resolver.arpa", "A", "NXDOMAIN");
    expect(publicSaw("_dns.resolver.arpa") + publicSaw("x.resolver.arpa")).toBe(0);
  });

  test("with dns.threads = 2, every thread answers with the certificate's name", async () => {
    const two = await startTlsMoat({ FTLCONF_dns_threads: "2", FTLCONF_dns_upstreams: up.address });
    try {
      // each dig has a port of its own, so SO_REUSEPORT spreads them over both threads
      for (let i = 0; i < 12; i++) {
        const d = await dig(two.moat.dnsPort, "_dns.resolver.arpa", "SVCB");
        expectOwn(d, "_dns.resolver.arpa", "SVCB", "NOERROR");
        expect(d.answers.map((a) => a.slice(2, 5).join(" "))).toEqual(["SVCB 1 pi.hole.", "SVCB 2 pi.hole."]);
      }
    } finally {
      await two.moat.dispose();
    }
  });

  test("with dns.threads = 2 and DoT switched on while running, every thread names it", async () => {
    // DoT off in the config file rather than the environment (the harness's default), so the API may switch it on
    const two = await startMoat({
      configToml: `[dns]\nthreads = 2\nupstreams = ["${up.address}"]\n[dns.tls]\nport = 0\n`,
      env: { FTLCONF_dns_tls_port: undefined as unknown as string },
    });
    try {
      const before = await dig(two.dnsPort, "_dns.resolver.arpa", "SVCB");
      expect([before.status, before.answers]).toEqual(["NOERROR", []]);
      const dotPort = await freePort();
      const r = await two.api("/api/config", {
        method: "PATCH",
        body: JSON.stringify({ config: { dns: { tls: { port: dotPort } } } }),
      });
      expect(r.status).toBe(200);
      for (let i = 0; i < 12; i++) {
        const d = await dig(two.dnsPort, "_dns.resolver.arpa", "SVCB");
        expectOwn(d, "_dns.resolver.arpa", "SVCB", "NOERROR");
        expect(d.answers.map((a) => a.slice(2, 5).join(" "))).toEqual(["SVCB 1 pi.hole."]);
      }
    } finally {
      await two.dispose();
    }
  });

  test("with neither DoT nor DoH on, Pi-hole's dns.specialDomains.designatedResolver applies: NODATA, not forwarded", async () => {
    const d = await dig(plain.dnsPort, "_dns.resolver.arpa", "SVCB");
    expect([d.status, d.question, d.flags]).toEqual(["NOERROR", "_dns.resolver.arpa. IN SVCB", ["qr", "ra", "rd"]]);
    expect(d.answers).toEqual([]);
    expect(publicSaw("_dns.resolver.arpa")).toBe(0);
    await until(
      async () => (await call(plain, "GET", "/api/queries?domain=_dns.resolver.arpa")).json.queries.length > 0,
      5000,
      "the query record",
    );
    const [rec] = (await call(plain, "GET", "/api/queries?domain=_dns.resolver.arpa")).json.queries;
    expect([rec.status, rec.reply.type]).toEqual(["SPECIAL_DOMAIN", "NODATA"]);
  });
});
