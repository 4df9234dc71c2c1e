// Bad peers and bad input around TLS: a dead encrypted upstream, one whose handshake stalls, a DoH
// upstream that answers HTML, a user certificate whose key belongs to another one, and a client that
// opens more TLS connections than Moat keeps. Each gets a clear log line; nothing hangs; plain DNS
// and the API keep answering; memory stays bounded.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket, TCPSocketListener, Server } from "bun";
import { freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { makeTestCa, type TestCa } from "../harness/tls-peer.ts";
import { ask, firstAddress, until } from "../dns/helpers.ts";
import { run, servedFingerprint, startTlsMoat } from "./helpers.ts";

let ca: TestCa;
let up: Upstream;
let stall: TCPSocketListener<undefined>;
let html: Server<unknown>;
const stalled: Socket<undefined>[] = [];
const started: MoatProcess[] = [];

beforeAll(async () => {
  ca = makeTestCa(["dns.test"]);
  up = await startUpstream({ addr: "192.0.2.99" });
  // accepts TCP and never says a word: a TLS handshake that stalls
  stall = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (s) => void stalled.push(s), data() {} } });
  // a DoH "server" with a good certificate that answers a web page
  html = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { key: readFileSync(ca.keyFile, "utf8"), cert: readFileSync(ca.certFile, "utf8") },
    fetch: () => new Response("<html>captive portal</html>", { headers: { "content-type": "text/html" } }),
  });
});

afterAll(async () => {
  for (const m of started) await m.dispose();
  for (const s of stalled) s.terminate();
  stall?.stop(true);
  html?.stop(true);
  await up?.stop();
  ca?.dispose();
});

async function moat(env: Record<string, string>): Promise<MoatProcess> {
  const m = await startMoat({
    env: { NODE_EXTRA_CA_CERTS: ca.caFile, FTLCONF_dns_hosts: "192.0.2.5 local.test", ...env },
  });
  started.push(m);
  return m;
}

async function logText(m: MoatProcess): Promise<string> {
  return m.output + (await (await m.api("/api/logs/ftl")).text());
}

test("a dead DoT upstream: the plain one answers at once, the log says why", async () => {
  const dead = await freePort();
  const m = await moat({ FTLCONF_dns_upstreams: `tls://dns.test@127.0.0.1:${dead};${up.address}` });
  for (let i = 0; i < 5; i++)
    expect(firstAddress(await ask(m.dnsPort, `d${i}.example.test`, { timeoutMs: 5000 }))).toBe("192.0.2.99");
  await until(
    async () => /upstream tls:\/\/dns\.test@127\.0\.0\.1:\d+: cannot connect/.test(await logText(m)),
    5000,
    "a log line about the dead upstream",
  );
});

test("a stalled handshake ends in SERVFAIL within seconds; local answers and the API are unaffected meanwhile", async () => {
  const m = await moat({ FTLCONF_dns_upstreams: `tls://dns.test@127.0.0.1:${stall.port}` });
  const t0 = performance.now();
  const pending = ask(m.dnsPort, "stalled.example.test", { timeoutMs: 10000 });
  expect(firstAddress(await ask(m.dnsPort, "local.test"))).toBe("192.0.2.5");
  expect((await m.api("/api/info/login")).status).toBe(200);
  expect((await pending).rcode).toBe("SERVFAIL");
  expect(performance.now() - t0).toBeLessThan(9000);
  await until(
    async () => /TLS handshake did not finish/.test(await logText(m)),
    5000,
    "a log line about the handshake",
  );
});

test("a DoH upstream that answers HTML: SERVFAIL and a log line saying the answer is not DNS", async () => {
  const m = await moat({ FTLCONF_dns_upstreams: `https://dns.test@127.0.0.1:${html.port}/dns-query` });
  expect((await ask(m.dnsPort, "html.example.test", { timeoutMs: 8000 })).rcode).toBe("SERVFAIL");
  await until(
    async () => /answer is not DNS \(HTTP 200, content-type "text\/html"\)/.test(await logText(m)),
    5000,
    "a log line about the HTML answer",
  );
});

test("webserver.tls.cert: the user's certificate is served with HSTS; a key of another certificate is refused with a reason", async () => {
  const good = join(ca.dir, "user.pem");
  writeFileSync(good, readFileSync(ca.keyFile, "utf8") + readFileSync(ca.certFile, "utf8"));
  const t = await startTlsMoat({ FTLCONF_webserver_tls_cert: good });
  started.push(t.moat);
  const r = await fetch(`https://127.0.0.1:${t.httpsPort}/api/info/login`, {
    tls: { ca: readFileSync(ca.caFile, "utf8"), serverName: "dns.test" },
  } as RequestInit);
  expect(r.status).toBe(200);
  expect(r.headers.get("strict-transport-security")).toMatch(/^max-age=\d+/);
  const want = Bun.spawnSync(["openssl", "x509", "-in", ca.certFile, "-noout", "-fingerprint", "-sha256"])
    .stdout.toString()
    .trim()
    .replace(/^.*=/, "");
  expect(await servedFingerprint(t.httpsPort, "dns.test")).toBe(want);

  const bad = join(ca.dir, "mismatch.pem");
  writeFileSync(bad, readFileSync(join(ca.dir, "ca.key"), "utf8") + readFileSync(ca.certFile, "utf8"));
  const t2 = await startTlsMoat({ FTLCONF_webserver_tls_cert: bad });
  started.push(t2.moat);
  await until(
    async () =>
      /webserver\.tls\.cert: .*the private key does not belong to the certificate; serving Moat's own certificate instead/.test(
        await logText(t2.moat),
      ),
    5000,
    "a log line about the key",
  );
  const own = await fetch(`https://127.0.0.1:${t2.httpsPort}/api/info/login`, {
    tls: { ca: readFileSync(t2.caFile, "utf8") },
  } as RequestInit);
  expect(own.status).toBe(200);
  expect(own.headers.get("strict-transport-security")).toBeNull();
});

test("1200 idle TLS connections from one client: Moat keeps dns.tcp.maxConnectionsPerClient of them, plain DNS, the API and DoT keep working, memory bounded", async () => {
  const t = await startTlsMoat({ FTLCONF_dns_upstreams: up.address });
  started.push(t.moat);
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${t.moat.proc!.pid}/status`, "utf8"))?.[1] ?? 0);
  const before = rss();
  const socks: Socket<undefined>[] = [];
  let closedByMoat = 0;
  for (let i = 0; i < 1200; i++) {
    socks.push(
      await Bun.connect({
        hostname: "127.0.0.1",
        port: t.dotPort,
        socket: { data() {}, close: () => void closedByMoat++, error() {} },
      }),
    );
  }
  await until(async () => closedByMoat >= 1200 - 16, 15000, "connections past the per-client limit (16) closed");
  expect(firstAddress(await ask(t.moat.dnsPort, "flood.example.test"))).toBe("192.0.2.99");
  expect((await t.moat.api("/api/info/login")).status).toBe(200);
  expect(rss() - before).toBeLessThan(150 * 1024); // KiB
  // a new connection takes the place of an idle one: DoT answers while the flood is still open
  await until(
    async () => {
      const k = await run([
        "kdig",
        "@127.0.0.1",
        "-p",
        String(t.dotPort),
        "+tls",
        `+tls-ca=${t.caFile}`,
        "+tls-hostname=pi.hole",
        "+retry=0",
        "after.example.test",
      ]);
      return k.out.includes("192.0.2.99");
    },
    10000,
    "DoT answering during the flood",
  );
  for (const s of socks) s.terminate();
}, 30000);
