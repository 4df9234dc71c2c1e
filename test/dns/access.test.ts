// dns.access.allowed / dns.access.disallowed (AdGuard Home's allowed and disallowed clients): who may use
// this DNS server at all, by address, network or DoT/DoH client ID. Real DNS over UDP and TCP (dig bound to
// 127.0.0.x), DoT (kdig, client ID in the TLS name) and DoH (/dns-query/<id>); the query log's status.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "../lists/helpers.ts";
import { decodeReply, encodeQuery, runDig } from "./helpers.ts";
import { run, startTlsMoat, type TlsMoat } from "../tls/helpers.ts";

const FWD = "192.0.2.91";
let t: TlsMoat;
let up: Upstream;
let ca = "";

beforeAll(async () => {
  up = await startUpstream({ addr: FWD });
  t = await startTlsMoat({ FTLCONF_dns_upstreams: up.address });
  ca = readFileSync(t.caFile, "utf8");
});
afterAll(async () => {
  await t?.moat.dispose();
  await up?.stop();
});

const access = (a: { allowed?: string[]; disallowed?: string[] }) =>
  call(t.moat, "PATCH", "/api/config", { config: { dns: { access: { allowed: [], disallowed: [], ...a } } } });

/** dig's status (NOERROR, REFUSED, …) for a query from `from`, over UDP or TCP */
async function dig(name: string, from: string, tcp = false): Promise<string> {
  const out = await runDig([
    "@127.0.0.1",
    "-p",
    String(t.moat.dnsPort),
    "-b",
    from,
    ...(tcp ? ["+tcp"] : []),
    "+tries=1",
    "+time=3",
    name,
    "A",
  ]);
  return /status: (\w+)/.exec(out)?.[1] ?? out;
}

async function dot(name: string, id: string): Promise<string> {
  const r = await run([
    "kdig",
    "@127.0.0.1",
    "-p",
    String(t.dotPort),
    "+tls",
    `+tls-ca=${t.caFile}`,
    `+tls-hostname=${id}.pi.hole`,
    `+tls-sni=${id}.pi.hole`,
    "+retry=0",
    name,
  ]);
  return /status: (\w+)/.exec(r.out)?.[1] ?? r.out;
}

async function doh(name: string, id: string): Promise<string> {
  const r = await fetch(`https://127.0.0.1:${t.httpsPort}/dns-query/${id}`, {
    method: "POST",
    body: encodeQuery(name),
    headers: { "content-type": "application/dns-message" },
    tls: { ca },
  } as RequestInit);
  expect(r.status).toBe(200);
  return decodeReply(new Uint8Array(await r.arrayBuffer())).rcode;
}

async function logged(domain: string): Promise<{ status: string; reply: { type: string }; client: { ip: string } }[]> {
  const r = await call(t.moat, "GET", `/api/queries?domain=${domain}`);
  expect(r.status).toBe(200);
  return r.json.queries;
}

test("a disallowed address or client ID gets REFUSED over UDP, TCP, DoT and DoH; everyone else an answer", async () => {
  expect((await access({ disallowed: ["127.0.0.2", "127.0.5.0/24", "kid"] })).status).toBe(200);
  expect(await dig("a.test", "127.0.0.2")).toBe("REFUSED");
  expect(await dig("a.test", "127.0.0.2", true)).toBe("REFUSED");
  expect(await dig("a.test", "127.0.5.9")).toBe("REFUSED");
  expect(await dig("a.test", "127.0.0.3")).toBe("NOERROR");
  expect(await dig("a.test", "127.0.0.3", true)).toBe("NOERROR");
  expect(await dot("a.test", "kid")).toBe("REFUSED");
  expect(await dot("a.test", "mum")).toBe("NOERROR");
  expect(await doh("a.test", "kid")).toBe("REFUSED");
  expect(await doh("a.test", "mum")).toBe("NOERROR");
});

test("a non-empty allowed list refuses everyone else; a client ID in it admits that device", async () => {
  expect((await access({ allowed: ["127.0.0.3", "mum"] })).status).toBe(200);
  expect(await dig("b.test", "127.0.0.3")).toBe("NOERROR");
  expect(await dig("b.test", "127.0.0.4")).toBe("REFUSED");
  expect(await dig("b.test", "127.0.0.1", true)).toBe("REFUSED");
  expect(await dot("b.test", "mum")).toBe("NOERROR");
  expect(await dot("b.test", "kid")).toBe("REFUSED");
  expect(await doh("b.test", "mum")).toBe("NOERROR");
  // emptied: everyone again
  expect((await access({})).status).toBe(200);
  expect(await dig("b.test", "127.0.0.4")).toBe("NOERROR");
});

test("the query log shows a refused query as CLIENT_REFUSED, REFUSED (DBBUSY in Pi-hole compatibility mode)", async () => {
  expect((await access({ disallowed: ["127.0.0.6"] })).status).toBe(200);
  expect(await dig("logged.test", "127.0.0.6")).toBe("REFUSED");
  const rows = await logged("logged.test");
  expect(rows.map((r) => [r.client.ip, r.status, r.reply.type])).toEqual([["127.0.0.6", "CLIENT_REFUSED", "REFUSED"]]);
  const summary = await call(t.moat, "GET", "/api/stats/summary");
  expect(summary.json.queries.status.CLIENT_REFUSED).toBeGreaterThanOrEqual(1);

  const on = await call(t.moat, "PATCH", "/api/config", { config: { webserver: { api: { piholeCompat: true } } } });
  expect(on.status).toBe(200);
  try {
    expect((await logged("logged.test")).map((r) => r.status)).toEqual(["DBBUSY"]);
    const s = (await call(t.moat, "GET", "/api/stats/summary")).json.queries.status;
    expect(s.CLIENT_REFUSED).toBeUndefined();
    expect(s.DBBUSY).toBeGreaterThanOrEqual(1);
  } finally {
    await call(t.moat, "PATCH", "/api/config", { config: { webserver: { api: { piholeCompat: false } } } });
  }
});

test("an entry that is no address, network or client ID is refused with the reason", async () => {
  for (const bad of ["127.0.0.1/40", "Not An Id", "kid.pi.hole", "-kid"]) {
    const r = await access({ allowed: [bad] });
    expect(r.status).toBe(400);
    expect(r.json.error.key).toBe("bad_request");
    expect(`${r.json.error.message} ${r.json.error.hint}`).toMatch(/prefix length|client ID/);
  }
  // nothing was stored: everyone is still answered
  expect(await dig("c.test", "127.0.0.4")).toBe("NOERROR");
});
