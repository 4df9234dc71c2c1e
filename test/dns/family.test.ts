// Family controls against the real server: a group's blocked services, safe search, schedule, own upstreams and a
// paused client, over UDP (dig from
// 127.0.0.2 / 127.0.0.3 as two clients in different groups) and over DNS over HTTPS with a client ID
// (/dns-query/<id>), with the query log naming the service; the pause ends by itself and survives a restart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "../lists/helpers.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeReply, encodeQuery, runDig, until } from "./helpers.ts";
import { startTlsMoat, type TlsMoat } from "../tls/helpers.ts";

const FWD = "192.0.2.61";
let t: TlsMoat;
let up: Upstream;
let up2: Upstream;
const FWD2 = "192.0.2.62";
let ca = "";

/** dig over UDP from `from`: the first A record and the EDE text, if any */
async function digA(name: string, from: string): Promise<{ addr: string | null; ede: string | null }> {
  const out = await runDig(["@127.0.0.1", "-p", String(t.moat.dnsPort), "-b", from, "+tries=1", "+time=3", name, "A"]);
  const addr =
    new RegExp(`^${name.replace(/\./g, "\\.")}\\.\\s+\\d+\\s+IN\\s+A\\s+(\\S+)$`, "m").exec(out)?.[1] ?? null;
  const ede = /EDE: 15 \(Blocked\): \(([^)]*)\)/.exec(out)?.[1] ?? null;
  return { addr, ede };
}

/** DNS over HTTPS (RFC 8484 POST) with a client ID in the path */
async function dohA(name: string, id: string): Promise<{ addr: string | null; ede: string | null }> {
  const r = await fetch(`https://127.0.0.1:${t.httpsPort}/dns-query/${id}`, {
    method: "POST",
    body: encodeQuery(name),
    headers: { "content-type": "application/dns-message" },
    tls: { ca },
  } as RequestInit);
  expect(r.status).toBe(200);
  const a = decodeReply(new Uint8Array(await r.arrayBuffer()));
  const rec = a.answers.find((x) => x.type === "A") as { data: string } | undefined;
  return { addr: rec?.data ?? null, ede: a.ede?.text ?? null };
}

beforeAll(async () => {
  [up, up2] = await Promise.all([startUpstream({ addr: FWD }), startUpstream({ addr: FWD2 })]);
  t = await startTlsMoat({ FTLCONF_dns_upstreams: up.address, FTLCONF_dns_blocking_edns: "TEXT" });
  ca = await Bun.file(t.caFile).text();
  const ids: Record<string, number> = {};
  for (const name of ["kids", "teens"]) {
    const g = await call(t.moat, "POST", "/api/groups", { name });
    expect(g.status).toBe(201);
    ids[name] = g.json.groups[0].id;
  }
  for (const [client, group] of [
    ["127.0.0.2", "kids"],
    ["127.0.0.3", "teens"],
    ["kid", "kids"],
    ["teen", "teens"],
  ] as const)
    expect((await call(t.moat, "POST", "/api/clients", { client, groups: [ids[group]] })).status).toBe(201);
});

afterAll(async () => {
  await t?.moat.dispose();
  await Promise.all([up?.stop(), up2?.stop()]);
});

describe("blocked services", () => {
  test("GET /api/services lists the catalogue with each service's query-log list id", async () => {
    const r = await call(t.moat, "GET", "/api/services");
    expect(r.status).toBe(200);
    expect(r.json.services.length).toBeGreaterThanOrEqual(40);
    const tiktok = r.json.services.find((s: { id: string }) => s.id === "tiktok");
    expect(tiktok).toMatchObject({ name: "TikTok", category: "social", list_id: -2 });
    expect(tiktok.rules).toContain("||tiktok.com^");
  });

  test("PUT sets a group's services; unknown services and groups are refused", async () => {
    const r = await call(t.moat, "PUT", "/api/services/groups/kids", { services: ["tiktok", "youtube", "tiktok"] });
    expect(r.status).toBe(200);
    expect(r.json.groups).toEqual([{ name: "kids", services: ["tiktok", "youtube"] }]);
    expect((await call(t.moat, "GET", "/api/services/groups/kids")).json.groups[0].services).toEqual([
      "tiktok",
      "youtube",
    ]);
    const all = await call(t.moat, "GET", "/api/services/groups");
    expect(all.json.groups).toContainEqual({ name: "teens", services: [] });
    expect((await call(t.moat, "PUT", "/api/services/groups/kids", { services: ["nope"] })).status).toBe(400);
    expect((await call(t.moat, "PUT", "/api/services/groups/nobody", { services: ["tiktok"] })).status).toBe(404);
    expect((await call(t.moat, "GET", "/api/services/groups/nobody")).status).toBe(404);
  });

  test("UDP: the kids' client gets the block for the service's domains and below; the teens' client does not", async () => {
    for (const name of ["tiktok.com", "www.tiktok.com", "v16m.tiktokcdn.com", "i.ytimg.com"]) {
      expect({ name, ...(await digA(name, "127.0.0.2")) }).toEqual({
        name,
        addr: "0.0.0.0",
        ede: name.includes("ytimg") ? "blocked service: YouTube" : "blocked service: TikTok",
      });
      expect({ name, ...(await digA(name, "127.0.0.3")) }).toEqual({ name, addr: FWD, ede: null });
    }
    // not a service domain, and a name that only ends like one
    expect((await digA("nottiktok.com", "127.0.0.2")).addr).toBe(FWD);
    expect((await digA("example.test", "127.0.0.2")).addr).toBe(FWD);
  });

  test("DoH with a client ID: /dns-query/kid is blocked, /dns-query/teen is not", async () => {
    expect(await dohA("m.youtube.com", "kid")).toEqual({ addr: "0.0.0.0", ede: "blocked service: YouTube" });
    expect(await dohA("m.youtube.com", "teen")).toEqual({ addr: FWD, ede: null });
  });

  test("the query log shows the block as DENYLIST with the service's list id", async () => {
    await until(
      async () => {
        const r = await call(t.moat, "GET", "/api/queries?domain=www.tiktok.com");
        return r.json.queries.some(
          (q: { status: string; list_id: number | null; client: { ip: string } }) =>
            q.client.ip === "127.0.0.2" && q.status === "DENYLIST" && q.list_id === -2,
        );
      },
      10000,
      "the blocked query in the log",
    );
    const r = await call(t.moat, "GET", "/api/queries?domain=www.tiktok.com");
    const teen = r.json.queries.find((q: { client: { ip: string } }) => q.client.ip === "127.0.0.3");
    expect(teen?.status).not.toBe("DENYLIST");
  });

  test("the allow list beats a blocked service; an empty selection unblocks", async () => {
    const kids = (await call(t.moat, "GET", "/api/groups/kids")).json.groups[0].id;
    const a = await call(t.moat, "POST", "/api/domains/allow/exact", { domain: "allowed.tiktok.com", groups: [kids] });
    expect(a.status).toBe(201);
    expect((await digA("allowed.tiktok.com", "127.0.0.2")).addr).toBe(FWD);
    expect((await digA("other.tiktok.com", "127.0.0.2")).addr).toBe("0.0.0.0");
    expect((await call(t.moat, "PUT", "/api/services/groups/kids", { services: [] })).status).toBe(200);
    expect((await digA("other.tiktok.com", "127.0.0.2")).addr).toBe(FWD);
  });
});

/** dig's answer section as [owner, type, data] (TTL left out) */
async function digAnswers(name: string, from: string, type = "A"): Promise<string[][]> {
  const out = await runDig([
    "@127.0.0.1",
    "-p",
    String(t.moat.dnsPort),
    "-b",
    from,
    "+tries=1",
    "+noall",
    "+answer",
    name,
    type,
  ]);
  return out
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith(";"))
    .map((l) => {
      const f = l.trim().split(/\s+/);
      return [f[0]!, f[3]!, f[4]!];
    });
}

describe("safe search", () => {
  test("GET /api/safesearch lists the engines; PUT sets a group's; unknown or contradictory picks are refused", async () => {
    const e = await call(t.moat, "GET", "/api/safesearch");
    expect(e.json.engines.map((x: { id: string }) => x.id)).toEqual([
      "google",
      "bing",
      "duckduckgo",
      "youtube",
      "youtube-moderate",
    ]);
    expect(e.json.engines[0].hosts).toContain("www.google.co.uk");
    const r = await call(t.moat, "PUT", "/api/safesearch/groups/kids", {
      engines: ["google", "bing", "duckduckgo", "youtube"],
    });
    expect(r.status).toBe(200);
    expect(r.json.groups).toEqual([{ name: "kids", engines: ["bing", "duckduckgo", "google", "youtube"] }]);
    expect((await call(t.moat, "PUT", "/api/safesearch/groups/teens", { engines: ["youtube-moderate"] })).status).toBe(
      200,
    );
    expect((await call(t.moat, "PUT", "/api/safesearch/groups/kids", { engines: ["altavista"] })).status).toBe(400);
    const both = await call(t.moat, "PUT", "/api/safesearch/groups/kids", { engines: ["youtube", "youtube-moderate"] });
    expect(both.status).toBe(400);
    expect((await call(t.moat, "PUT", "/api/safesearch/groups/nobody", { engines: [] })).status).toBe(404);
  });

  test("UDP: each engine's host answers its documented CNAME and the target's address, for the group's client only", async () => {
    for (const [host, target] of [
      ["www.google.com", "forcesafesearch.google.com"],
      ["www.google.co.uk", "forcesafesearch.google.com"],
      ["www.google.com.br", "forcesafesearch.google.com"],
      ["www.bing.com", "strict.bing.com"],
      ["duckduckgo.com", "safe.duckduckgo.com"],
      ["www.youtube.com", "restrict.youtube.com"],
      ["m.youtube.com", "restrict.youtube.com"],
    ] as const) {
      expect({ host, a: await digAnswers(host, "127.0.0.2") }).toEqual({
        host,
        a: [
          [`${host}.`, "CNAME", `${target}.`],
          [`${target}.`, "A", FWD],
        ],
      });
    }
    // the teens' group enforces only YouTube's moderate mode
    expect(await digAnswers("www.youtube.com", "127.0.0.3")).toEqual([
      ["www.youtube.com.", "CNAME", "restrictmoderate.youtube.com."],
      ["restrictmoderate.youtube.com.", "A", FWD],
    ]);
    expect(await digAnswers("www.google.com", "127.0.0.3")).toEqual([["www.google.com.", "A", FWD]]);
    // AAAA: the target's AAAA
    const six = await digAnswers("www.bing.com", "127.0.0.2", "AAAA");
    expect(six[0]).toEqual(["www.bing.com.", "CNAME", "strict.bing.com."]);
    expect(six[1]?.slice(0, 2)).toEqual(["strict.bing.com.", "AAAA"]);
    // the target was asked upstream; the kids' host name never was
    expect(up.count("forcesafesearch.google.com")).toBeGreaterThan(0);
    expect(up.count("www.google.co.uk")).toBe(0);
  });

  test("DoH with a client ID gets the CNAME, another ID does not", async () => {
    const ask = async (id: string) => {
      const r = await fetch(`https://127.0.0.1:${t.httpsPort}/dns-query/${id}`, {
        method: "POST",
        body: encodeQuery("www.google.de"),
        headers: { "content-type": "application/dns-message" },
        tls: { ca },
      } as RequestInit);
      return decodeReply(new Uint8Array(await r.arrayBuffer())).answers.map((a) => [
        a.name,
        a.type,
        (a as { data?: unknown }).data,
      ]);
    };
    expect(await ask("kid")).toEqual([
      ["www.google.de", "CNAME", "forcesafesearch.google.com"],
      ["forcesafesearch.google.com", "A", FWD],
    ]);
    expect(await ask("teen")).toEqual([["www.google.de", "A", FWD]]);
  });
});

/** a window of `minutes` from the local minute `offset` minutes from now */
function windowFrom(offset: number, minutes: number) {
  const startMs = Date.now() - (Date.now() % 60000) + offset * 60000;
  const hhmm = (ms: number) => {
    const d = new Date(ms);
    return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  };
  return { days: [new Date(startMs).getDay()], start: hhmm(startMs), end: hhmm(startMs + minutes * 60000), startMs };
}

describe("schedules", () => {
  test("PUT refuses a window that is not one and unknown services; no windows removes the schedule", async () => {
    const bad = { windows: [{ days: [1], start: "25:00", end: "07:00" }], services: [], everything: false };
    expect((await call(t.moat, "PUT", "/api/schedules/groups/teens", bad)).status).toBe(400);
    const unknown = { windows: [{ days: [1], start: "21:00", end: "07:00" }], services: ["nope"], everything: false };
    expect((await call(t.moat, "PUT", "/api/schedules/groups/teens", unknown)).status).toBe(400);
    const none = await call(t.moat, "PUT", "/api/schedules/groups/teens", {
      windows: [],
      services: [],
      everything: false,
    });
    expect(none.json.groups).toEqual([{ name: "teens", schedule: null }]);
    expect(typeof none.json.timezone).toBe("string");
  });

  test("an open window blocks the scheduled service for its group only (UDP and DoH), and a change applies at once", async () => {
    const { startMs: _, ...w } = windowFrom(-1, 5);
    const r = await call(t.moat, "PUT", "/api/schedules/groups/teens", {
      windows: [w],
      services: ["reddit"],
      everything: false,
    });
    expect(r.status).toBe(200);
    expect(r.json.groups[0].schedule.services).toEqual(["reddit"]);
    expect(await digA("www.reddit.com", "127.0.0.3")).toEqual({ addr: "0.0.0.0", ede: "blocked service: Reddit" });
    expect((await digA("www.reddit.com", "127.0.0.2")).addr).toBe(FWD);
    expect((await dohA("old.reddit.com", "teen")).addr).toBe("0.0.0.0");
    expect((await dohA("old.reddit.com", "kid")).addr).toBe(FWD);
    expect((await digA("sched-other.test", "127.0.0.3")).addr).toBe(FWD);
    // everything but the allow list
    await call(t.moat, "PUT", "/api/schedules/groups/teens", { windows: [w], services: [], everything: true });
    expect(await digA("sched-other.test", "127.0.0.3")).toEqual({ addr: "0.0.0.0", ede: "schedule" });
    expect((await dohA("sched-other2.test", "teen")).addr).toBe("0.0.0.0");
    expect((await dohA("sched-other2.test", "kid")).addr).toBe(FWD);
    const teens = (await call(t.moat, "GET", "/api/groups/teens")).json.groups[0].id;
    await call(t.moat, "POST", "/api/domains/allow/exact", { domain: "homework.test", groups: [teens] });
    expect((await digA("homework.test", "127.0.0.3")).addr).toBe(FWD);
    // a window that is not open now
    const { startMs: __, ...later } = windowFrom(120, 5);
    await call(t.moat, "PUT", "/api/schedules/groups/teens", { windows: [later], services: [], everything: true });
    expect((await digA("sched-other3.test", "127.0.0.3")).addr).toBe(FWD);
  });

  test("a block list scheduled for a group applies to it only while its window is open", async () => {
    const file = join(t.moat.dataDir, "evening-list.txt");
    writeFileSync(file, "0.0.0.0 games.evening.test\n||arcade.evening.test^\n");
    const l = await call(t.moat, "POST", "/api/lists?type=block", { address: `file://${file}`, groups: [] });
    expect(l.status).toBe(201);
    const id = l.json.lists[0].id as number;
    const g = await t.moat.api("/api/action/gravity", { method: "POST" });
    expect(g.status).toBe(200);
    await g.text();
    // linked to no group: nobody is blocked by it
    expect((await digA("games.evening.test", "127.0.0.3")).addr).toBe(FWD);
    const { startMs: _, ...open } = windowFrom(-1, 5);
    const put = { windows: [open], services: [], lists: [id], everything: false };
    expect((await call(t.moat, "PUT", "/api/schedules/groups/teens", put)).status).toBe(200);
    expect(await digA("games.evening.test", "127.0.0.3")).toEqual({ addr: "0.0.0.0", ede: "gravity" });
    expect((await digA("www.arcade.evening.test", "127.0.0.3")).addr).toBe("0.0.0.0");
    expect((await digA("games.evening.test", "127.0.0.2")).addr).toBe(FWD);
    expect((await dohA("games.evening.test", "teen")).addr).toBe("0.0.0.0");
    expect((await dohA("games.evening.test", "kid")).addr).toBe(FWD);
    const { startMs: __, ...later } = windowFrom(120, 5);
    expect((await call(t.moat, "PUT", "/api/schedules/groups/teens", { ...put, windows: [later] })).status).toBe(200);
    expect((await digA("games.evening.test", "127.0.0.3")).addr).toBe(FWD);
    const bad = { ...put, lists: [99999] };
    expect((await call(t.moat, "PUT", "/api/schedules/groups/teens", bad)).status).toBe(400);
  });

  test(
    "a window a minute wide opens and closes at its minutes without a restart",
    async () => {
      const { startMs, ...w } = windowFrom(1, 1);
      await call(t.moat, "PUT", "/api/schedules/groups/teens", {
        windows: [w],
        services: ["reddit"],
        everything: false,
      });
      expect((await digA("reddit.com", "127.0.0.3")).addr).toBe(FWD);
      await Bun.sleep(Math.max(0, startMs - Date.now()));
      await until(async () => (await digA("reddit.com", "127.0.0.3")).addr === "0.0.0.0", 5000, "the window to open");
      expect((await digA("reddit.com", "127.0.0.2")).addr).toBe(FWD);
      await Bun.sleep(Math.max(0, startMs + 60000 - Date.now()));
      await until(async () => (await digA("reddit.com", "127.0.0.3")).addr === FWD, 5000, "the window to close");
    },
    { timeout: 140000 },
  );
});

describe("per-group upstreams", () => {
  test("PUT refuses an entry that is not an upstream; GET shows each group's", async () => {
    expect((await call(t.moat, "PUT", "/api/upstreams/groups/kids", { upstreams: ["not an address"] })).status).toBe(
      400,
    );
    expect((await call(t.moat, "PUT", "/api/upstreams/groups/nobody", { upstreams: [] })).status).toBe(404);
    const r = await call(t.moat, "PUT", "/api/upstreams/groups/kids", { upstreams: [up2.address] });
    expect(r.status).toBe(200);
    expect(r.json.groups).toEqual([{ name: "kids", upstreams: [up2.address] }]);
    expect((await call(t.moat, "GET", "/api/upstreams/groups")).json.groups).toContainEqual({
      name: "teens",
      upstreams: [],
    });
  });

  test("a group's queries go to its upstream and no others do; the cache keeps the groups' answers apart", async () => {
    // the teens' client first: its answer is cached, and must not reach the kids' client
    expect((await digA("grp-up.test", "127.0.0.3")).addr).toBe(FWD);
    expect((await digA("grp-up.test", "127.0.0.2")).addr).toBe(FWD2);
    expect((await digA("grp-up.test", "127.0.0.3")).addr).toBe(FWD);
    expect((await digA("grp-up.test", "127.0.0.2")).addr).toBe(FWD2);
    expect(up.count("grp-up.test")).toBe(1);
    expect(up2.count("grp-up.test")).toBe(1);
    // DoH with a client ID
    expect((await dohA("grp-up2.test", "kid")).addr).toBe(FWD2);
    expect((await dohA("grp-up2.test", "teen")).addr).toBe(FWD);
    // nothing but the kids' names reached the kids' upstream
    expect(new Set(up2.queries().map((q) => q.name))).toEqual(new Set(["grp-up.test", "grp-up2.test"]));
    // back to dns.upstreams
    expect((await call(t.moat, "PUT", "/api/upstreams/groups/kids", { upstreams: [] })).status).toBe(200);
    expect((await digA("grp-up3.test", "127.0.0.2")).addr).toBe(FWD);
  });
});

describe("pausing a client", () => {
  test("UDP: a paused address is blocked, another is not, and the pause ends by itself", async () => {
    const r = await call(t.moat, "POST", "/api/pauses/127.0.0.3", { minutes: 0.05 });
    expect(r.status).toBe(200);
    expect(r.json.pauses).toContainEqual({ client: "127.0.0.3", until: expect.any(Number) });
    expect(await digA("pause1.test", "127.0.0.3")).toEqual({ addr: "0.0.0.0", ede: "client paused" });
    expect((await digA("pause1.test", "127.0.0.2")).addr).toBe(FWD);
    await until(async () => (await digA("pause2.test", "127.0.0.3")).addr === FWD, 8000, "the pause to end");
    expect((await call(t.moat, "GET", "/api/pauses")).json.pauses).toEqual([]);
  });

  test("DoH: a paused client ID is blocked until resumed, also across a restart", async () => {
    expect((await call(t.moat, "POST", "/api/pauses/kid", {})).status).toBe(200);
    expect(await dohA("pause3.test", "kid")).toEqual({ addr: "0.0.0.0", ede: "client paused" });
    expect((await dohA("pause3.test", "teen")).addr).toBe(FWD);
    await t.moat.restart();
    expect((await call(t.moat, "GET", "/api/pauses")).json.pauses).toEqual([{ client: "kid", until: null }]);
    expect((await dohA("pause4.test", "kid")).addr).toBe("0.0.0.0");
    const q = await call(t.moat, "GET", "/api/queries?domain=pause3.test");
    expect(q.json.queries.some((x: { status: string; list_id: number }) => x.list_id === -1_000_000)).toBe(true);
    expect((await t.moat.api("/api/pauses/kid", { method: "DELETE" })).status).toBe(204);
    expect((await dohA("pause5.test", "kid")).addr).toBe(FWD);
    expect((await t.moat.api("/api/pauses/kid", { method: "DELETE" })).status).toBe(404);
  });

  test("a client nothing has seen is paused with a warning that says so; one that asked, without", async () => {
    const unknown = await call(t.moat, "POST", "/api/pauses/192.0.2.99", { minutes: 5 });
    expect(unknown.status).toBe(200);
    expect(unknown.json.warning).toStartWith("No device has been seen as 192.0.2.99");
    expect(unknown.json.pauses).toContainEqual({ client: "192.0.2.99", until: expect.any(Number) });
    expect((await digA("pause6.test", "127.0.0.2")).addr).toBe(FWD);
    const seen = await call(t.moat, "POST", "/api/pauses/127.0.0.2", { minutes: 5 });
    expect([seen.status, seen.json.warning]).toEqual([200, undefined]);
    for (const c of ["192.0.2.99", "127.0.0.2"])
      expect((await t.moat.api(`/api/pauses/${c}`, { method: "DELETE" })).status).toBe(204);
  });

  test("an invalid client or duration is refused", async () => {
    expect((await call(t.moat, "POST", "/api/pauses/bad%20name", { minutes: 5 })).status).toBe(400);
    expect((await call(t.moat, "POST", "/api/pauses/127.0.0.9", { minutes: -1 })).status).toBe(400);
  });
});
