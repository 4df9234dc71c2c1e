// Real DNS over UDP/TCP from a chosen loopback source address, decoded with dns-packet.
import * as packet from "dns-packet";
import { Database } from "bun:sqlite";
import { join } from "node:path";

export interface AskOptions {
  type?: string;
  tcp?: boolean;
  /** source address (127.0.0.2 … to act as another client) */
  from?: string;
  /** add an OPT record (default true) */
  edns?: boolean;
  udpSize?: number;
  dnssecOk?: boolean;
  timeoutMs?: number;
}

export interface Reply {
  raw: Uint8Array;
  msg: packet.Packet;
  rcode: string;
  answers: packet.Answer[];
  ede: { code: number; text: string } | null;
}

export function encodeQuery(name: string, o: AskOptions = {}): Uint8Array {
  const additionals: packet.Answer[] =
    o.edns === false
      ? []
      : [
          {
            type: "OPT",
            name: ".",
            udpPayloadSize: o.udpSize ?? 1232,
            flags: o.dnssecOk ? packet.DNSSEC_OK : 0,
          } as packet.Answer,
        ];
  return packet.encode({
    type: "query",
    id: Math.floor(Math.random() * 65535),
    flags: packet.RECURSION_DESIRED,
    questions: [{ type: (o.type ?? "A") as packet.RecordType, name, class: "IN" }],
    additionals,
  });
}

export function decodeReply(raw: Uint8Array): Reply {
  const msg = packet.decode(Buffer.from(raw));
  const opt = (msg.additionals ?? []).find((a) => a.type === "OPT") as
    | { options?: Array<{ code: number; data?: Buffer }> }
    | undefined;
  const edeOpt = opt?.options?.find((x) => x.code === 15);
  const ede = edeOpt?.data ? { code: edeOpt.data.readUInt16BE(0), text: edeOpt.data.subarray(2).toString() } : null;
  return { raw, msg, rcode: (msg as { rcode?: string }).rcode ?? "NOERROR", answers: msg.answers ?? [], ede };
}

/** Sends raw bytes over UDP and waits for one datagram (null on timeout). */
export async function sendUdp(
  port: number,
  bytes: Uint8Array,
  from = "127.0.0.1",
  timeoutMs = 3000,
  host = "127.0.0.1",
): Promise<Uint8Array | null> {
  let resolve: (v: Uint8Array | null) => void = () => {};
  const p = new Promise<Uint8Array | null>((r) => (resolve = r));
  // as a stub resolver does, take only a datagram from the server's port with the query's ID:
  // an ephemeral port may have been an upstream socket moments ago, and stray packets still arrive there
  const fromServer = (buf: Uint8Array, rport: number) => rport === port && buf[0] === bytes[0] && buf[1] === bytes[1];
  const sock = await Bun.udpSocket({
    hostname: from,
    port: 0,
    binaryType: "uint8array",
    socket: {
      data: (_s, buf, rport) => {
        if (fromServer(buf, rport)) resolve(buf.slice());
      },
      error: () => {},
    },
  });
  const timer = setTimeout(() => resolve(null), timeoutMs);
  sock.send(bytes, port, host);
  const r = await p;
  clearTimeout(timer);
  sock.close();
  return r;
}

/** A reader of DNS-over-TCP frames (RFC 1035 §4.2.2): feed it each chunk, get the whole messages, leftovers kept. */
export function tcpFrames(): (chunk: Uint8Array) => Uint8Array[] {
  let buf = new Uint8Array(0);
  return (chunk) => {
    const n = new Uint8Array(buf.length + chunk.length);
    n.set(buf);
    n.set(chunk, buf.length);
    buf = n;
    const out: Uint8Array[] = [];
    while (buf.length >= 2 && buf.length >= 2 + ((buf[0]! << 8) | buf[1]!)) {
      const len = (buf[0]! << 8) | buf[1]!;
      out.push(buf.slice(2, 2 + len));
      buf = buf.subarray(2 + len);
    }
    return out;
  };
}

/** Sends framed messages over one TCP connection and collects `expect` answers. */
export async function sendTcp(
  port: number,
  msgs: Uint8Array[],
  expect = msgs.length,
  timeoutMs = 5000,
  from?: string,
): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const frames = tcpFrames();
  let resolve: () => void = () => {};
  const done = new Promise<void>((r) => (resolve = r));
  const sock = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    ...(from ? { localAddress: from } : {}),
    socket: {
      data(_s, chunk) {
        out.push(...frames(chunk));
        if (out.length >= expect) resolve();
      },
      close() {
        resolve();
      },
    },
  });
  const framed = msgs.map((m) => {
    const f = new Uint8Array(m.length + 2);
    f[0] = m.length >> 8;
    f[1] = m.length & 0xff;
    f.set(m, 2);
    return f;
  });
  const all = new Uint8Array(framed.reduce((n, f) => n + f.length, 0));
  let o = 0;
  for (const f of framed) {
    all.set(f, o);
    o += f.length;
  }
  sock.write(all);
  await Promise.race([done, Bun.sleep(timeoutMs)]);
  sock.end();
  return out;
}

/** Asks a name and decodes the answer; throws on timeout. */
export async function ask(port: number, name: string, o: AskOptions = {}): Promise<Reply> {
  const q = encodeQuery(name, o);
  const raw = o.tcp ? ((await sendTcp(port, [q]))[0] ?? null) : await sendUdp(port, q, o.from, o.timeoutMs);
  if (!raw) throw new Error(`no answer for ${name}`);
  return decodeReply(raw);
}

export function firstAddress(r: Reply): string | null {
  const a = r.answers.find((x) => x.type === "A" || x.type === "AAAA");
  return a ? String((a as { data: unknown }).data) : null;
}

export function ttlOf(r: Reply): number {
  return (r.answers[0] as { ttl?: number } | undefined)?.ttl ?? -1;
}

/** Polls until fn returns true (for reloads); fails after timeoutMs. */
export async function until(fn: () => Promise<boolean>, timeoutMs = 10000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await fn()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Opens <dataDir>/gravity.db (creating the schema through a first Moat start is not needed: tests call Moat first). */
export function gravityDb(dataDir: string): Database {
  const db = new Database(join(dataDir, "gravity.db"));
  db.run("PRAGMA busy_timeout = 5000");
  return db;
}

export async function runDig(args: string[]): Promise<string> {
  const p = Bun.spawn(["dig", ...args], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return out;
}
