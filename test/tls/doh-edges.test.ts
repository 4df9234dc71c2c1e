// DNS over HTTPS at its edges, driven by raw clients (node:http2, TLS with hand-made HTTP/2 frames):
// a body larger than one DNS message that never ends gets its 413 at once; a DNS message followed by
// other bytes is FORMERR over DoH (RFC 8484 §4.1: the body is one message) while UDP and TCP answer
// it as unbound does and pass on only the message; connections that never finish their HTTP/2
// HEADERS block are closed as slow HTTP/1.1 headers are.
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as http2 from "node:http2";
import * as tls from "node:tls";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as packet from "dns-packet";
import type { Subprocess, udp } from "bun";
import { freePort } from "../harness/moat.ts";
import { decodeReply, encodeQuery, firstAddress, sendTcp, sendUdp, type Reply } from "../dns/helpers.ts";
import { run, startTlsMoat, type TlsMoat } from "./helpers.ts";

let t: TlsMoat;
let ca: string;
/** an upstream as strict as BIND: FORMERR for a query with bytes after its message */
let strict: udp.Socket<"buffer">;
let unbound: Subprocess;
let unboundPort: number;
const strictSeen: number[] = [];

beforeAll(async () => {
  strict = await Bun.udpSocket({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(s, buf, port, addr) {
        const q = packet.decode(buf);
        const extra = buf.length - packet.decode.bytes;
        strictSeen.push(extra);
        const a = packet.encode({
          id: q.id,
          type: "response",
          flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | (extra ? 1 : 0), // rcode 1: FORMERR
          questions: q.questions,
          answers: extra ? [] : [{ name: q.questions![0]!.name, type: "A", ttl: 60, data: "192.0.2.44" }],
        } as packet.Packet);
        s.send(a, port, addr);
      },
    },
  });
  t = await startTlsMoat({
    FTLCONF_dns_upstreams: `127.0.0.1#${strict.port}`,
    FTLCONF_dns_hosts: "192.0.2.5 local.test",
  });
  ca = readFileSync(t.caFile, "utf8");
  // unbound beside it, answering the same local name, for what UDP and TCP should do
  unboundPort = await freePort();
  const dir = t.caFile.replace(/\/[^/]+$/, "");
  const conf = join(dir, "unbound.conf");
  writeFileSync(
    conf,
    `server:\n  interface: 127.0.0.1\n  port: ${unboundPort}\n  do-ip6: no\n  chroot: ""\n  username: ""\n  directory: "${dir}"\n  pidfile: ""\n  use-syslog: no\n  logfile: ""\n  local-zone: "local.test." static\n  local-data: "local.test. A 192.0.2.5"\n`,
  );
  unbound = Bun.spawn(["unbound", "-d", "-c", conf], { stdout: "ignore", stderr: "ignore" });
  for (let i = 0; i < 100 && !(await sendUdp(unboundPort, encodeQuery("local.test"), "127.0.0.1", 200)); i++);
});

afterAll(async () => {
  unbound?.kill();
  await unbound?.exited;
  await t?.moat.dispose();
  strict?.close();
});

function h2session(): http2.ClientHttp2Session {
  const c = http2.connect(`https://127.0.0.1:${t.httpsPort}`, { ca, servername: "pi.hole" });
  c.on("error", () => {});
  return c;
}

/** One HTTP/2 request; `end` false leaves the request body unfinished (no END_STREAM). */
function h2request(
  c: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  body: Uint8Array | null,
  end = true,
  timeoutMs = 5000,
): Promise<{ status: number | null; body: Uint8Array; reset: boolean; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const r = c.request(headers);
    let status: number | null = null;
    const chunks: Buffer[] = [];
    const done = (reset: boolean) =>
      resolve({ status, body: new Uint8Array(Buffer.concat(chunks)), reset, ms: performance.now() - t0 });
    r.on("response", (h) => (status = Number(h[":status"])));
    r.on("data", (d: Buffer) => chunks.push(d));
    r.on("end", () => done(false));
    r.on("error", () => done(true));
    r.on("close", () => done(r.rstCode !== http2.constants.NGHTTP2_NO_ERROR));
    setTimeout(() => {
      r.close();
      done(false);
    }, timeoutMs);
    if (body && end) r.end(Buffer.from(body));
    else if (body) r.write(Buffer.from(body));
    else r.end();
  });
}

test("a POST body over 65,535 bytes that never ends gets 413 at once, and the connection still answers", async () => {
  const c = h2session();
  const big = await h2request(
    c,
    { ":method": "POST", ":path": "/dns-query", "content-type": "application/dns-message" },
    new Uint8Array(70000),
    false,
  );
  expect(big.status === 413 || big.reset).toBe(true);
  expect(big.ms).toBeLessThan(3000);
  // the same connection: a real query is answered
  const q = encodeQuery("local.test");
  const ok = await h2request(
    c,
    { ":method": "POST", ":path": "/dns-query", "content-type": "application/dns-message" },
    q,
  );
  expect(ok.status).toBe(200);
  const a = decodeReply(ok.body);
  expect([a.msg.id, a.msg.type, a.rcode, a.msg.questions![0]!.name]).toEqual([
    decodeReply(q).msg.id,
    "response",
    "NOERROR",
    "local.test",
  ]);
  c.close();
});

function withGarbage(q: Uint8Array): Uint8Array {
  const g = new Uint8Array(q.length + 7);
  g.set(q);
  g.set([0xde, 0xad, 0xbe, 0xef, 1, 2, 3], q.length);
  return g;
}

function expectAnswer(r: Reply, q: Uint8Array, rcode: string): void {
  expect([r.msg.id, r.msg.type, r.rcode, r.msg.questions![0]!.name]).toEqual([
    decodeReply(q).msg.id,
    "response",
    rcode,
    decodeReply(q).msg.questions![0]!.name,
  ]);
}

test.skipIf(!Bun.which("curl"))(
  "curl's POST of 70,000 bytes over HTTP/2 gets its 413 whole, not a stream reset",
  async () => {
    const file = join(t.caFile.replace(/\/[^/]+$/, ""), "big-query.bin");
    writeFileSync(file, new Uint8Array(70000));
    const r = await run([
      "curl",
      "-sS",
      "--http2",
      "--cacert",
      t.caFile,
      "--resolve",
      `pi.hole:${t.httpsPort}:127.0.0.1`,
      "-o",
      "-",
      "-w",
      "%{http_version} %{http_code}",
      "-H",
      "content-type: application/dns-message",
      "--data-binary",
      `@${file}`,
      `https://pi.hole:${t.httpsPort}/dns-query`,
    ]);
    expect(r.out).toBe("larger than one DNS message\n2 413");
    expect(r.code).toBe(0);
  },
);

test("a DNS message followed by other bytes: FORMERR over DoH (POST and GET)", async () => {
  const c = h2session();
  for (const name of ["local.test", "fwd-doh.example.test"]) {
    const q = encodeQuery(name);
    const post = await h2request(
      c,
      { ":method": "POST", ":path": "/dns-query", "content-type": "application/dns-message" },
      withGarbage(q),
    );
    expect(post.status).toBe(200);
    expectAnswer(decodeReply(post.body), q, "FORMERR");
    const get = await h2request(
      c,
      { ":method": "GET", ":path": `/dns-query?dns=${Buffer.from(withGarbage(q)).toString("base64url")}` },
      null,
    );
    expect(get.status).toBe(200);
    expectAnswer(decodeReply(get.body), q, "FORMERR");
  }
  c.close();
});

test("over UDP and TCP the same bytes are answered as unbound answers them; the upstream gets the message alone", async () => {
  const q = encodeQuery("local.test");
  for (const port of [unboundPort, t.moat.dnsPort]) {
    expectAnswer(decodeReply((await sendUdp(port, withGarbage(q)))!), q, "NOERROR");
    expectAnswer(decodeReply((await sendTcp(port, [withGarbage(q)]))[0]!), q, "NOERROR");
  }
  strictSeen.length = 0;
  const f = encodeQuery("fwd-udp.example.test");
  const u = decodeReply((await sendUdp(t.moat.dnsPort, withGarbage(f)))!);
  expectAnswer(u, f, "NOERROR");
  expect(firstAddress(u)).toBe("192.0.2.44");
  const f2 = encodeQuery("fwd-tcp.example.test");
  expectAnswer(decodeReply((await sendTcp(t.moat.dnsPort, [withGarbage(f2)]))[0]!), f2, "NOERROR");
  expect(strictSeen).toEqual([0, 0]);
});

/** An HTTP/2 frame (RFC 9113 §4.1). */
function frame(type: number, flags: number, stream: number, payload: number[]): Buffer {
  const b = Buffer.alloc(9 + payload.length);
  b.writeUIntBE(payload.length, 0, 3);
  b[3] = type;
  b[4] = flags;
  b.writeUInt32BE(stream, 5);
  Buffer.from(payload).copy(b, 9);
  return b;
}

/** A TLS connection that speaks HTTP/2 and starts a HEADERS block it never ends; resolves when it opened. */
function slowHeaders(openedAt: number[], closedAt: number[], i: number): Promise<tls.TLSSocket> {
  return new Promise((resolve) => {
    const s = tls.connect(
      { host: "127.0.0.1", port: t.httpsPort, ca, servername: "pi.hole", ALPNProtocols: ["h2"] },
      () => {
        s.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        s.write(frame(4, 0, 0, [])); // SETTINGS
        // HEADERS on stream 1 with END_STREAM but no END_HEADERS (:method GET, :scheme https):
        // a CONTINUATION must follow, and never does
        s.write(frame(1, 0x1, 1, [0x82, 0x87]));
        openedAt[i] = performance.now();
        resolve(s);
      },
    );
    s.on("data", () => {});
    s.on("error", () => {});
    s.on("close", () => (closedAt[i] = performance.now()));
  });
}

test("2,000 HTTP/2 connections that never finish their HEADERS block are closed within 25 s; DoH answers meanwhile", async () => {
  const N = 2000;
  const openedAt: number[] = new Array(N).fill(0);
  const closedAt: number[] = new Array(N).fill(0);
  const socks: tls.TLSSocket[] = [];
  const t0 = performance.now();
  for (let i = 0; i < N; i += 100) {
    socks.push(...(await Promise.all(Array.from({ length: 100 }, (_, k) => slowHeaders(openedAt, closedAt, i + k)))));
  }
  // meanwhile a DoH client is answered
  const q = encodeQuery("local.test");
  const c = h2session();
  const ok = await h2request(
    c,
    { ":method": "POST", ":path": "/dns-query", "content-type": "application/dns-message" },
    q,
  );
  expect(ok.status).toBe(200);
  expectAnswer(decodeReply(ok.body), q, "NOERROR");
  c.close();
  // Bun never closes an idle connection before its idle timeout (30 s before this change)
  while (closedAt.some((x) => x === 0) && performance.now() - t0 < 60000) await Bun.sleep(250);
  for (const s of socks) s.destroy();
  const open = closedAt.filter((x) => x === 0).length;
  const lives = closedAt.map((x, i) => x - openedAt[i]!);
  const longest = Math.max(...lives);
  expect({ open, longestUnder25s: longest < 25000 }).toEqual({ open: 0, longestUnder25s: true });
  // and none was cut before a slow client had a fair chance (Bun's idle timer moves in 4 s steps)
  expect(Math.min(...lives)).toBeGreaterThan(10000);
}, 90000);
