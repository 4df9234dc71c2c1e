// Every step of the decision order (docs/pihole-differences.md), per-client groups, regex extensions, CNAME
// inspection, blocking modes with EDE, the blocking switch and a reload under load, against the real
// server with gravity data written straight into gravity.db.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress, gravityDb, runDig, until } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;
const FWD = "192.0.2.20";

function seed(dataDir: string): void {
  const db = gravityDb(dataDir);
  db.run(`INSERT INTO "group"(id, enabled, name) VALUES (1, 1, 'kids'), (2, 0, 'off')`);
  db.run(`INSERT INTO client(id, ip) VALUES (1, '127.0.0.2'), (2, '127.0.0.3'), (3, '127.0.1.0/24'), (4, '127.0.1.7')`);
  db.run(`DELETE FROM client_by_group`);
  db.run(`INSERT INTO client_by_group(client_id, group_id) VALUES (1, 0), (1, 1), (3, 1), (4, 0)`);
  db.run(
    `INSERT INTO adlist(id, address, enabled, type) VALUES (1, 'http://l/1', 1, 0), (2, 'http://l/2', 1, 1), (3, 'http://l/3', 0, 0), (4, 'http://l/4', 1, 0), (5, 'http://l/5', 1, 0)`,
  );
  db.run(`DELETE FROM adlist_by_group`);
  db.run(`INSERT INTO adlist_by_group(adlist_id, group_id) VALUES (1, 0), (2, 0), (3, 0), (4, 1), (5, 2)`);
  const grav = db.prepare("INSERT INTO gravity(domain, adlist_id) VALUES (?, ?)");
  for (const [d, l] of [
    ["ads.test", 1],
    ["||abp.test^", 1],
    ["off.test", 3],
    ["kids.test", 4],
    ["disabledgroup.test", 5],
    ["anti.test", 1],
    ["both-allow.test", 1],
    ["allowre.test", 1],
    ["tracker.test", 1],
    ["ads.test", 4],
    ["toggle.test", 1],
  ] as const)
    grav.run(d, l);
  const anti = db.prepare("INSERT INTO antigravity(domain, adlist_id) VALUES (?, ?)");
  for (const d of ["anti.test", "deny-and-anti.test", "@@||okabp.abp.test^"]) anti.run(d, 2);
  const dl = db.prepare("INSERT INTO domainlist(domain, type, enabled) VALUES (?, ?, ?)");
  for (const [d, t, e] of [
    ["both-allow.test", 0, 1],
    ["deny.test", 1, 1],
    ["deny-and-anti.test", 1, 1],
    ["disabled-deny.test", 1, 0],
    ["unlinked.test", 1, 1],
    ["^allowre\\.test$", 2, 1],
    ["^re[[:digit:]]+\\.test$", 3, 1],
    ["^typed\\.test$;querytype=AAAA", 3, 1],
    ["^reply\\.test$;reply=NXDOMAIN", 3, 1],
    ["^reply-ip\\.test$;reply=10.1.2.3", 3, 1],
    ["^notinv\\.test$;invert;querytype=TXT", 3, 1],
  ] as const)
    dl.run(d, t, e);
  db.run(
    `DELETE FROM domainlist_by_group WHERE domainlist_id = (SELECT id FROM domainlist WHERE domain = 'unlinked.test')`,
  );
  const mask = db.query<{ id: number }, []>("SELECT id FROM domainlist WHERE domain = 'mask.icloud.com'").get();
  if (!mask) {
    db.run(`INSERT INTO domainlist(domain, type, enabled) VALUES ('mask.icloud.com', 0, 1)`);
    db.run(
      `DELETE FROM domainlist_by_group WHERE domainlist_id = (SELECT id FROM domainlist WHERE domain = 'mask.icloud.com')`,
    );
    db.run(
      `INSERT INTO domainlist_by_group(domainlist_id, group_id) SELECT id, 1 FROM domainlist WHERE domain = 'mask.icloud.com'`,
    );
  }
  db.close();
}

async function reload(): Promise<void> {
  const r = await moat.api("/api/action/restartdns", { method: "POST" });
  expect(r.status).toBe(200);
}

async function setConfig(config: unknown): Promise<void> {
  const r = await moat.api("/api/config", { method: "PATCH", body: JSON.stringify({ config }) });
  expect(r.status).toBe(200);
}

const blocked = async (name: string, from = "127.0.0.1", type = "A") => {
  const r = await ask(moat.dnsPort, name, { from, type });
  return (
    firstAddress(r) === (type === "AAAA" ? "::" : "0.0.0.0") ||
    r.rcode === "NXDOMAIN" ||
    (r.answers.length === 0 && r.rcode === "NOERROR")
  );
};

beforeAll(async () => {
  up = await startUpstream({ addr: FWD });
  moat = await startMoat({ env: { FTLCONF_dns_upstreams: up.address, FTLCONF_dns_rateLimit_count: "0" } });
  seed(moat.dataDir);
  await reload();
  await until(() => blocked("ads.test"), 10000, "first reload");
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

describe("decision order", () => {
  test("gravity blocks with 0.0.0.0, TTL 2 and EDE 15 (gravity)", async () => {
    const r = await ask(moat.dnsPort, "ads.test");
    expect(firstAddress(r)).toBe("0.0.0.0");
    expect((r.answers[0] as { ttl: number }).ttl).toBe(2);
    expect(r.ede).toEqual({ code: 15, text: "gravity" });
    const six = await ask(moat.dnsPort, "ads.test", { type: "AAAA" });
    expect(firstAddress(six)).toBe("::");
    const dig = await runDig(["@127.0.0.1", "-p", String(moat.dnsPort), "ads.test"]);
    expect(dig).toContain("EDE: 15 (Blocked)");
  });
  test("a name not on any list is forwarded", async () => {
    expect(firstAddress(await ask(moat.dnsPort, "fine.test"))).toBe(FWD);
    expect(firstAddress(await ask(moat.dnsPort, "sub.ads.test"))).toBe(FWD); // exact entries do not cover subdomains
  });
  test("ABP ||x^ blocks the whole subtree; @@||y^ allows its subtree", async () => {
    expect(await blocked("abp.test")).toBe(true);
    expect(await blocked("deep.sub.abp.test")).toBe(true);
    expect(firstAddress(await ask(moat.dnsPort, "x.okabp.abp.test"))).toBe(FWD);
  });
  test("disabled list, disabled group, disabled entry and an entry without groups block nobody", async () => {
    for (const n of ["off.test", "disabledgroup.test", "disabled-deny.test", "unlinked.test"])
      expect(firstAddress(await ask(moat.dnsPort, n))).toBe(FWD);
  });
  test("allow exact beats gravity; allow regex beats gravity", async () => {
    expect(firstAddress(await ask(moat.dnsPort, "both-allow.test"))).toBe(FWD);
    expect(firstAddress(await ask(moat.dnsPort, "allowre.test"))).toBe(FWD);
  });
  test("deny exact beats antigravity; antigravity beats gravity", async () => {
    const d = await ask(moat.dnsPort, "deny-and-anti.test");
    expect(firstAddress(d)).toBe("0.0.0.0");
    expect(d.ede?.text).toBe("denylist");
    expect(firstAddress(await ask(moat.dnsPort, "anti.test"))).toBe(FWD);
  });
  test("special domains: Mozilla canary and iCloud relay NXDOMAIN, resolver.arpa NODATA, unless allowed", async () => {
    expect((await ask(moat.dnsPort, "use-application-dns.net")).rcode).toBe("NXDOMAIN");
    expect((await ask(moat.dnsPort, "mask.icloud.com")).rcode).toBe("NXDOMAIN");
    const ra = await ask(moat.dnsPort, "_dns.resolver.arpa", { type: "SVCB" });
    expect(ra.rcode).toBe("NOERROR");
    expect(ra.answers.length).toBe(0);
    // client 127.0.0.2 is in group 1, where mask.icloud.com is allowed
    expect(firstAddress(await ask(moat.dnsPort, "mask.icloud.com", { from: "127.0.0.2" }))).toBe(FWD);
  });
  test("regex deny with POSIX classes, ;querytype, ;invert and ;reply", async () => {
    const r = await ask(moat.dnsPort, "re42.test");
    expect(firstAddress(r)).toBe("0.0.0.0");
    expect(r.ede?.text).toBe("regex");
    expect(firstAddress(await ask(moat.dnsPort, "rex.test"))).toBe(FWD);
    expect(firstAddress(await ask(moat.dnsPort, "typed.test"))).toBe(FWD);
    expect(firstAddress(await ask(moat.dnsPort, "typed.test", { type: "AAAA" }))).toBe("::");
    expect((await ask(moat.dnsPort, "reply.test")).rcode).toBe("NXDOMAIN");
    expect(firstAddress(await ask(moat.dnsPort, "reply-ip.test"))).toBe("10.1.2.3");
    // ;invert with ;querytype=TXT: every TXT query except notinv.test is blocked
    expect((await ask(moat.dnsPort, "other.test", { type: "TXT" })).answers.length).toBe(0);
    expect((await ask(moat.dnsPort, "notinv.test", { type: "TXT" })).answers.length).toBe(1);
  });
  test("CNAME deep inspection blocks an answer whose chain reaches a blocked name", async () => {
    const r = await ask(moat.dnsPort, "cname-tracker.test");
    expect(firstAddress(r)).toBe("0.0.0.0");
    expect(firstAddress(await ask(moat.dnsPort, "cname-fine.test"))).toBe(FWD);
    // and from the cache too
    expect(firstAddress(await ask(moat.dnsPort, "cname-tracker.test"))).toBe("0.0.0.0");
    // a client without groups gets the answer
    expect(firstAddress(await ask(moat.dnsPort, "cname-tracker.test", { from: "127.0.0.3" }))).toBe(FWD);
  });
});

describe("clients and groups", () => {
  test("a client in group 1 gets group 1's lists as well", async () => {
    expect(await blocked("kids.test", "127.0.0.2")).toBe(true);
    expect(firstAddress(await ask(moat.dnsPort, "kids.test"))).toBe(FWD);
  });
  test("a configured client without groups gets no lists at all", async () => {
    expect(firstAddress(await ask(moat.dnsPort, "ads.test", { from: "127.0.0.3" }))).toBe(FWD);
    expect(firstAddress(await ask(moat.dnsPort, "deny.test", { from: "127.0.0.3" }))).toBe(FWD);
  });
  test("subnet entries match, and the longest prefix wins", async () => {
    // 127.0.1.5 is only in 127.0.1.0/24 → group 1 only (kids.test blocked, ads.test from list 1 not)
    expect(await blocked("kids.test", "127.0.1.5")).toBe(true);
    expect(firstAddress(await ask(moat.dnsPort, "deny.test", { from: "127.0.1.5" }))).toBe(FWD);
    // 127.0.1.7 has its own /32 entry in group 0
    expect(await blocked("deny.test", "127.0.1.7")).toBe(true);
    expect(firstAddress(await ask(moat.dnsPort, "kids.test", { from: "127.0.1.7" }))).toBe(FWD);
  });
});

describe("blocking modes", () => {
  test("NX, NODATA, IP, IP_NODATA_AAAA, NULL; EDE CODE and NONE", async () => {
    await setConfig({ dns: { blocking: { mode: "NX" } } });
    expect((await ask(moat.dnsPort, "ads.test")).rcode).toBe("NXDOMAIN");
    await setConfig({ dns: { blocking: { mode: "NODATA" } } });
    let r = await ask(moat.dnsPort, "ads.test");
    expect([r.rcode, r.answers.length]).toEqual(["NOERROR", 0]);
    await setConfig({ dns: { blocking: { mode: "IP" } } });
    expect(firstAddress(await ask(moat.dnsPort, "ads.test"))).toBe("127.0.0.1");
    await setConfig({ dns: { blocking: { mode: "IP_NODATA_AAAA" } } });
    expect(firstAddress(await ask(moat.dnsPort, "ads.test"))).toBe("127.0.0.1");
    r = await ask(moat.dnsPort, "ads.test", { type: "AAAA" });
    expect([r.rcode, r.answers.length]).toEqual(["NOERROR", 0]);
    await setConfig({
      dns: { blocking: { mode: "IP", edns: "CODE" }, reply: { blocking: { force4: true, IPv4: "10.9.9.9" } } },
    });
    r = await ask(moat.dnsPort, "ads.test");
    expect(firstAddress(r)).toBe("10.9.9.9");
    expect(r.ede).toEqual({ code: 15, text: "" });
    await setConfig({ dns: { blocking: { mode: "NULL", edns: "NONE" }, blockTTL: 7 } });
    r = await ask(moat.dnsPort, "ads.test");
    expect(r.ede).toBeNull();
    expect((r.answers[0] as { ttl: number }).ttl).toBe(7);
    await setConfig({ dns: { blocking: { edns: "TEXT" }, blockTTL: 2 } });
  });
});

test("blocking switch: off with a timer lets names through, then blocks again", async () => {
  let r = await moat.api("/api/dns/blocking", { method: "POST", body: JSON.stringify({ blocking: false, timer: 1 }) });
  expect(r.status).toBe(200);
  expect(firstAddress(await ask(moat.dnsPort, "ads.test"))).toBe(FWD);
  await until(() => blocked("ads.test"), 8000, "timer re-enabling blocking");
  r = await moat.api("/api/dns/blocking");
  expect(["true", "enabled"]).toContain(String(((await r.json()) as { blocking: unknown }).blocking));
}, 20000);

test("reload while queries are in flight: no query lost or answered wrongly", async () => {
  const db = gravityDb(moat.dataDir);
  let stop = false;
  let wrong = 0,
    lost = 0,
    total = 0;
  const load = (async () => {
    while (!stop) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          ask(moat.dnsPort, i % 2 ? "ads.test" : `ok-${total + i}.test`, { timeoutMs: 5000 }).then(
            (r) => ({ i, r }),
            () => null,
          ),
        ),
      );
      for (const b of batch) {
        total++;
        if (!b) lost++;
        else if (firstAddress(b.r) !== (b.i % 2 ? "0.0.0.0" : FWD)) wrong++;
      }
    }
  })();
  for (let k = 0; k < 4; k++) {
    if (k % 2 === 0) db.run("DELETE FROM gravity WHERE domain = 'toggle.test'");
    else db.run("INSERT INTO gravity(domain, adlist_id) VALUES ('toggle.test', 1)");
    await reload();
    const want = k % 2 === 1;
    await until(async () => (await blocked("toggle.test")) === want, 10000, `toggle ${want}`).catch((e) => {
      console.log(
        moat.output
          .split("\n")
          .filter((l) => l.includes("snapshot") || l.includes("restartdns"))
          .join("\n"),
      );
      throw e;
    });
  }
  stop = true;
  await load;
  db.close();
  expect(total).toBeGreaterThan(100);
  expect(lost).toBe(0);
  expect(wrong).toBe(0);
}, 60000);
