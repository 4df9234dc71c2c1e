// Attack: DNS over TCP must not let connections exhaust the server. Hundreds of trickling
// connections from many addresses, or many from one, leave room for real clients and the API
// (dns.tcp.maxConnections / maxConnectionsPerClient); a message trickled for too long is cut off;
// eight 64 KiB messages sent one byte per write are buffered once each (RSS stays flat).
// Every loop is bounded in count and time.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import * as packet from "dns-packet";
import type { Socket } from "bun";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { decodeReply, encodeQuery, sendTcp, until } from "./helpers.ts";

const MAX = 64,
  PER_CLIENT = 8;
let moat: MoatProcess;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.99" });
  moat = await startMoat({
    configToml: `
[dns]
upstreams = ["${up.address}"]
[dns.tcp]
maxConnections = ${MAX}
maxConnectionsPerClient = ${PER_CLIENT}
`,
  });
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

const fds = () => readdirSync(`/proc/${moat.proc!.pid}/fd`).length;
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${moat.proc!.pid}/status`, "utf8"))![1]) / 1024;

interface Conn {
  sock: Socket<undefined> | null;
  closed: boolean;
  data: Uint8Array[];
}

/** Opens a connection from `from` and sends `first` (if any); notes when the server closes it. */
async function connect(from: string, first?: Uint8Array): Promise<Conn> {
  const c: Conn = { sock: null, closed: false, data: [] };
  c.sock = await Bun.connect({
    hostname: "127.0.0.1",
    port: moat.dnsPort,
    ...{ localAddress: from }, // Bun binds it; its types do not list it
    socket: {
      data: (_s, chunk) => void c.data.push(new Uint8Array(chunk)),
      close: () => void (c.closed = true),
      error: () => void (c.closed = true),
    },
  }).catch(() => null);
  if (!c.sock) c.closed = true;
  else if (first) c.sock.write(first);
  return c;
}

const stillOpen = (cs: Conn[]) => cs.filter((c) => !c.closed).length;

async function tcpQuery(name: string, from?: string): Promise<void> {
  const q = encodeQuery(name);
  const [a] = await sendTcp(moat.dnsPort, [q], 1, 8000, from);
  expect(a).toBeTruthy();
  const r = decodeReply(a!);
  expect([r.msg.id, r.msg.questions![0]!.name, r.rcode]).toEqual([packet.decode(Buffer.from(q)).id, name, "NOERROR"]);
}

test("hundreds of trickling connections from 50 addresses: the server keeps at most the limit, and still answers TCP and the API", async () => {
  const fdsBefore = fds();
  const attackers: Conn[] = [];
  for (let a = 0; a < 50; a++) {
    const from = `127.0.3.${a + 1}`;
    // one byte of a length: a message that never comes
    attackers.push(...(await Promise.all(Array.from({ length: 8 }, () => connect(from, new Uint8Array([0]))))));
  }
  await until(async () => stillOpen(attackers) <= MAX, 10000, "the server to keep at most the limit");
  expect(fds() - fdsBefore).toBeLessThanOrEqual(MAX + 8);
  await tcpQuery("Legit-1.Tcp.Test");
  expect((await moat.api("/api/info/login")).status).toBe(200);
  // while the attack goes on: a new round of connections, and a real client still gets through
  for (let a = 0; a < 10; a++) attackers.push(await connect(`127.0.4.${a + 1}`, new Uint8Array([0])));
  await tcpQuery("Legit-2.Tcp.Test", "127.0.0.9");
  expect(stillOpen(attackers)).toBeLessThanOrEqual(MAX);
  // a real client that connects and asks a moment later keeps its place while new attackers arrive
  const slowStarter = await connect("127.0.0.10");
  for (let a = 0; a < 20; a++) attackers.push(await connect(`127.0.8.${a + 1}`, new Uint8Array([0])));
  const q = encodeQuery("Late-Asker.Tcp.Test");
  slowStarter.sock!.write(new Uint8Array([q.length >> 8, q.length & 0xff, ...q]));
  await until(async () => slowStarter.data.length > 0 || slowStarter.closed, 8000, "the late asker's answer");
  expect(slowStarter.closed).toBe(false);
  expect(decodeReply(slowStarter.data[0]!.subarray(2)).msg.questions![0]!.name).toBe("Late-Asker.Tcp.Test");
  slowStarter.sock!.terminate();
  for (const c of attackers) c.sock?.terminate();
});

test("one client opening many connections keeps at most its share; its newest connection works", async () => {
  const mine: Conn[] = [];
  for (let i = 0; i < 3 * PER_CLIENT; i++) mine.push(await connect("127.0.5.1"));
  await until(async () => stillOpen(mine) <= PER_CLIENT, 10000, "the per-client limit");
  const last = mine[mine.length - 1]!;
  expect(last.closed).toBe(false);
  const q = encodeQuery("Mine.Tcp.Test");
  last.sock!.write(new Uint8Array([q.length >> 8, q.length & 0xff, ...q]));
  await until(async () => last.data.length > 0, 8000, "the answer");
  expect(decodeReply(last.data[0]!.subarray(2)).msg.questions![0]!.name).toBe("Mine.Tcp.Test");
  for (const c of mine) c.sock?.terminate();
});

test("a message trickled for longer than 10 s is cut off", async () => {
  const c = await connect("127.0.6.1", new Uint8Array([0, 40]));
  const deadline = Date.now() + 16000;
  // a byte every 500 ms keeps the idle timer alive, but the message never completes
  for (let i = 0; i < 30 && !c.closed && Date.now() < deadline; i++) {
    c.sock!.write(new Uint8Array([0]));
    await Bun.sleep(500);
  }
  expect(c.closed).toBe(true);
}, 20000);

test("eight 64 KiB messages sent one byte per write are answered and do not grow RSS", async () => {
  // a valid query padded to 65535 bytes with an EDNS option (a local name: too big to forward over UDP)
  const base = packet.encode({
    type: "query",
    id: 1,
    flags: packet.RECURSION_DESIRED,
    questions: [{ type: "A", name: "Pi.Hole", class: "IN" }],
    additionals: [
      {
        type: "OPT",
        name: ".",
        udpPayloadSize: 1232,
        options: [{ code: 65001, data: Buffer.alloc(0) }],
      } as unknown as packet.Answer,
    ],
  });
  const pad = 65535 - base.length;
  const msg = packet.encode({
    type: "query",
    id: 1,
    flags: packet.RECURSION_DESIRED,
    questions: [{ type: "A", name: "Pi.Hole", class: "IN" }],
    additionals: [
      {
        type: "OPT",
        name: ".",
        udpPayloadSize: 1232,
        options: [{ code: 65001, data: Buffer.alloc(pad) }],
      } as unknown as packet.Answer,
    ],
  });
  expect(msg.length).toBe(65535);
  const framed = new Uint8Array([0xff, 0xff, ...msg]);
  await tcpQuery("Warm.Tcp.Test");
  Bun.gc(true);
  const before = rssMb();
  const conns = await Promise.all(Array.from({ length: 8 }, (_, i) => connect(`127.0.7.${i + 1}`)));
  const byte = new Uint8Array(1);
  const t0 = Date.now();
  for (let i = 0; i < framed.length && Date.now() - t0 < 15000; i++) {
    byte[0] = framed[i]!;
    for (const c of conns) c.sock!.write(byte);
    if ((i & 1023) === 0) await Bun.sleep(0); // let the server read: small chunks, as a trickle arrives
  }
  await until(async () => conns.every((c) => c.data.length > 0), 8000, "answers to the 64 KiB queries");
  const after = rssMb();
  for (const c of conns) {
    const r = decodeReply(c.data[0]!.subarray(2));
    expect([r.msg.id, r.msg.questions![0]!.name, r.rcode]).toEqual([1, "Pi.Hole", "NOERROR"]);
    c.sock!.terminate();
  }
  console.log(`64 KiB trickle: RSS ${before.toFixed(0)} → ${after.toFixed(0)} MB`);
  expect(after - before).toBeLessThan(48);
}, 30000);
