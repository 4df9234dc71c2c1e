// AdGuard Home's rule syntax against the real server: a block list in AdGuard's format served over loopback
// HTTP with every form and modifier Moat supports, applied by a gravity run and checked through real DNS (dig)
// as AdGuard Home documents each one (https://adguard-dns.io/kb/general/dns-filtering-syntax/); the rules with
// a modifier Moat does not apply are counted and named per list; the custom rules (AdGuard's "Custom filtering
// rules") through /api/rules/custom.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call } from "../lists/helpers.ts";
import { runDig } from "../dns/helpers.ts";
import { FWD, digA, digAnswers, t, useFamily } from "./family.ts";

const LIST = `! Title: AdGuard-format test list
# a comment
||ads.rules.test^
@@||ok.ads.rules.test^
0.0.0.0 hosts.rules.test
plain.rules.test
/^re[0-9]+\\.rules\\.test$/
||imp.rules.test^$important
@@||imp.rules.test^
||impallow.rules.test^$important
@@||impallow.rules.test^$important
||bad.rules.test^
||bad.rules.test^$badfilter
||badmod.rules.test^$dnstype=A
||badmod.rules.test^$dnstype=A,badfilter
||kids.rules.test^$client=127.0.0.2
||notkids.rules.test^$client=~127.0.0.2
||grp.rules.test^$client='teens'
||aaaa.rules.test^$dnstype=AAAA
||chained.rules.test^$dnstype=A
||deny.rules.test^$denyallow=keep.deny.rules.test
||rw4.rules.test^$dnsrewrite=10.1.2.3
||rw6.rules.test^$dnsrewrite=NOERROR;AAAA;2001:db8::7
||rwc.rules.test^$dnsrewrite=NOERROR;CNAME;target.rules.test
||nx.rules.test^$dnsrewrite=NXDOMAIN;;
||ref.rules.test^$dnsrewrite=REFUSED
||rwoff.rules.test^$dnsrewrite=10.9.9.9
@@||rwoff.rules.test^$dnsrewrite
||multi.rules.test^$dnsrewrite=10.1.2.4
||multi.rules.test^$dnsrewrite=10.1.2.5
||multi.rules.test^$dnsrewrite=10.1.2.6
@@||multi.rules.test^$dnsrewrite=10.1.2.6
||multi.rules.test^$dnsrewrite=NOERROR;AAAA;2001:db8::8
||multi.rules.test^$dnsrewrite=NOERROR;AAAA;2001:db8::9
||css.rules.test^$third-party
||tag.rules.test^$ctag=device_phone
example.org##.banner
`;

let lists: ReturnType<typeof Bun.serve>;
useFamily();

/** dig's status (NOERROR, NXDOMAIN, REFUSED, …) for a name and type, asked from `from` */
async function status(name: string, type = "A", from = "127.0.0.1"): Promise<string> {
  const out = await runDig(["@127.0.0.1", "-p", String(t.moat.dnsPort), "-b", from, "+tries=1", "+time=3", name, type]);
  return /status: (\w+)/.exec(out)?.[1] ?? out;
}

beforeAll(async () => {
  lists = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(LIST) });
  const groups = (await call(t.moat, "GET", "/api/groups")).json.groups.map((g: { id: number }) => g.id);
  const l = await call(t.moat, "POST", "/api/lists?type=block", {
    address: `http://127.0.0.1:${lists.port}/adguard.txt`,
    groups,
  });
  expect(l.status).toBe(201);
  const g = await t.moat.api("/api/action/gravity", { method: "POST" });
  expect(g.status).toBe(200);
  await g.text();
});

afterAll(() => {
  lists?.stop(true);
});

describe("an AdGuard-format block list", () => {
  test("names, hosts lines, exceptions and regexes decide as AdGuard Home documents", async () => {
    expect((await digA("ads.rules.test", "127.0.0.1")).addr).toBe("0.0.0.0");
    expect((await digA("deep.ads.rules.test", "127.0.0.1")).addr).toBe("0.0.0.0");
    // @@ beats the block of the parent
    expect((await digA("ok.ads.rules.test", "127.0.0.1")).addr).toBe(FWD);
    expect((await digA("x.ok.ads.rules.test", "127.0.0.1")).addr).toBe(FWD);
    // a hosts line and a bare name block that name only
    expect((await digA("hosts.rules.test", "127.0.0.1")).addr).toBe("0.0.0.0");
    expect((await digA("sub.hosts.rules.test", "127.0.0.1")).addr).toBe(FWD);
    expect((await digA("plain.rules.test", "127.0.0.1")).addr).toBe("0.0.0.0");
    expect((await digA("re42.rules.test", "127.0.0.1")).addr).toBe("0.0.0.0");
    expect((await digA("rex.rules.test", "127.0.0.1")).addr).toBe(FWD);
  });

  test("$important beats an exception, @@…$important beats $important, $badfilter disables its rule", async () => {
    expect((await digA("imp.rules.test", "127.0.0.1")).addr).toBe("0.0.0.0");
    expect((await digA("impallow.rules.test", "127.0.0.1")).addr).toBe(FWD);
    expect((await digA("bad.rules.test", "127.0.0.1")).addr).toBe(FWD);
    expect((await digA("badmod.rules.test", "127.0.0.1")).addr).toBe(FWD);
  });

  test("$client (address, excluded address, a group's name), $dnstype and $denyallow", async () => {
    expect((await digA("kids.rules.test", "127.0.0.2")).addr).toBe("0.0.0.0");
    expect((await digA("kids.rules.test", "127.0.0.3")).addr).toBe(FWD);
    expect((await digA("notkids.rules.test", "127.0.0.2")).addr).toBe(FWD);
    expect((await digA("notkids.rules.test", "127.0.0.3")).addr).toBe("0.0.0.0");
    expect((await digA("grp.rules.test", "127.0.0.3")).addr).toBe("0.0.0.0");
    expect((await digA("grp.rules.test", "127.0.0.2")).addr).toBe(FWD);
    expect((await digA("aaaa.rules.test", "127.0.0.1")).addr).toBe(FWD);
    expect(await digAnswers("aaaa.rules.test", "127.0.0.1", "AAAA")).toEqual([["aaaa.rules.test.", "AAAA", "::"]]);
    expect((await digA("x.deny.rules.test", "127.0.0.1")).addr).toBe("0.0.0.0");
    expect((await digA("keep.deny.rules.test", "127.0.0.1")).addr).toBe(FWD);
    expect((await digA("a.keep.deny.rules.test", "127.0.0.1")).addr).toBe(FWD);
    // a name of the answer's CNAME chain is judged by the rules too
    expect((await digA("cname-chained.rules.test", "127.0.0.1")).addr).toBe("0.0.0.0");
  });

  test("$dnsrewrite answers A, AAAA, CNAME, NXDOMAIN and REFUSED; @@…$dnsrewrite turns it off", async () => {
    expect(await digAnswers("rw4.rules.test", "127.0.0.1")).toEqual([["rw4.rules.test.", "A", "10.1.2.3"]]);
    expect(await digAnswers("rw4.rules.test", "127.0.0.1", "AAAA")).toEqual([]);
    expect(await status("rw4.rules.test", "AAAA")).toBe("NOERROR");
    expect(await digAnswers("rw6.rules.test", "127.0.0.1", "AAAA")).toEqual([
      ["rw6.rules.test.", "AAAA", "2001:db8::7"],
    ]);
    expect(await digAnswers("www.rwc.rules.test", "127.0.0.1")).toEqual([
      ["www.rwc.rules.test.", "CNAME", "target.rules.test."],
      ["target.rules.test.", "A", FWD],
    ]);
    expect(await status("nx.rules.test")).toBe("NXDOMAIN");
    expect(await status("ref.rules.test")).toBe("REFUSED");
    expect((await digA("rwoff.rules.test", "127.0.0.1")).addr).toBe(FWD);
    // several address rewrites of one name all answer, as in AdGuard Home (less the one an exception turns off)
    expect((await digAnswers("multi.rules.test", "127.0.0.1")).sort()).toEqual([
      ["multi.rules.test.", "A", "10.1.2.4"],
      ["multi.rules.test.", "A", "10.1.2.5"],
    ]);
    expect((await digAnswers("multi.rules.test", "127.0.0.1", "AAAA")).sort()).toEqual([
      ["multi.rules.test.", "AAAA", "2001:db8::8"],
      ["multi.rules.test.", "AAAA", "2001:db8::9"],
    ]);
  });

  test("Moat's allow entries still win over an ordinary rule", async () => {
    expect((await digA("y.deny.rules.test", "127.0.0.1")).addr).toBe("0.0.0.0");
    await call(t.moat, "POST", "/api/domains/allow/exact", { domain: "y.deny.rules.test", groups: [0] });
    expect((await digA("y.deny.rules.test", "127.0.0.1")).addr).toBe(FWD);
    expect((await digA("z.deny.rules.test", "127.0.0.1")).addr).toBe("0.0.0.0");
  });

  test("rules with a modifier Moat does not apply are counted and named per list, not applied", async () => {
    expect((await digA("css.rules.test", "127.0.0.1")).addr).toBe(FWD);
    expect((await digA("tag.rules.test", "127.0.0.1")).addr).toBe(FWD);
    const r = await call(t.moat, "GET", "/api/rules/lists");
    expect(r.status).toBe(200);
    expect(r.json.lists).toHaveLength(1);
    const l = r.json.lists[0];
    expect(l.address).toBe(`http://127.0.0.1:${lists.port}/adguard.txt`);
    expect(l.unsupported).toBe(2);
    expect(l.examples).toEqual([
      { rule: "||css.rules.test^$third-party", why: "the modifier $third-party is not supported" },
      { rule: "||tag.rules.test^$ctag=device_phone", why: "the modifier $ctag is not supported" },
    ]);
    expect(l.rules).toBeGreaterThanOrEqual(20);
  });
});

describe("the custom rules", () => {
  test("are stored, applied at once to every client and report what they cannot apply", async () => {
    expect((await call(t.moat, "GET", "/api/rules/custom")).json.rules).toEqual({
      text: "",
      updated: 0,
      applied: 0,
      unsupported: [],
    });
    const text = [
      "! my rules",
      "||custom.rules.test^",
      "@@||ads.rules.test^",
      "192.0.2.99 hostsrw.rules.test",
      "||later.rules.test^$removeparam=x",
    ].join("\n");
    const r = await call(t.moat, "PUT", "/api/rules/custom", { text });
    expect(r.status).toBe(200);
    expect(r.json.rules.applied).toBe(3);
    expect(r.json.rules.unsupported).toEqual([
      { rule: "||later.rules.test^$removeparam=x", why: "the modifier $removeparam is not supported" },
    ]);
    expect((await call(t.moat, "GET", "/api/rules/custom")).json.rules.text).toBe(text);
    expect((await digA("www.custom.rules.test", "127.0.0.2")).addr).toBe("0.0.0.0");
    // the custom exception lifts the list's block
    expect((await digA("ads.rules.test", "127.0.0.1")).addr).toBe(FWD);
    expect(await digAnswers("hostsrw.rules.test", "127.0.0.3")).toEqual([["hostsrw.rules.test.", "A", "192.0.2.99"]]);
  });

  test("several hosts lines for one name answer every address, as local records (dns.hosts) do", async () => {
    const text = ["192.0.2.91 two.rules.test", "192.0.2.92 two.rules.test", "2001:db8::91 two.rules.test"].join("\n");
    expect((await call(t.moat, "PUT", "/api/rules/custom", { text })).status).toBe(200);
    expect((await digAnswers("two.rules.test", "127.0.0.1")).sort()).toEqual([
      ["two.rules.test.", "A", "192.0.2.91"],
      ["two.rules.test.", "A", "192.0.2.92"],
    ]);
    expect(await digAnswers("two.rules.test", "127.0.0.1", "AAAA")).toEqual([
      ["two.rules.test.", "AAAA", "2001:db8::91"],
    ]);
    // AdGuard Home's rewrites become such lines of dns.hosts (moat migrate), which answer every address as
    // dnsmasq's hosts files do for Pi-hole
    const hosts = ["192.0.2.93 two.local.test", "192.0.2.94 two.local.test"];
    expect((await call(t.moat, "PATCH", "/api/config", { config: { dns: { hosts } } })).status).toBe(200);
    expect((await digAnswers("two.local.test", "127.0.0.1")).sort()).toEqual([
      ["two.local.test.", "A", "192.0.2.93"],
      ["two.local.test.", "A", "192.0.2.94"],
    ]);
  });

  test("a body that is not a text is refused in the API's envelope", async () => {
    const r = await call(t.moat, "PUT", "/api/rules/custom", { text: 5 });
    expect(r.status).toBe(400);
    expect(r.json.error.key).toBe("bad_request");
  });
});
