// dns.recursive against a private hierarchy of real authorities (recursive-hierarchy.sh: one nsd per
// role, each on its own loopback address and port 53, as on the Internet) plus two scripted ones: a
// victim that counts the queries an NXNS-style referral makes it take, and an injector that adds
// records about a zone it does not serve. Port 53 on addresses of our choosing needs a network
// namespace of its own: the file runs itself again under `unshare -n` (CI runs as root). unbound,
// with the same root hints, resolves every case too: Moat's rcodes and answers must equal its.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as packet from "dns-packet";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess, udp } from "bun";
import { BUN, ROOT, freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { GLUELESS_PER_ZONE } from "../../src/dns/recursive/budget.ts";
import { buildHierarchy } from "./dnssec-hierarchy.ts";
import { base32hex, nsec3Hash } from "./nsec3-hash.ts";
import { injectAnswer, synAnswer, victimAnswer } from "./recursive-authorities.ts";
import { ask, encodeQuery, sendUdp, until, type Reply } from "./helpers.ts";

const IN_NAMESPACE = process.env.MOAT_RECURSIVE_NETNS === "1";

if (!IN_NAMESPACE) {
  test("recursive resolution, in a network namespace of its own (unshare -n)", async () => {
    const p = Bun.spawn(
      [
        "unshare",
        "-n",
        "sh",
        "-c",
        `ip link set lo up && exec "${BUN}" test --timeout 30000 test/dns/recursive.test.ts`,
      ],
      { cwd: ROOT, env: { ...process.env, MOAT_RECURSIVE_NETNS: "1" }, stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.exited,
    ]);
    if (code !== 0) throw new Error(`the run in its own network namespace failed (${code}):\n${out}${err}`);
  }, 120_000);
} else {
  describe("dns.recursive", () => {
    let dir: string;
    let moat: MoatProcess;
    let unboundPort: number;
    const procs: Subprocess[] = [];
    const sockets: udp.Socket<"uint8array">[] = [];
    /** queries the NXNS victim's server received */
    let victimQueries = 0;

    async function authority(ip: string, answer: (q: Uint8Array) => Uint8Array): Promise<void> {
      sockets.push(
        await Bun.udpSocket({
          hostname: ip,
          port: 53,
          binaryType: "uint8array",
          socket: { data: (s, q, port, addr) => void s.send(answer(q), port, addr) },
        }),
      );
    }

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "moat-recursive-"));
      const b = Bun.spawnSync(["bash", join(import.meta.dir, "recursive-hierarchy.sh"), dir]);
      if (b.exitCode !== 0) throw new Error(b.stderr.toString());
      for (const role of ["root", "root2", "tld", "leaf", "refuser"])
        procs.push(Bun.spawn(["nsd", "-d", "-c", join(dir, `${role}.conf`)], { stdout: "ignore", stderr: "ignore" }));
      await authority("127.0.5.1", (q) => {
        victimQueries++;
        return victimAnswer(q);
      });
      await authority("127.0.6.1", injectAnswer);
      await authority("127.0.7.1", synAnswer);
      unboundPort = await freePort();
      writeFileSync(
        join(dir, "unbound.conf"),
        [
          "server:",
          "  interface: 127.0.0.1",
          `  port: ${unboundPort}`,
          "  do-daemonize: no",
          '  username: ""',
          '  chroot: ""',
          `  directory: "${dir}"`,
          '  pidfile: ""',
          "  use-syslog: no",
          "  verbosity: 0",
          "  do-ip6: yes",
          "  do-not-query-localhost: no",
          '  local-zone: "test." nodefault',
          `  root-hints: "${join(dir, "root.hints")}"`,
          '  module-config: "iterator"',
          "  qname-minimisation: yes",
          "  access-control: 127.0.0.0/8 allow",
          "remote-control:",
          "  control-enable: no",
        ].join("\n"),
      );
      procs.push(Bun.spawn(["unbound", "-d", "-c", join(dir, "unbound.conf")], { stdout: "ignore", stderr: "ignore" }));
      for (const [ip, port] of [
        ["127.0.1.1", 53],
        ["127.0.1.2", 53],
        ["127.0.2.1", 53],
        ["127.0.3.1", 53],
        ["127.0.0.1", unboundPort],
      ] as const)
        await until(
          async () => (await sendUdp(port, encodeQuery("test", { type: "SOA" }), "127.0.0.1", 500, ip)) !== null,
          10_000,
          `DNS on ${ip}#${port}`,
        );
      moat = await startMoat({
        env: {
          FTLCONF_dns_recursive_active: "true",
          FTLCONF_dns_recursive_rootHints: join(dir, "root.hints"),
          FTLCONF_dns_upstreams: "",
          FTLCONF_webserver_api_metricsToken: "t0ken",
        },
      });
    }, 60_000);

    afterAll(async () => {
      await moat?.dispose();
      for (const s of sockets) s.close();
      for (const p of procs) p.kill();
      await Promise.all(procs.map((p) => p.exited));
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const records = (r: Reply) =>
      r.answers.map((a) => `${a.name.toLowerCase()} ${a.type} ${String((a as { data?: unknown }).data)}`).sort();

    /** Moat's answer, checked against unbound's: the same rcode and the same records. */
    async function both(name: string, type = "A", tcp = false): Promise<Reply> {
      const m = await ask(moat.dnsPort, name, { type, tcp, timeoutMs: 8000 });
      // unbound backs off on the silent server of lame.test for seconds on a loaded machine: allow it time
      const u = await ask(unboundPort, name, { type, tcp, timeoutMs: 15_000 });
      expect(`${name} ${m.rcode}`).toBe(`${name} ${u.rcode}`);
      expect(records(m)).toEqual(records(u));
      return m;
    }

    test("an address through the root's and the TLD's referrals (glue)", async () => {
      expect(records(await both("www.plain.test"))).toEqual(["www.plain.test A 192.0.2.1"]);
    });

    test("a glueless delegation: the name server's address is looked up first", async () => {
      expect(records(await both("www.gl.test"))).toEqual(["www.gl.test A 192.0.2.4"]);
    });

    test("a CNAME chain over three zones", async () => {
      expect(records(await both("a.one.test"))).toEqual([
        "a.one.test CNAME b.two.test",
        "b.two.test CNAME c.three.test",
        "c.three.test A 192.0.2.3",
      ]);
    });

    test("a glueless delegation whose name server has an IPv6 address alone: its AAAA is looked up", async () => {
      expect(records(await both("www.v6.test"))).toEqual(["www.v6.test A 192.0.2.6"]);
    });

    test("a DNAME (RFC 6672): the answer carries it, the CNAME it makes, and the target's address", async () => {
      expect(records(await both("c.dn.plain.test"))).toEqual([
        "c.dn.plain.test CNAME c.three.test",
        "c.three.test A 192.0.2.3",
        "dn.plain.test DNAME three.test",
      ]);
    });

    test("a DNAME sent without its CNAME, or with a CNAME that disagrees: the CNAME is made from the DNAME", async () => {
      for (const zone of ["old", "forged"])
        expect(records(await both(`c.${zone}.syn.test`))).toEqual([
          `c.${zone}.syn.test CNAME c.three.test`,
          "c.three.test A 192.0.2.3",
          `${zone}.syn.test DNAME three.test`,
        ]);
    });

    test("a lame delegation: the server that refuses and the silent one are passed over", async () => {
      expect(records(await both("www.lame.test"))).toEqual(["www.lame.test A 192.0.2.5"]);
    });

    test("NXDOMAIN, with the zone's SOA for the negative TTL", async () => {
      const r = await both("nx.plain.test");
      expect(r.rcode).toBe("NXDOMAIN");
      expect((r.msg.authorities ?? []).map((a) => `${a.name} ${a.type}`)).toEqual(["plain.test SOA"]);
    });

    test("an answer too large for 1232 bytes: truncated over UDP, asked again over TCP", async () => {
      const r = await both("big.plain.test", "TXT", true);
      const data = (r.answers[0] as { data: Buffer[] }).data;
      expect(data.length).toBe(12);
      expect(data.map((s) => s.toString().length)).toEqual(Array(12).fill(200));
    });

    test("records a zone's server gives about another zone are never used nor returned", async () => {
      expect(records(await both("www.inject.test"))).toEqual(["www.inject.test A 192.0.2.66"]);
      const evil = await both("evil.plain.test");
      expect(evil.rcode).toBe("NXDOMAIN");
      // the "glue" for ns.plain.test was not taken: plain.test still answers through 127.0.3.1
      expect(records(await both("www.plain.test", "A"))).toEqual(["www.plain.test A 192.0.2.1"]);
    });

    test("an NXNS-style referral (20 glueless names in the victim's zone) costs the victim a few queries", async () => {
      victimQueries = 0;
      const m = await ask(moat.dnsPort, "www.attack.nxns.test", { timeoutMs: 8000 });
      const byMoat = victimQueries;
      victimQueries = 0;
      const u = await ask(unboundPort, "www.attack.nxns.test", { timeoutMs: 8000 });
      const byUnbound = victimQueries;
      expect(m.rcode).toBe(u.rcode);
      expect(m.rcode).toBe("SERVFAIL");
      expect(byMoat).toBeGreaterThan(0);
      expect(byMoat).toBeLessThanOrEqual(GLUELESS_PER_ZONE);
      expect(byMoat).toBeLessThanOrEqual(2 * Math.max(byUnbound, 1));
    });

    // unbound 1.17 answers the referral loop NOERROR without records (the referral it could not follow);
    // the name has no answer, so Moat says SERVFAIL and why, as it does for the other loops
    for (const [name, why, unbound] of [
      ["a.cl1.test", "CNAME loop at a.cl1.test", "SERVFAIL"],
      ["www.rl.test", "referral loop at rl.test", "NOERROR"],
      ["www.cyc1.test", "cyclic NS dependency at ns.cyc2.test", "SERVFAIL"],
    ] as const)
      test(`${why}: SERVFAIL with an Extended DNS Error that says so, within 5 s`, async () => {
        const t0 = performance.now();
        const r = await ask(moat.dnsPort, name, { timeoutMs: 8000 });
        expect(performance.now() - t0).toBeLessThan(5000);
        expect(r.rcode).toBe("SERVFAIL");
        expect(r.ede).toEqual({ code: 0, text: why });
        expect((await ask(unboundPort, name, { timeoutMs: 8000 })).rcode).toBe(unbound);
      });

    test("/metrics counts the resolutions, the queries they sent and the resolutions that began at a cached cut", async () => {
      const scrape = async () => {
        const text = await (await moat.api("/metrics", { headers: { authorization: "Bearer t0ken" } })).text();
        const v = (name: string) => Number(new RegExp(`^moat_recursive_${name}_total (\\d+)$`, "m").exec(text)?.[1]);
        return { resolutions: v("resolutions"), sent: v("queries_sent"), hits: v("delegation_hits") };
      };
      const before = await scrape();
      await ask(moat.dnsPort, "n2.wild.plain.test", { timeoutMs: 8000 }); // plain.test's cut is known: one query
      const after = await scrape();
      expect(after.resolutions - before.resolutions).toBe(1);
      expect(after.sent - before.sent).toBeGreaterThanOrEqual(1);
      expect(after.sent - before.sent).toBeLessThanOrEqual(2);
      expect(after.hits - before.hits).toBe(1);
      // wild.plain.test is known now to exist inside plain.test: a sibling costs the full name's query alone
      await ask(moat.dnsPort, "n3.wild.plain.test", { timeoutMs: 8000 });
      expect((await scrape()).sent - after.sent).toBe(1);
    });

    // last two: they stop the root's first server, then the TLD's
    test("a warm resolution starts at the zone cut it learnt: a new name resolves with the root gone", async () => {
      await both("www.plain.test");
      const root = procs[0]!;
      root.kill();
      await root.exited;
      expect(records(await ask(moat.dnsPort, "n1.wild.plain.test", { timeoutMs: 8000 }))).toEqual([
        "n1.wild.plain.test A 192.0.2.9",
      ]);
      // root.hints names 127.0.1.1 alone; the root's own NS set (RFC 8109 priming) names 127.0.1.2 too
      expect((await both("www.nowhere")).rcode).toBe("NXDOMAIN");
    });

    test("serve-stale for delegations (RFC 8767): an expired cut's servers answer while its parent's are silent", async () => {
      expect(records(await ask(moat.dnsPort, "n1.short.test", { timeoutMs: 8000 }))).toEqual([
        "n1.short.test A 192.0.2.7",
      ]);
      await Bun.sleep(1500); // short.test's NS TTL is 1 s: its cut has expired
      const tld = procs[2]!;
      tld.kill();
      await tld.exited;
      expect(records(await ask(moat.dnsPort, "n2.short.test", { timeoutMs: 8000 }))).toEqual([
        "n2.short.test A 192.0.2.7",
      ]);
    });
  });

  // dnssec-hierarchy.sh's signed zones, all on one nsd, behind a proxy of the test's own on 127.0.0.1:53
  // (UDP) that notes each question it passes on: validation in recursive mode, its DNSKEY and DS queries
  // resolved from the root too (no upstream is set)
  describe("dns.recursive with dns.dnssec", () => {
    let dir: string;
    let moat: MoatProcess;
    let nsd: Subprocess | undefined;
    let proxy: udp.Socket<"uint8array"> | undefined;
    const toNsd = new Set<udp.ConnectedSocket<"uint8array">>();
    /** the questions that reached the authorities, "name type" in lowercase */
    const asked: string[] = [];
    const NSD_PORT = 5399;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "moat-recursive-dnssec-"));
      writeFileSync(join(dir, "trap.keys"), "");
      writeFileSync(join(dir, "trap.sigs"), "");
      const anchor = buildHierarchy(dir, NSD_PORT);
      writeFileSync(join(dir, "root.hints"), ". NS a.root.\na.root. A 127.0.0.1\n");
      proxy = await Bun.udpSocket({
        hostname: "127.0.0.1",
        port: 53,
        binaryType: "uint8array",
        socket: {
          async data(s, buf, port, addr) {
            try {
              const q = packet.decode(Buffer.from(buf)).questions![0]!;
              asked.push(`${q.name.toLowerCase()} ${q.type}`);
            } catch {
              asked.push("(unreadable)");
            }
            const up: udp.ConnectedSocket<"uint8array"> = await Bun.udpSocket({
              binaryType: "uint8array",
              connect: { hostname: "127.0.0.1", port: NSD_PORT },
              socket: {
                data(_u, answer) {
                  try {
                    s.send(answer, port, addr);
                  } catch {
                    // the asker gave up (the poll for nsd's start below) and its port is closed
                  }
                  toNsd.delete(up);
                  up.close();
                },
                error() {}, // nsd not listening yet: the poll below asks again
              },
            });
            toNsd.add(up);
            up.send(buf);
          },
          error() {},
        },
      });
      nsd = Bun.spawn(["nsd", "-d", "-c", join(dir, "nsd.conf")], { stdout: "ignore", stderr: "ignore" });
      await until(
        async () => (await sendUdp(53, encodeQuery(".", { type: "SOA" }), "127.0.0.1", 500)) !== null,
        10_000,
        "nsd",
      );
      moat = await startMoat({
        env: {
          FTLCONF_dns_recursive_active: "true",
          FTLCONF_dns_recursive_rootHints: join(dir, "root.hints"),
          FTLCONF_dns_upstreams: "",
          FTLCONF_dns_dnssec: "true",
          FTLCONF_dns_trustAnchors: anchor,
          FTLCONF_webserver_api_metricsToken: "t0ken",
        },
      });
    }, 60_000);

    afterAll(async () => {
      await moat?.dispose();
      proxy?.close();
      for (const u of toNsd) u.close();
      nsd?.kill();
      await nsd?.exited;
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    for (const [name, type, rcode, ad] of [
      ["www.secure.test", "A", "NOERROR", true],
      ["alias.secure.test", "A", "NOERROR", true],
      ["nx.secure.test", "A", "NXDOMAIN", true],
      ["www.nsec3.test", "A", "NOERROR", true],
      ["secure.test", "DS", "NOERROR", true],
      ["www.insecure.test", "A", "NOERROR", false],
      ["www.expired.test", "A", "SERVFAIL", false],
      ["www.badds.test", "A", "SERVFAIL", false],
    ] as const)
      test(`${name} ${type}: ${rcode}${ad ? " with AD" : ""}`, async () => {
        const r = await ask(moat.dnsPort, name, { type, dnssecOk: true, timeoutMs: 8000 });
        expect(`${r.rcode} ${((r.msg.flags ?? 0) & 0x20) !== 0}`).toBe(`${rcode} ${ad}`);
      });

    const counter = async (name: string) => {
      const text = await (await moat.api("/metrics", { headers: { authorization: "Bearer t0ken" } })).text();
      return Number(new RegExp(`^moat_recursive_${name}_total (\\d+)$`, "m").exec(text)?.[1]);
    };

    test("a client query's DNSKEY and DS fetches draw on its own budget: one resolution, not one per key", async () => {
      const resolutions = () => counter("resolutions");
      const before = await resolutions();
      // p384.test's DS and DNSKEY are not known yet: the validation fetches both
      const r = await ask(moat.dnsPort, "www.p384.test", { dnssecOk: true, timeoutMs: 8000 });
      expect(`${r.rcode} ${((r.msg.flags ?? 0) & 0x20) !== 0}`).toBe("NOERROR true");
      expect((await resolutions()) - before).toBe(1);
    });

    test("RFC 8198: a name inside the range a validated NSEC denied is answered from it, no query sent", async () => {
      // nx.secure.test's NXDOMAIN carries NSEC ns.secure.test → txt.secure.test and the apex's NSEC (no wildcard)
      expect((await ask(moat.dnsPort, "nx.secure.test", { dnssecOk: true, timeoutMs: 8000 })).rcode).toBe("NXDOMAIN");
      const sent = await counter("queries_sent");
      const r = await ask(moat.dnsPort, "nz.secure.test", { dnssecOk: true, timeoutMs: 8000 });
      expect(`${r.rcode} ${((r.msg.flags ?? 0) & 0x20) !== 0}`).toBe("NXDOMAIN true");
      const nsec = (r.msg.authorities ?? []).filter((a) => a.type === "NSEC").map((a) => a.name);
      expect(nsec.sort()).toEqual(["ns.secure.test", "secure.test"]);
      // the NSEC's owner exists: asked for a type it lacks, NODATA from the same proof
      const nodata = await ask(moat.dnsPort, "ns.secure.test", { type: "TXT", dnssecOk: true, timeoutMs: 8000 });
      expect(`${nodata.rcode} ${nodata.answers.length} ${((nodata.msg.flags ?? 0) & 0x20) !== 0}`).toBe(
        "NOERROR 0 true",
      );
      expect(await counter("queries_sent")).toBe(sent);
    });

    test("RFC 8198 with NSEC3: a name whose hash falls in a range a validated NSEC3 covered is NXDOMAIN with AD, no query sent", async () => {
      const first = await ask(moat.dnsPort, "nx.nsec3.test", { dnssecOk: true, timeoutMs: 8000 });
      expect(`${first.rcode} ${((first.msg.flags ?? 0) & 0x20) !== 0}`).toBe("NXDOMAIN true");
      // the NSEC3 of the proof that covers nx.nsec3.test's hash (the next closer name: the closest
      // encloser is the apex), and another name whose hash falls in the same range
      const ranges = (first.msg.authorities ?? [])
        .filter((a) => a.type === "NSEC3")
        .map((a) => [a.name.split(".")[0]!.toLowerCase(), base32hex((a.data as { nextDomain: Buffer }).nextDomain)]);
      const covers = ([from, to]: string[], h: string) => (from! < to! ? from! < h && h < to! : h > from! || h < to!);
      const range = ranges.find((r) => covers(r, nsec3Hash("nx.nsec3.test")));
      expect(range).toBeDefined();
      const other = Array.from({ length: 200 }, (_, i) => `n${i}.nsec3.test`).find((n) =>
        covers(range!, nsec3Hash(n)),
      )!;
      const before = asked.length;
      const r = await ask(moat.dnsPort, other, { dnssecOk: true, timeoutMs: 8000 });
      expect(`${r.rcode} ${((r.msg.flags ?? 0) & 0x20) !== 0}`).toBe("NXDOMAIN true");
      const owners = (a: Reply) =>
        (a.msg.authorities ?? [])
          .filter((x) => x.type === "NSEC3")
          .map((x) => x.name.toLowerCase())
          .sort();
      expect(owners(r).length).toBeGreaterThan(0);
      for (const o of owners(r)) expect(owners(first)).toContain(o);
      expect(asked.slice(before)).toEqual([]); // nothing reached the authorities
    });
  });
}
