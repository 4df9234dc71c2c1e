// DNSSEC validation against a private signed hierarchy (dnssec-hierarchy.sh: ldns-signzone zones served
// by nsd). Moat's upstream is unbound as a plain iterator (no validation); the reference is a second
// unbound that validates with the same trust anchor. For every name Moat's rcode and AD bit must equal
// the reference's, over UDP, TCP, DoT and DoH (kdig).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, startMoat } from "../harness/moat.ts";
import { call } from "../lists/helpers.ts";
import { run, startTlsMoat, type TlsMoat } from "../tls/helpers.ts";
import { launch, openPage } from "../web/browser.ts";
import { buildHierarchy, unboundConf, writeTrap } from "./dnssec-hierarchy.ts";
import { decodeReply, encodeQuery, sendTcp, sendUdp, until, type Reply } from "./helpers.ts";

const AD = 0x20;
const CD = 0x10;

let dir: string;
let t: TlsMoat;
const procs: Subprocess[] = [];
let nsdPort: number;
let plainPort: number;
let refPort: number;
/** the private root's DS line, Moat's trust anchor */
let refAnchor: string;

function spawn(cmd: string[]): void {
  procs.push(Bun.spawn(cmd, { cwd: dir, stdout: "ignore", stderr: "ignore" }));
}

interface Q {
  type?: string;
  dnssecOk?: boolean;
  ad?: boolean;
  cd?: boolean;
  tcp?: boolean;
}

async function query(port: number, name: string, o: Q = {}): Promise<Reply> {
  const q = encodeQuery(name, { type: o.type ?? "A", dnssecOk: o.dnssecOk ?? true });
  q[3] = q[3]! | (o.ad ? AD : 0) | (o.cd ? CD : 0);
  // a validating resolver retries a bogus name at other servers before it gives up: allow it time
  const raw = o.tcp ? ((await sendTcp(port, [q]))[0] ?? null) : await sendUdp(port, q, "127.0.0.1", 15000);
  if (!raw) throw new Error(`no answer for ${name} from port ${port}`);
  return decodeReply(raw);
}

const adOf = (r: Reply) => ((r.msg.flags ?? 0) & AD) !== 0;
/** The answer's records as comparable text: name, type and data, RRSIGs included, in a stable order. */
const recordsOf = (r: Reply) =>
  r.answers.map((a) => `${a.name.toLowerCase()} ${a.type} ${JSON.stringify((a as { data?: unknown }).data)}`).sort();

/** rcode and AD of kdig's answer over DoT or DoH (Moat's own CA, the certificate's name pi.hole). */
async function viaKdig(how: "DoT" | "DoH", name: string, type: string): Promise<[string, boolean]> {
  const transport =
    how === "DoT" ? ["-p", String(t.dotPort), "+tls"] : ["-p", String(t.httpsPort), "+https=/dns-query"];
  const r = await run([
    "kdig",
    "@127.0.0.1",
    ...transport,
    `+tls-ca=${t.caFile}`,
    "+tls-hostname=pi.hole",
    "+dnssec",
    name,
    type,
  ]);
  const status = /opcode: QUERY; status: (\w+)/.exec(r.out)?.[1];
  const flags = /;; Flags: ([a-z ]+);/.exec(r.out)?.[1];
  if (!status || flags === undefined) throw new Error(`kdig ${how} ${name}: ${r.out}`);
  return [status, flags.split(" ").includes("ad")];
}

/** The reference's verdicts, asked once per name over UDP (the verdict does not depend on the transport). */
const refs = new Map<string, Promise<Reply>>();
function reference(name: string, type: string): Promise<Reply> {
  const k = `${name}/${type}`;
  if (!refs.has(k)) refs.set(k, query(refPort, name, { type }));
  return refs.get(k)!;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "moat-dnssec-"));
  [nsdPort, plainPort, refPort] = [await freePort(), await freePort(), await freePort()];
  writeTrap(dir, 32, 32);
  const anchor = buildHierarchy(dir, nsdPort);
  refAnchor = anchor;
  writeFileSync(join(dir, "plain.conf"), unboundConf(dir, nsdPort, plainPort, null));
  writeFileSync(join(dir, "ref.conf"), unboundConf(dir, nsdPort, refPort, anchor));
  spawn(["nsd", "-d", "-c", join(dir, "nsd.conf")]);
  spawn(["unbound", "-d", "-c", join(dir, "plain.conf")]);
  spawn(["unbound", "-d", "-c", join(dir, "ref.conf")]);
  for (const port of [nsdPort, plainPort, refPort])
    await until(
      async () => (await sendUdp(port, encodeQuery(".", { type: "SOA" }), "127.0.0.1", 500)) !== null,
      10000,
      `DNS on ${port}`,
    );
  t = await startTlsMoat({
    FTLCONF_dns_upstreams: `127.0.0.1#${plainPort}`,
    FTLCONF_dns_dnssec: "true",
    FTLCONF_dns_trustAnchors: anchor,
  });
}, 60000);

afterAll(async () => {
  await t?.moat.dispose();
  for (const p of procs) p.kill();
  await Promise.all(procs.map((p) => p.exited));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** name, type, and the verdict the hierarchy was built to give */
const CASES: [string, string, "secure" | "insecure" | "bogus"][] = [
  ["www.secure.test", "A", "secure"],
  ["nx.secure.test", "A", "secure"], // NXDOMAIN, NSEC
  ["www.secure.test", "TXT", "secure"], // NODATA, NSEC
  ["x.wild.secure.test", "A", "secure"], // wildcard expansion
  ["alias.secure.test", "A", "secure"], // CNAME
  ["secure.test", "DNSKEY", "secure"],
  ["secure.test", "DS", "secure"],
  ["www.nsec3.test", "A", "secure"],
  ["nx.nsec3.test", "A", "secure"], // NXDOMAIN, NSEC3
  ["www.nsec3.test", "TXT", "secure"], // NODATA, NSEC3
  ["www.p384.test", "A", "secure"],
  ["nx.p384.test", "A", "insecure"], // NSEC3 opt-out proves nothing
  ["www.sub.p384.test", "A", "insecure"], // an unsigned delegation in an opt-out span (as under .com)
  ["www.insecure.test", "A", "insecure"],
  ["nx.insecure.test", "A", "insecure"],
  ["insecure.test", "DS", "secure"], // the root's NSEC proves there is none
  ["www.expired.test", "A", "bogus"],
  ["www.badds.test", "A", "bogus"],
  ["www.nosig.test", "A", "bogus"],
  ["other.nosig.test", "A", "secure"],
  ["x.wild.nsec3.test", "A", "secure"], // wildcard expansion, NSEC3
  ["nx.badnsec.test", "A", "bogus"], // NXDOMAIN without NSEC
  ["www.badnsec.test", "TXT", "bogus"], // NODATA without NSEC
  ["www.trap.test", "A", "bogus"], // KeyTrap
  ["www.notyet.test", "A", "bogus"],
  ["www.unknownalg.test", "A", "insecure"], // only a DS of an algorithm no one implements
];

describe("DNSSEC: Moat's verdict equals validating unbound's", () => {
  for (const how of ["UDP", "TCP", "DoT", "DoH"] as const)
    for (const [name, type, verdict] of CASES)
      test(`${name} ${type} over ${how}: ${verdict}`, async () => {
        const ref = await reference(name, type);
        // the reference agrees with what the hierarchy was built to give
        if (verdict === "bogus") expect(ref.rcode).toBe("SERVFAIL");
        else expect([ref.rcode === "SERVFAIL", adOf(ref)]).toEqual([false, verdict === "secure"]);
        if (how === "UDP" || how === "TCP") {
          const got = await query(t.moat.dnsPort, name, { type, tcp: how === "TCP" });
          expect([got.rcode, adOf(got)]).toEqual([ref.rcode, adOf(ref)]);
          expect(recordsOf(got)).toEqual(recordsOf(ref));
        } else expect(await viaKdig(how, name, type)).toEqual([ref.rcode, adOf(ref)]);
      }, 30000);
});

describe("DNSSEC: what clients see", () => {
  test("bogus answers carry the Extended DNS Error that says why", async () => {
    expect((await query(t.moat.dnsPort, "www.expired.test")).ede?.code).toBe(7);
    expect((await query(t.moat.dnsPort, "www.badds.test")).ede?.code).toBe(9);
    expect((await query(t.moat.dnsPort, "www.nosig.test")).ede?.code).toBe(10);
    expect((await query(t.moat.dnsPort, "www.notyet.test")).ede?.code).toBe(8);
    expect((await query(t.moat.dnsPort, "nx.badnsec.test")).ede?.code).toBe(12);
  });

  test("CD gets the unvalidated answer, as from the reference", async () => {
    const got = await query(t.moat.dnsPort, "www.expired.test", { cd: true });
    const ref = await query(refPort, "www.expired.test", { cd: true });
    expect(got.rcode).toBe("NOERROR");
    expect([got.rcode, adOf(got)]).toEqual([ref.rcode, adOf(ref)]);
  });

  test("without DO: no RRSIGs, AD only when the query set AD (RFC 6840 §5.7)", async () => {
    const plain = await query(t.moat.dnsPort, "www.secure.test", { dnssecOk: false });
    expect(plain.rcode).toBe("NOERROR");
    expect(plain.answers.map((a) => a.type)).toEqual(["A"]);
    expect(adOf(plain)).toBe(false);
    const withAd = await query(t.moat.dnsPort, "www.secure.test", { dnssecOk: false, ad: true });
    expect(withAd.answers.map((a) => a.type)).toEqual(["A"]);
    expect(adOf(withAd)).toBe(true);
    const signed = await query(t.moat.dnsPort, "www.secure.test");
    expect(signed.answers.map((a) => a.type).sort()).toEqual(["A", "RRSIG"]);
    const neg = await query(t.moat.dnsPort, "nx.secure.test", { dnssecOk: false });
    expect(neg.rcode).toBe("NXDOMAIN");
    expect((neg.msg.authorities ?? []).map((a) => a.type)).toEqual(["SOA"]);
  });

  test("the query log holds each query's verdict; local answers are never validated", async () => {
    await query(t.moat.dnsPort, "pi.hole");
    const verdict = async (domain: string) => {
      const r = await call(t.moat, "GET", `/api/queries?domain=${domain}`);
      return (r.json.queries as { dnssec: string }[]).map((q) => q.dnssec);
    };
    await until(async () => (await verdict("pi.hole")).length > 0, 5000, "the query records");
    expect(await verdict("pi.hole")).toEqual(["UNKNOWN"]);
    expect(new Set(await verdict("www.secure.test"))).toEqual(new Set(["SECURE"]));
    expect(new Set(await verdict("www.insecure.test"))).toEqual(new Set(["INSECURE"]));
    // its queries with CD were passed on unvalidated
    expect(new Set(await verdict("www.expired.test"))).toEqual(new Set(["BOGUS", "UNKNOWN"]));
    // the filter the dashboard's DNSSEC choice sends
    const bogus = (await call(t.moat, "GET", "/api/queries?dnssec=BOGUS&length=1000")).json.queries as {
      domain: string;
      dnssec: string;
    }[];
    expect(bogus.length).toBeGreaterThan(0);
    expect(new Set(bogus.map((q) => q.dnssec))).toEqual(new Set(["BOGUS"]));
    expect(bogus.map((q) => q.domain)).toContain("www.badds.test");
  });

  test("KeyTrap: each query for the trap is SERVFAIL in bounded time, and other names keep being answered", async () => {
    const trap: number[] = [];
    const others: number[] = [];
    const timed = async (out: number[], name: string, o: Q) => {
      const t0 = performance.now();
      const r = await query(t.moat.dnsPort, name, o);
      out.push(performance.now() - t0);
      return r.rcode;
    };
    // bogus answers are not cached: every one of these is validated again
    const flood = Promise.all(Array.from({ length: 20 }, () => timed(trap, "www.trap.test", {})));
    const normal: string[] = [];
    for (let i = 0; i < 20; i++) normal.push(await timed(others, "www.secure.test", {}));
    expect(new Set(await flood)).toEqual(new Set(["SERVFAIL"]));
    expect(new Set(normal)).toEqual(new Set(["NOERROR"]));
    expect(Math.max(...trap)).toBeLessThan(3000);
    expect(Math.max(...others)).toBeLessThan(1000);
  }, 30000);
});

describe("DNSSEC in the dashboard", () => {
  test("the query log shows each verdict and filters on it", async () => {
    await query(t.moat.dnsPort, "www.badds.test");
    await query(t.moat.dnsPort, "www.secure.test");
    const browser = await launch();
    try {
      const w = await openPage(browser);
      await w.page.goto(`${t.moat.base}/admin/queries?dnssec=BOGUS`);
      // no password is set: the first-run setup comes first
      await w.page.click("button:text('Skip for now')");
      await w.page.goto(`${t.moat.base}/admin/queries?dnssec=BOGUS`);
      await w.page.waitForSelector("tr[data-domain='www.badds.test']");
      const badges = await w.page.locator("tbody tr .q-reply .badge").allTextContents();
      expect(badges.length).toBeGreaterThan(0);
      // the badge says the verdict in words (src/web/ui/pages/query-status.ts); the filter keeps the API's value
      expect(new Set(badges)).toEqual(new Set(["Bogus"]));
      expect(await w.page.inputValue("select[name=dnssec]")).toBe("BOGUS");
      await w.page.goto(`${t.moat.base}/admin/queries?dnssec=SECURE`);
      await w.page.waitForSelector("tr[data-domain='www.secure.test'] .badge.ok");
      expect(await w.page.locator("tr[data-domain='www.badds.test']").count()).toBe(0);
      expect(w.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 30000);
});

describe("DNSSEC with dns.threads = 2", () => {
  test("every UDP thread validates on its own and gives the reference's verdicts", async () => {
    const m = await startMoat({
      env: {
        FTLCONF_dns_upstreams: `127.0.0.1#${plainPort}`,
        FTLCONF_dns_dnssec: "true",
        FTLCONF_dns_trustAnchors: refAnchor,
        FTLCONF_dns_threads: "2",
      },
    });
    try {
      // each query leaves from a new source port, so the kernel spreads them over both threads' sockets
      for (let round = 0; round < 3; round++)
        for (const [name, type] of CASES) {
          const ref = await reference(name, type);
          const got = await query(m.dnsPort, name, { type });
          expect([name, type, got.rcode, adOf(got)]).toEqual([name, type, ref.rcode, adOf(ref)]);
        }
    } finally {
      await m.dispose();
    }
  }, 60000);
});
