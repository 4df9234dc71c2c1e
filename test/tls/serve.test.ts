// Moat serving DNS over TLS and DNS over HTTPS, and the API and dashboard over HTTPS, to real clients
// (kdig, dig, curl, fetch) that trust Moat's own authority: answers carry the asked name and the
// upstream's address; a client that expects another name refuses the certificate; client IDs
// (`<id>.pi.hole` in the TLS name, `/dns-query/<id>`) put a device in the groups of its client entry.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "../lists/helpers.ts";
import { decodeReply, encodeQuery } from "../dns/helpers.ts";
import { run, servedFingerprint, startTlsMoat, type TlsMoat } from "./helpers.ts";

const FWD = "192.0.2.77";
let t: TlsMoat;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: FWD });
  t = await startTlsMoat({ FTLCONF_dns_upstreams: up.address, FTLCONF_dns_hosts: "127.0.0.1 web.pi.hole" });
  const g = await call(t.moat, "POST", "/api/groups", { name: "kids" });
  expect(g.status).toBe(201);
  const kids = g.json.groups[0].id;
  expect((await call(t.moat, "POST", "/api/clients", { client: "kid", groups: [kids] })).status).toBe(201);
  expect((await call(t.moat, "POST", "/api/domains/deny/exact", { domain: "games.test", groups: [kids] })).status).toBe(
    201,
  );
});

afterAll(async () => {
  await t?.moat.dispose();
  await up?.stop();
});

/** The A records of kdig's answer section. */
function addresses(out: string): string[] {
  return [...out.matchAll(/^\S+\s+\d+\s+IN\s+A\s+(\S+)$/gm)].map((m) => m[1]!);
}

describe("DNS over TLS", () => {
  test("kdig +tls gets the upstream's answer for the name it asked, checking the certificate", async () => {
    const r = await run([
      "kdig",
      `@127.0.0.1`,
      "-p",
      String(t.dotPort),
      "+tls",
      `+tls-ca=${t.caFile}`,
      "+tls-hostname=pi.hole",
      "dot1.example.test",
      "A",
    ]);
    expect(r.out).toContain("dot1.example.test.");
    expect(addresses(r.out)).toEqual([FWD]);
    expect(r.out).toMatch(/TLS session \(TLS1\.3\)/);
  });

  test("a client that expects another name refuses the certificate", async () => {
    const r = await run([
      "kdig",
      `@127.0.0.1`,
      "-p",
      String(t.dotPort),
      "+tls",
      `+tls-ca=${t.caFile}`,
      "+tls-hostname=dns.elsewhere.test",
      "+retry=0",
      "dot2.example.test",
    ]);
    expect(addresses(r.out)).toEqual([]);
    expect(r.out).toMatch(/certificate|TLS, failed/i);
  });

  test("dig +tls (BIND 9.18) works too", async () => {
    const r = await run([
      "dig",
      `@127.0.0.1`,
      "-p",
      String(t.dotPort),
      "+tls",
      `+tls-ca=${t.caFile}`,
      "+tls-hostname=pi.hole",
      "+tries=1",
      "dot3.example.test",
    ]);
    expect(r.out).toContain("status: NOERROR");
    expect(r.out).toMatch(
      new RegExp(`dot3\\.example\\.test\\.\\s+\\d+\\s+IN\\s+A\\s+${FWD.replace(/\./g, "\\.")}`, "i"),
    );
  });

  test("the client ID in the TLS name selects the kid's groups: games.test blocked for kid.pi.hole only", async () => {
    const kid = await run([
      "kdig",
      `@127.0.0.1`,
      "-p",
      String(t.dotPort),
      "+tls",
      `+tls-ca=${t.caFile}`,
      "+tls-hostname=kid.pi.hole",
      "+tls-sni=kid.pi.hole",
      "games.test",
    ]);
    expect(addresses(kid.out)).toEqual(["0.0.0.0"]);
    const other = await run([
      "kdig",
      `@127.0.0.1`,
      "-p",
      String(t.dotPort),
      "+tls",
      `+tls-ca=${t.caFile}`,
      "+tls-hostname=mum.pi.hole",
      "+tls-sni=mum.pi.hole",
      "games.test",
    ]);
    expect(addresses(other.out)).toEqual([FWD]);
  });
});

describe("DNS over HTTPS", () => {
  test("kdig +https (HTTP/2) and dig +https get answers; /dns-query/kid is blocked, /dns-query/other is not", async () => {
    const k = await run([
      "kdig",
      `@127.0.0.1`,
      "-p",
      String(t.httpsPort),
      "+https",
      `+tls-ca=${t.caFile}`,
      "+tls-hostname=pi.hole",
      "doh1.example.test",
    ]);
    expect(addresses(k.out)).toEqual([FWD]);
    const d = await run([
      "dig",
      `@127.0.0.1`,
      "-p",
      String(t.httpsPort),
      "+https",
      `+tls-ca=${t.caFile}`,
      "+tls-hostname=pi.hole",
      "+tries=1",
      "doh2.example.test",
    ]);
    expect(d.out).toContain("status: NOERROR");
    expect(d.out).toContain(FWD);
    const kid = await run([
      "kdig",
      `@127.0.0.1`,
      "-p",
      String(t.httpsPort),
      "+https=/dns-query/kid",
      `+tls-ca=${t.caFile}`,
      "+tls-hostname=pi.hole",
      "games.test",
    ]);
    expect(addresses(kid.out)).toEqual(["0.0.0.0"]);
    const other = await run([
      "kdig",
      `@127.0.0.1`,
      "-p",
      String(t.httpsPort),
      "+https=/dns-query/other",
      `+tls-ca=${t.caFile}`,
      "+tls-hostname=pi.hole",
      "games.test",
    ]);
    expect(addresses(other.out)).toEqual([FWD]);
  });

  test("GET ?dns= and POST from fetch: the answer has the query's id and question and a max-age", async () => {
    const ca = await Bun.file(t.caFile).text();
    const q = encodeQuery("doh3.example.test");
    const id = decodeReply(q).msg.id;
    const get = await fetch(`https://127.0.0.1:${t.httpsPort}/dns-query?dns=${Buffer.from(q).toString("base64url")}`, {
      tls: { ca },
    } as RequestInit);
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toBe("application/dns-message");
    expect(get.headers.get("cache-control")).toMatch(/^max-age=\d+$/);
    const a = decodeReply(new Uint8Array(await get.arrayBuffer()));
    expect(a.msg.id).toBe(id);
    expect(a.msg.questions?.[0]?.name).toBe("doh3.example.test");
    const post = await fetch(`https://127.0.0.1:${t.httpsPort}/dns-query`, {
      method: "POST",
      body: q,
      headers: { "content-type": "application/dns-message" },
      tls: { ca },
    } as RequestInit);
    expect(decodeReply(new Uint8Array(await post.arrayBuffer())).msg.id).toBe(id);
  });

  test("curl --doh-url resolves through Moat and then fetches over HTTPS", async () => {
    const r = await run([
      "curl",
      "-sS",
      "--cacert",
      t.caFile,
      "--doh-url",
      `https://127.0.0.1:${t.httpsPort}/dns-query`,
      `https://web.pi.hole:${t.httpsPort}/api/info/login`,
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toHaveProperty("dns");
  });

  test("bad requests get a status and a reason, not a hang", async () => {
    const ca = await Bun.file(t.caFile).text();
    const base = `https://127.0.0.1:${t.httpsPort}/dns-query`;
    const opts = { tls: { ca } } as RequestInit;
    expect((await fetch(base, opts)).status).toBe(400);
    expect((await fetch(`${base}?dns=%%%`, opts)).status).toBe(400);
    expect((await fetch(`${base}/bad_id!`, opts)).status).toBe(400);
    expect(
      (await fetch(base, { ...opts, method: "POST", body: "hello", headers: { "content-type": "text/plain" } })).status,
    ).toBe(415);
    expect(
      (
        await fetch(base, {
          ...opts,
          method: "POST",
          body: new Uint8Array(70000),
          headers: { "content-type": "application/dns-message" },
        })
      ).status,
    ).toBe(413);
  });
});

describe("HTTPS for the API and the dashboard", () => {
  test("the API and /admin/ answer over the 443s-style port; HTTP still works; no HSTS with a generated certificate", async () => {
    const ca = await Bun.file(t.caFile).text();
    const r = await fetch(`https://127.0.0.1:${t.httpsPort}/api/info/login`, {
      tls: { ca, serverName: "pi.hole" },
    } as RequestInit);
    expect(r.status).toBe(200);
    expect(r.headers.get("strict-transport-security")).toBeNull();
    const admin = await fetch(`https://127.0.0.1:${t.httpsPort}/admin/`, { tls: { ca } } as RequestInit);
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain("<html");
    expect((await t.moat.api("/api/info/login")).status).toBe(200);
    // the authority for devices to install, over plain HTTP
    const dl = await t.moat.api("/tls/ca.crt");
    expect(dl.headers.get("content-type")).toBe("application/x-x509-ca-cert");
    expect(await dl.text()).toBe(ca);
  });

  test("POST /api/action/tls/regenerate: HTTPS and DoT serve the new certificate, still trusted", async () => {
    const before = await servedFingerprint(t.httpsPort);
    const r = await call(t.moat, "POST", "/api/action/tls/regenerate");
    expect(r.status).toBe(200);
    expect(r.json.certificate.user).toBe(false);
    expect(r.json.certificate.names).toContain("*.pi.hole");
    expect(r.json.certificate.fingerprint).not.toBe(before);
    expect(await servedFingerprint(t.httpsPort)).toBe(r.json.certificate.fingerprint);
    expect(await servedFingerprint(t.dotPort)).toBe(r.json.certificate.fingerprint);
    const k = await run([
      "kdig",
      `@127.0.0.1`,
      "-p",
      String(t.dotPort),
      "+tls",
      `+tls-ca=${t.caFile}`,
      "+tls-hostname=pi.hole",
      "dot9.example.test",
    ]);
    expect(addresses(k.out)).toEqual([FWD]);
  });
});
