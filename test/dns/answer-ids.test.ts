// Every answer source (local, blocked, cache, forwarded, stale, SERVFAIL, truncated-then-TCP) over
// UDP and TCP must echo the client's ID and question exactly as asked (letter case included): a
// client drops an answer whose ID or question differs ("ID mismatch" in dig). Several queries share
// one TCP connection, each in its own chunk and all in one chunk, so leftover bytes are covered too.
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as packet from "dns-packet";
import { startMoat, freePort, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { decodeReply, runDig, sendTcp, sendUdp, tcpFrames } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.77" });
  const dead = await freePort(); // the conditional forwarder of *.dead.test: nothing answers there
  moat = await startMoat({
    configToml: `
[dns]
upstreams = ["${up.address}"]
hosts = ["10.0.0.9 nas.ids.test"]
revServers = ["true,10.99.0.0/16,127.0.0.1#${dead},dead.test"]
[dns.cache]
optimizer = 3600
`,
  });
  const r = await moat.api("/api/domains/deny/exact", {
    method: "POST",
    body: JSON.stringify({ domain: "blocked.ids.test" }),
  });
  expect(r.status).toBe(201);
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

let nextId = 0x1234;
function query(name: string, type = "A"): { bytes: Uint8Array; id: number; name: string; type: string } {
  const id = (nextId = (nextId * 7 + 13) & 0xffff);
  const bytes = packet.encode({
    type: "query",
    id,
    flags: packet.RECURSION_DESIRED,
    questions: [{ type: type as packet.RecordType, name, class: "IN" }],
    additionals: [{ type: "OPT", name: ".", udpPayloadSize: 1232 } as packet.Answer],
  });
  return { bytes, id, name, type };
}

/** The answer is the client's: its ID, one question with the same name (letter case too), type and class. */
function checkAnswer(
  raw: Uint8Array | null | undefined,
  q: { id: number; name: string; type: string },
  rcode: string,
): void {
  expect(raw).toBeTruthy();
  const r = decodeReply(raw!);
  expect({ id: r.msg.id, questions: r.msg.questions, rcode: r.rcode }).toEqual({
    id: q.id,
    questions: [{ name: q.name, type: q.type, class: "IN" }],
    rcode,
  } as never);
}

/** Mixed case, so an answer that lowercases or rewrites the question is caught. */
const SOURCES: Array<[string, string, string, string]> = [
  ["local", "NaS.Ids.TEST", "A", "NOERROR"],
  ["blocked", "BlOcKeD.ids.test", "A", "NOERROR"],
  ["forwarded", "FwD-%.Ids.Test", "A", "NOERROR"],
  ["nxdomain", "Nx-%.Ids.Test", "A", "NXDOMAIN"],
  ["upstream SERVFAIL", "ServFail-%.Ids.Test", "A", "SERVFAIL"],
  ["no upstream answers (SERVFAIL)", "X%.Dead.Test", "A", "SERVFAIL"],
  ["truncated upstream answer fetched over TCP", "Big-%.Ids.Test", "TXT", "NOERROR"],
];

for (const tcp of [false, true]) {
  const via = tcp ? "TCP" : "UDP";
  for (const [what, pattern, type, rcode] of SOURCES) {
    test(`${via}: ${what}: answer carries the query's ID and question; a second ask (cache) does too`, async () => {
      const name = pattern.replace("%", via);
      for (let round = 0; round < 2; round++) {
        const q = query(name, type);
        const raw = tcp
          ? (await sendTcp(moat.dnsPort, [q.bytes], 1, 8000))[0]
          : await sendUdp(moat.dnsPort, q.bytes, "127.0.0.1", 8000);
        if (!tcp && what.startsWith("truncated")) {
          // too big for UDP: TC and the question, then the client comes back over TCP
          checkAnswer(raw, q, rcode);
          expect(decodeReply(raw!).msg.flags! & 0x200).toBe(0x200);
          continue;
        }
        checkAnswer(raw, q, rcode);
      }
    });
  }
}

test("stale answers (serve-stale) carry the query's ID and question over UDP and TCP", async () => {
  for (const tcp of [false, true]) {
    const name = `TtL1-Stale-${tcp ? "Tcp" : "Udp"}.Ids.Test`;
    await sendUdp(moat.dnsPort, query(name).bytes);
    await Bun.sleep(2100);
    const q = query(name);
    const raw = tcp ? (await sendTcp(moat.dnsPort, [q.bytes]))[0] : await sendUdp(moat.dnsPort, q.bytes);
    checkAnswer(raw, q, "NOERROR");
  }
});

test("TCP: many pipelined queries of every source in one write, and one byte per write, all match", async () => {
  const names = [
    "NAS.ids.test",
    "blocked.IDS.test",
    "Pipe-1.Ids.Test",
    "PIPE-1.ids.test",
    "nx-Pipe.Ids.Test",
    "Pipe-2.Ids.Test",
  ];
  const qs = names.map((n) => query(n));
  const answers = await sendTcp(
    moat.dnsPort,
    qs.map((q) => q.bytes),
    qs.length,
    8000,
  );
  expect(answers.length).toBe(qs.length);
  const byId = new Map(answers.map((a) => [decodeReply(a).msg.id, a]));
  for (const q of qs) checkAnswer(byId.get(q.id), q, q.name.startsWith("nx-") ? "NXDOMAIN" : "NOERROR");

  // the same over a connection that delivers one byte per chunk: leftovers between chunks
  const q2 = [query("Trickle-1.Ids.Test"), query("NaS.IDS.test")];
  const framed = q2.flatMap((q) => [q.bytes.length >> 8, q.bytes.length & 0xff, ...q.bytes]);
  const got: Uint8Array[] = [];
  const frames = tcpFrames();
  const sock = await Bun.connect({
    hostname: "127.0.0.1",
    port: moat.dnsPort,
    socket: {
      data(_s, chunk) {
        got.push(...frames(chunk));
      },
    },
  });
  for (const b of framed) {
    sock.write(new Uint8Array([b]));
    sock.flush();
    await Bun.sleep(1);
  }
  const deadline = Date.now() + 8000;
  while (got.length < 2 && Date.now() < deadline) await Bun.sleep(20);
  sock.end();
  const ids = new Map(got.map((a) => [decodeReply(a).msg.id, a]));
  for (const q of q2) checkAnswer(ids.get(q.id), q, "NOERROR");
});

test("dig +tcp accepts forwarded, cached and local answers (no ID mismatch)", async () => {
  for (const name of ["Dig-Tcp.Ids.Test", "Dig-Tcp.Ids.Test", "nas.ids.test", "Big-Dig.Ids.Test"]) {
    const out = await runDig([
      "+tcp",
      "+tries=1",
      "+time=5",
      "@127.0.0.1",
      "-p",
      String(moat.dnsPort),
      name,
      name.startsWith("Big") ? "TXT" : "A",
    ]);
    expect(out).not.toContain("mismatch");
    expect(out).toContain("status: NOERROR");
  }
  // the UDP answer is truncated: dig retries over TCP by itself
  const out = await runDig([
    "+tries=1",
    "+time=5",
    "@127.0.0.1",
    "-p",
    String(moat.dnsPort),
    "Big-Fallback.Ids.Test",
    "TXT",
  ]);
  expect(out).toContain("Truncated, retrying in TCP mode");
  expect(out).not.toContain("mismatch");
  expect(out).toContain("ANSWER: 40");
});

test("EDNS version 1 gets BADVERS (extended rcode 16) with OPT version 0, over UDP and TCP, and is not answered otherwise", async () => {
  for (const tcp of [false, true]) {
    const id = 0x4242 + (tcp ? 1 : 0);
    const bytes = packet.encode({
      type: "query",
      id,
      flags: packet.RECURSION_DESIRED,
      questions: [{ type: "A", name: "Vers.Ids.Test", class: "IN" }],
      additionals: [{ type: "OPT", name: ".", udpPayloadSize: 1232, ednsVersion: 1 } as packet.Answer],
    });
    const raw = tcp ? (await sendTcp(moat.dnsPort, [bytes]))[0] : await sendUdp(moat.dnsPort, bytes);
    expect(raw).toBeTruthy();
    const r = decodeReply(raw!);
    const opt = r.msg.additionals!.find((a) => a.type === "OPT") as unknown as {
      extendedRcode: number;
      ednsVersion: number;
    };
    expect({
      id: r.msg.id,
      q: r.msg.questions,
      low: raw![3]! & 0xf,
      ext: opt.extendedRcode,
      version: opt.ednsVersion,
      answers: r.answers.length,
    }).toEqual({
      id,
      q: [{ name: "Vers.Ids.Test", type: "A", class: "IN" }],
      low: 0,
      ext: 1,
      version: 0,
      answers: 0,
    } as never);
  }
  expect(up.count("vers.ids.test")).toBe(0);
  const dig = await runDig([
    "+edns=1",
    "+noednsnegotiation",
    "+tries=1",
    "+time=5",
    "@127.0.0.1",
    "-p",
    String(moat.dnsPort),
    "vers.ids.test",
  ]);
  expect(dig).toContain("status: BADVERS");
});
