// A client that writes its queries over TCP and then shuts down its writing side (shutdown(SHUT_WR), as
// some stub resolvers and load balancers do) still gets every answer, forwarded ones included, before
// the server closes: RFC 7766 §6.2.4 lets the server close only once it has sent what it owes, and a
// FIN from the client means "no more queries", not "no more answers". The raw clients below are
// node:net and node:tls sockets with allowHalfOpen, so the half-close is a real FIN on the wire.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import * as packet from "dns-packet";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { startTlsMoat, type TlsMoat } from "../tls/helpers.ts";
import { decodeReply, encodeQuery, tcpFrames } from "./helpers.ts";

const FWD = "192.0.2.61";
let moat: MoatProcess;
let dot: TlsMoat;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: FWD });
  moat = await startMoat({ configToml: `[dns]\nupstreams = ["${up.address}"]\n` });
  dot = await startTlsMoat({ FTLCONF_dns_upstreams: up.address });
});
afterAll(async () => {
  await moat?.dispose();
  await dot?.moat.dispose();
  await up?.stop();
});

function framed(msgs: Uint8Array[]): Buffer {
  return Buffer.concat(msgs.map((m) => Buffer.concat([Buffer.from([m.length >> 8, m.length & 0xff]), m])));
}

/**
 * Writes the framed queries, half-closes, and collects the answers until the server closes (or `timeoutMs`).
 * `serverClosed` tells whether the server ended the connection by itself.
 */
async function halfClose(
  sock: Socket,
  msgs: Uint8Array[],
  timeoutMs = 5000,
): Promise<{ answers: Uint8Array[]; serverClosed: boolean }> {
  const frames = tcpFrames();
  const answers: Uint8Array[] = [];
  let serverClosed = false;
  const done = new Promise<void>((resolve) => {
    sock.on("data", (chunk: Buffer) => answers.push(...frames(new Uint8Array(chunk))));
    sock.on("end", () => {
      serverClosed = true;
      resolve();
    });
    sock.on("close", () => resolve());
    sock.on("error", () => resolve());
  });
  sock.write(framed(msgs));
  sock.end(); // FIN: no more queries from this side
  await Promise.race([done, Bun.sleep(timeoutMs)]);
  sock.destroy();
  return { answers, serverClosed };
}

function tcpSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = netConnect({ host: "127.0.0.1", port, allowHalfOpen: true }, () => resolve(s));
    s.once("error", reject);
  });
}

/** Every query answered once, by ID, with its own question, NOERROR, RA, and the upstream's address. */
function expectForwarded(queries: Uint8Array[], answers: Uint8Array[]): void {
  expect(answers.length).toBe(queries.length);
  const byId = new Map(answers.map((a) => [decodeReply(a).msg.id, decodeReply(a)]));
  for (const q of queries) {
    const sent = packet.decode(Buffer.from(q));
    const r = byId.get(sent.id!);
    expect(r).toBeTruthy();
    expect(r!.msg.questions).toEqual(sent.questions);
    expect(r!.rcode).toBe("NOERROR");
    expect(r!.msg.flags! & packet.RECURSION_AVAILABLE).toBeTruthy();
    expect(r!.answers.map((a) => [a.type, (a as { data: unknown }).data])).toEqual([["A", FWD]]);
  }
}

describe("DNS over TCP, then shutdown(SHUT_WR)", () => {
  test("a forwarded name is answered after the client's FIN, and then the server closes", async () => {
    const q = encodeQuery(`half-${Date.now()}.example.test`);
    const r = await halfClose(await tcpSocket(moat.dnsPort), [q]);
    expectForwarded([q], r.answers);
    expect(r.serverClosed).toBe(true);
  });

  test("a slow upstream (400 ms) and pipelined queries: all answered before the close", async () => {
    const qs = [
      encodeQuery(`slow-a${Date.now()}.example.test`),
      encodeQuery(`half-b${Date.now()}.example.test`),
      encodeQuery(`slow-c${Date.now()}.example.test`),
    ];
    const r = await halfClose(await tcpSocket(moat.dnsPort), qs);
    expectForwarded(qs, r.answers);
    expect(r.serverClosed).toBe(true);
  });

  test("a cached name still comes back, and a connection with nothing owed closes at once", async () => {
    const name = `cached-${Date.now()}.example.test`;
    const first = encodeQuery(name);
    expectForwarded([first], (await halfClose(await tcpSocket(moat.dnsPort), [first])).answers);
    const q = encodeQuery(name);
    const again = await halfClose(await tcpSocket(moat.dnsPort), [q]);
    expectForwarded([q], again.answers);
    const t0 = performance.now();
    const empty = await halfClose(await tcpSocket(moat.dnsPort), []);
    expect([empty.answers.length, empty.serverClosed]).toEqual([0, true]);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe("DNS over TLS, then shutdown(SHUT_WR)", () => {
  test("a forwarded name is answered after the client's FIN", async () => {
    const sock = await new Promise<Socket>((resolve, reject) => {
      const s = tlsConnect(
        {
          host: "127.0.0.1",
          port: dot.dotPort,
          servername: "pi.hole",
          ca: readFileSync(dot.caFile),
          allowHalfOpen: true,
        },
        () => resolve(s),
      );
      s.once("error", reject);
    });
    const q = encodeQuery(`slow-dot${Date.now()}.example.test`);
    const r = await halfClose(sock, [q]);
    expectForwarded([q], r.answers);
  });
});
