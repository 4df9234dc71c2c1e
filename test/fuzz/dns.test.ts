// DNS fuzzer against the real server: random, mutated and garbage packets over UDP (from several
// client addresses) and TCP (pipelined, and with broken framing). Every answer must parse, be a
// response, echo the ID and the question (test/fuzz/dns-packets.ts judgeAnswer); a packet too
// short for a header or itself a response must get none; the server must survive and answer
// correctly afterwards, with no handler error in its log. A short run with a fixed seed in CI;
// MOAT_FUZZ_LONG=1 runs a million UDP and 100,000 TCP packets (MOAT_FUZZ_SEED picks another seed).
// Every loop is bounded in count and in time.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Socket } from "bun";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, encodeQuery, firstAddress } from "../dns/helpers.ts";
import { PacketMaker, judgeAnswer, mustNotAnswer } from "./dns-packets.ts";
import { rng } from "../harness/rng.ts";

const LONG = process.env.MOAT_FUZZ_LONG === "1";
const SEED = Number(process.env.MOAT_FUZZ_SEED ?? 20261125);
const UDP_PACKETS = LONG ? 1_000_000 : 12_000;
const TCP_MESSAGES = LONG ? 100_000 : 1_500;
const UDP_BUDGET_MS = LONG ? 40 * 60_000 : 15_000;
const TCP_BUDGET_MS = LONG ? 20 * 60_000 : 10_000;

let moat: MoatProcess;
let up: Upstream;
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${moat.proc!.pid}/status`, "utf8"))![1]) / 1024;
/** lines a handler error or a crash leaves in the server's output */
const troubles = () =>
  moat.output
    .split("\n")
    .filter((l) => /TypeError|RangeError|ReferenceError|SyntaxError|Unhandled|panic|query .*: /.test(l));

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.123" });
  moat = await startMoat({
    configToml: `
[dns]
upstreams = ["${up.address}"]
hosts = ["10.0.0.1 local.fuzz.test"]
cnameRecords = ["alias.fuzz.test,local.fuzz.test"]
[dns.rateLimit]
count = 0
[dns.ecs]
trustedSources = ["127.0.0.0/8"]
`,
  });
  const r = await moat.api("/api/domains/deny/exact", {
    method: "POST",
    body: JSON.stringify({ domain: "blocked.fuzz.test" }),
  });
  expect(r.status).toBe(201);
  await moat.api("/api/domains/deny/regex", {
    method: "POST",
    body: JSON.stringify({ domain: "^ad[[:digit:]]+\\.|(^|\\.)evil\\." }),
  });
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

interface Tally {
  sent: number;
  answered: number;
  bad: string[];
  badCount: number;
}

function check(t: Tally, query: Uint8Array, answer: Uint8Array): void {
  t.answered++;
  const why = mustNotAnswer(query) ? "answered a packet that needs no answer" : judgeAnswer(query, answer);
  if (!why) return;
  t.badCount++;
  if (t.bad.length < 5)
    t.bad.push(`${why}: query ${Buffer.from(query).toString("hex")} answer ${Buffer.from(answer).toString("hex")}`);
}

async function survives(): Promise<void> {
  expect(moat.proc!.exitCode).toBeNull();
  expect(firstAddress(await ask(moat.dnsPort, "Local.Fuzz.Test"))).toBe("10.0.0.1");
  expect(firstAddress(await ask(moat.dnsPort, "after-fuzz.fuzz.test", { tcp: true }))).toBe("192.0.2.123");
  expect(troubles()).toEqual([]);
}

test(
  `UDP: ${UDP_PACKETS} random, mutated and garbage packets from 4 clients; every answer echoes ID and question`,
  async () => {
    const make = new PacketMaker(rng(SEED));
    const t: Tally = { sent: 0, answered: 0, bad: [], badCount: 0 };
    const rss0 = rssMb();
    let unexpected = 0;
    let canary: ((id: number) => void) | null = null;
    const socks = await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        const inFlight = new Map<number, Uint8Array>();
        const sock = await Bun.udpSocket({
          hostname: `127.0.0.${n}`,
          port: 0,
          binaryType: "uint8array",
          socket: {
            data: (_s, buf) => {
              const id = buf.length >= 2 ? (buf[0]! << 8) | buf[1]! : -1;
              if (id === 0xffff && canary) return canary(n);
              const q = inFlight.get(id);
              if (!q) return void unexpected++;
              inFlight.delete(id);
              check(t, q, buf.slice());
            },
            error: () => {},
          },
        });
        return { sock, inFlight, n };
      }),
    );
    const t0 = Date.now();
    let id = 0;
    while (t.sent < UDP_PACKETS && Date.now() - t0 < UDP_BUDGET_MS) {
      for (let i = 0; i < 64; i++) {
        const s = socks[make.int(4)]!;
        const p = make.next().bytes;
        id = (id + 1) % 0xffff; // 0xffff is the canary's
        if (p.length >= 2) {
          p[0] = id >> 8;
          p[1] = id & 0xff;
          s.inFlight.set(id, p);
        }
        s.sock.send(p, moat.dnsPort, "127.0.0.1");
        t.sent++;
      }
      // the server handles a socket's datagrams in order: the canary's answer means the batch was read
      const c = encodeQuery("local.fuzz.test");
      c[0] = c[1] = 0xff;
      const done = new Promise<void>((res) => (canary = () => res()));
      socks[0]!.sock.send(c, moat.dnsPort, "127.0.0.1");
      await Promise.race([done, Bun.sleep(2000)]);
    }
    await Bun.sleep(2000); // forwarded answers (and SERVFAIL after the upstream timeout) still on their way
    for (const s of socks) s.sock.close();
    const rss1 = rssMb();
    console.log(
      `fuzz UDP seed ${SEED}: ${t.sent} packets in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${t.answered} answers, ${t.badCount} bad, ${unexpected} unexpected, RSS ${rss0.toFixed(0)} → ${rss1.toFixed(0)} MB`,
    );
    expect(t.bad).toEqual([]);
    expect(unexpected).toBe(0);
    expect(t.answered).toBeGreaterThan(t.sent * 0.3);
    await survives();
  },
  LONG ? UDP_BUDGET_MS + 60_000 : 30_000,
);

test(
  `TCP: ${TCP_MESSAGES} messages pipelined on many connections, some with broken framing; every answer echoes ID and question`,
  async () => {
    const make = new PacketMaker(rng(SEED + 1));
    const t: Tally = { sent: 0, answered: 0, bad: [], badCount: 0 };
    const rss0 = rssMb();
    let unexpected = 0,
      conns = 0,
      canaryLost = 0,
      unanswered = 0;
    const t0 = Date.now();
    const one = async (): Promise<void> => {
      const msgs = new Map<number, Uint8Array>();
      let buf = new Uint8Array(0);
      let canaryDone: () => void = () => {};
      const done = new Promise<void>((res) => (canaryDone = res));
      const sock: Socket<undefined> | null = await Bun.connect({
        hostname: "127.0.0.1",
        port: moat.dnsPort,
        socket: {
          data: (_s, chunk) => {
            const n = new Uint8Array(buf.length + chunk.length);
            n.set(buf);
            n.set(chunk, buf.length);
            buf = n;
            while (buf.length >= 2 && buf.length >= 2 + ((buf[0]! << 8) | buf[1]!)) {
              const a = buf.slice(2, 2 + ((buf[0]! << 8) | buf[1]!));
              buf = buf.subarray(2 + a.length);
              const id = a.length >= 2 ? (a[0]! << 8) | a[1]! : -1;
              if (id === 0xffff) canaryDone();
              else if (msgs.has(id)) {
                check(t, msgs.get(id)!, a);
                msgs.delete(id);
              } else unexpected++;
            }
          },
          close: () => canaryDone(),
          error: () => canaryDone(),
        },
      }).catch(() => null);
      if (!sock) return;
      conns++;
      const count = 1 + make.int(20);
      const out: number[] = [];
      for (let i = 0; i < count; i++) {
        const p = make.next().bytes;
        if (p.length >= 2) {
          p[0] = 0;
          p[1] = i;
          msgs.set(i, p);
        }
        out.push(p.length >> 8, p.length & 0xff, ...p);
        t.sent++;
      }
      const broken = make.int(10) === 0;
      if (broken) {
        // a length the bytes that follow never fill, then the connection ends
        const len = 100 + make.int(65000);
        out.push(len >> 8, len & 0xff, ...Array.from({ length: make.int(90) }, () => make.int(256)));
      } else {
        const c = encodeQuery("local.fuzz.test");
        c[0] = c[1] = 0xff;
        out.push(c.length >> 8, c.length & 0xff, ...c);
      }
      // now in one write, now in pieces
      const bytes = new Uint8Array(out);
      if (make.int(2) === 0) sock.write(bytes);
      else {
        for (let o = 0, step = 1; o < bytes.length; o += step) {
          step = 1 + make.int(50);
          sock.write(bytes.subarray(o, o + step));
        }
      }
      if (broken) {
        await Bun.sleep(20);
        sock.end();
        return;
      }
      if ((await Promise.race([done.then(() => true), Bun.sleep(3000).then(() => false)])) === false) canaryLost++;
      // forwarded answers may follow the canary's: wait for every answer owed (an upstream that
      // never answers costs the forwarder's timeout, then SERVFAIL), bounded
      const owed = () => [...msgs.values()].filter((m) => !mustNotAnswer(m)).length;
      for (let waited = 0; owed() > 0 && waited < 3000; waited += 20) await Bun.sleep(20);
      unanswered += owed();
      sock.end();
    };
    while (t.sent < TCP_MESSAGES && Date.now() - t0 < TCP_BUDGET_MS) await Promise.all(Array.from({ length: 8 }, one));
    const rss1 = rssMb();
    console.log(
      `fuzz TCP seed ${SEED + 1}: ${t.sent} messages on ${conns} connections in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${t.answered} answers, ${t.badCount} bad, ${unexpected} unexpected, ${canaryLost} canaries lost, ${unanswered} unanswered, RSS ${rss0.toFixed(0)} → ${rss1.toFixed(0)} MB`,
    );
    expect(t.bad).toEqual([]);
    expect(unexpected).toBe(0);
    // on every connection with whole framing, each message that is a query gets its answer
    expect(canaryLost).toBe(0);
    expect(unanswered).toBe(0);
    expect(t.answered).toBeGreaterThan(t.sent * 0.5);
    await survives();
  },
  LONG ? TCP_BUDGET_MS + 60_000 : 30_000,
);
