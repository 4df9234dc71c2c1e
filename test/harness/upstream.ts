// A small authoritative DNS server for tests, run as its own process on 127.0.0.1 (UDP and TCP).
// Names choose behaviour, so one instance serves every test:
// --delay N answers every UDP query N ms late (a farther upstream), on top of what a name asks for.
//   anything            A <addr> / AAAA 2001:db8::<n>, TTL --ttl (default 300)
//   ttl<N>-…            the same with TTL N
//   nx-…                NXDOMAIN with an SOA (TTL 60, minimum --neg, default 30)
//   nodata-…            NOERROR, no answer, SOA
//   big-…               40 TXT records (too big for UDP: TC set, full answer over TCP)
//   slow-…              answered after 400 ms
//   cname-<target>      CNAME <target> plus A of the target
//   servfail-…          SERVFAIL
//   null-…              A 0.0.0.0 / AAAA ::  (an upstream that blocks by the null address)
//   umbrella-…          A 146.112.61.105     (Cisco Umbrella/OpenDNS block page)
//   nxra-…              NXDOMAIN with RA unset (an upstream that blocks by NXDOMAIN)
//   ede15-…             NXDOMAIN with EDE 15 "Blocked"
//   lower-…             the answer's question is lowercased (an upstream that does not keep 0x20 case)
//   spoof-…             forged answers first (wrong ID; right ID but another question; right ID and
//                       question from another source port, and to every other port the querier used),
//                       all with A 6.6.6.6, then the real answer 100 ms later (UDP only)
// A query it cannot read gets FORMERR with its question echoed, as a real server's would.
// Every other answer has RA set, as a recursive upstream's does.
// Every query is appended to the --log file as "Q <udp|tcp> <name> <type> <id> <source port> <name as
// sent>" so tests can count what reached it and see the IDs, ports and letter case it came with. The
// line is written synchronously before the answer leaves, so a test that has its answer also sees the
// line (a pipe read by the test's event loop could come after the answer).
// Usage: bun test/harness/upstream.ts --port N --log FILE [--addr 192.0.2.1] [--ttl 300] [--neg 30]
import * as packet from "dns-packet";
import type { Subprocess } from "bun";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : def;
}

/**
 * What a real recursive server sends for a query it cannot read (a class, option or name that
 * dns-packet rejects): FORMERR with the header's ID and the question as it came, so the resolver
 * in front gets an answer rather than its timeout. Null when there is no whole question to echo.
 */
function formerr(query: Buffer): Buffer | null {
  if (query.length < 12 || query.readUInt16BE(4) < 1) return null;
  let o = 12;
  while (o < query.length && query[o]! !== 0) {
    if (query[o]! >= 0x40) return null; // a pointer or a reserved label type in a question
    o += 1 + query[o]!;
  }
  const end = o + 5;
  if (end > query.length) return null;
  const a = Buffer.alloc(end);
  query.copy(a, 0, 0, end);
  a[2] = 0x80 | (query[2]! & 0x01); // QR, RD copied
  a[3] = 0x80 | 1; // RA, FORMERR
  a.writeUInt16BE(1, 4);
  a.fill(0, 6, 12);
  return a;
}

function answer(query: Buffer, addr: string, ttl: number, neg: number, tcp: boolean): Buffer | null {
  try {
    const a = readAndAnswer(query, addr, ttl, neg, tcp);
    return a && sameQuestion(query, a) ? a : formerr(query);
  } catch {
    return formerr(query);
  }
}

/** Whether dns-packet wrote the question back as it came (letter case aside): odd bytes in a name may not survive its decoding. */
function sameQuestion(query: Buffer, a: Buffer): boolean {
  const q = formerr(query);
  if (!q || a.length < q.length) return false;
  return (
    Buffer.from(a.subarray(12, q.length)).toString("latin1").toLowerCase() ===
    Buffer.from(query.subarray(12, q.length)).toString("latin1").toLowerCase()
  );
}

function readAndAnswer(query: Buffer, addr: string, ttl: number, neg: number, tcp: boolean): Buffer | null {
  let q: packet.Packet;
  try {
    q = packet.decode(query);
  } catch {
    return null;
  }
  const question = q.questions?.[0];
  if (!question) return null;
  const name = question.name;
  const lname = name.toLowerCase();
  const type = question.type;
  const soa = {
    name: "test",
    type: "SOA",
    ttl: 60,
    data: { mname: "ns.test", rname: "host.test", serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: neg },
  } as packet.Answer;
  const edns = (q.additionals ?? []).some((a) => a.type === "OPT");
  const ra = lname.startsWith("nxra-") ? 0 : packet.RECURSION_AVAILABLE;
  const ede15 = lname.startsWith("ede15-")
    ? [{ code: 15, data: Buffer.from([0, 15, ...Buffer.from("blocked upstream")]) }]
    : [];
  const base = {
    id: q.id,
    type: "response" as const,
    flags: packet.AUTHORITATIVE_ANSWER | ra | ((q.flags ?? 0) & packet.RECURSION_DESIRED),
    questions: q.questions,
    additionals: edns
      ? [{ type: "OPT", name: ".", udpPayloadSize: 1232, options: ede15 } as unknown as packet.Answer]
      : [],
  };
  const m = /^ttl(\d+)-/.exec(lname);
  const t = m ? Number(m[1]) : ttl;
  const addrs = (n: string): packet.Answer[] =>
    type === "A"
      ? [{ name: n, type: "A", ttl: t, data: addr }]
      : type === "AAAA"
        ? [{ name: n, type: "AAAA", ttl: t, data: "2001:db8::1" }]
        : type === "TXT"
          ? [{ name: n, type: "TXT", ttl: t, data: "hello" }]
          : [];
  if (lname.startsWith("lower-"))
    return packet.encode({
      ...base,
      questions: q.questions!.map((x) => ({ ...x, name: lname })),
      answers: addrs(lname),
    } as packet.Packet);
  if (lname.startsWith("null-"))
    return packet.encode({
      ...base,
      answers:
        type === "A"
          ? [{ name, type: "A", ttl: t, data: "0.0.0.0" }]
          : type === "AAAA"
            ? [{ name, type: "AAAA", ttl: t, data: "::" }]
            : [],
    } as packet.Packet);
  if (lname.startsWith("umbrella-"))
    return packet.encode({
      ...base,
      answers: type === "A" ? [{ name, type: "A", ttl: t, data: "146.112.61.105" }] : [],
    } as packet.Packet);
  if (lname.startsWith("nx-") || lname.startsWith("nxra-") || lname.startsWith("ede15-"))
    return packet.encode({ ...base, flags: base.flags | 3, answers: [], authorities: [soa] } as packet.Packet);
  if (lname.startsWith("servfail-"))
    return packet.encode({ ...base, flags: base.flags | 2, answers: [] } as packet.Packet);
  if (lname.startsWith("nodata-")) return packet.encode({ ...base, answers: [], authorities: [soa] } as packet.Packet);
  if (lname.startsWith("big-")) {
    if (!tcp)
      return packet.encode({ ...base, flags: base.flags | packet.TRUNCATED_RESPONSE, answers: [] } as packet.Packet);
    const answers = Array.from(
      { length: 40 },
      (_, i) => ({ name, type: "TXT", ttl: t, data: `record ${i} ${"x".repeat(90)}` }) as packet.Answer,
    );
    return packet.encode({ ...base, answers } as packet.Packet);
  }
  if (lname.startsWith("cname-")) {
    const target = name.slice(6);
    return packet.encode({
      ...base,
      answers: [{ name, type: "CNAME", ttl: t, data: target }, ...addrs(target)],
    } as packet.Packet);
  }
  return packet.encode({ ...base, answers: addrs(name) } as packet.Packet);
}

/** Forged answers to a query, each wrong in one way a resolver must check (RFC 5452). */
async function spoof(
  s: { send(d: Buffer, port: number, addr: string): boolean },
  query: Buffer,
  rport: number,
  raddr: string,
  seenPorts: Set<number>,
): Promise<void> {
  const q = packet.decode(query);
  const forged = (id: number, name = q.questions![0]!.name) =>
    packet.encode({
      id,
      type: "response",
      flags: packet.RECURSION_AVAILABLE | packet.RECURSION_DESIRED,
      questions: [{ ...q.questions![0]!, name }],
      answers: [{ name, type: "A", ttl: 300, data: "6.6.6.6" }],
    } as packet.Packet);
  const id = q.id ?? 0;
  // a port closed since reports ECONNREFUSED on a later send: that forgery is simply lost
  const send = (d: Buffer, port: number) => {
    try {
      s.send(d, port, raddr);
    } catch {
      // see above
    }
  };
  send(forged(id ^ 0x5555), rport);
  send(forged((id + 1) & 0xffff), rport);
  send(forged(id, "spoofed.evil.test"), rport);
  for (const p of seenPorts) if (p !== rport) send(forged(id), p);
  // right ID and question, but from a port the query did not go to
  const other = await Bun.udpSocket({ hostname: "127.0.0.1", port: 0 });
  other.send(forged(id), rport, raddr);
  other.close();
}

async function serve(): Promise<void> {
  const seenPorts = new Set<number>();
  const port = Number(arg("port", "0"));
  const addr = arg("addr", "192.0.2.1");
  const ttl = Number(arg("ttl", "300"));
  const neg = Number(arg("neg", "30"));
  const logFile = arg("log", "");
  const extraDelay = Number(arg("delay", "0"));
  const log = (proto: string, buf: Buffer, rport = 0) => {
    try {
      const m = packet.decode(buf);
      const q = m.questions?.[0];
      if (q && logFile)
        appendFileSync(logFile, `Q ${proto} ${q.name.toLowerCase()} ${q.type} ${m.id} ${rport} ${q.name}\n`);
    } catch {
      // not a query
    }
  };
  // UDP and TCP on one port number: the one the system picks for UDP may be taken for TCP (an
  // outgoing connection's local port, say), so an unasked-for port is tried again with another
  for (let tries = 0; ; tries++) {
    const udp = await Bun.udpSocket({
      hostname: "127.0.0.1",
      port,
      socket: {
        // ICMP errors for forgeries sent to closed ports: nothing to do
        error() {},
        data(s, buf, rport, raddr) {
          log("udp", buf, rport);
          let qname = "";
          try {
            qname = packet.decode(buf).questions?.[0]?.name ?? "";
          } catch {
            // answered FORMERR below
          }
          let delay = (/(^|\.)slow-/i.test(qname) ? 400 : 0) + extraDelay;
          if (/^spoof-/i.test(qname)) {
            void spoof(s, buf, rport, raddr, seenPorts);
            delay = 100;
          }
          seenPorts.add(rport);
          if (seenPorts.size > 64) seenPorts.delete(seenPorts.values().next().value!);
          const a = answer(buf, addr, ttl, neg, false);
          if (a)
            setTimeout(() => {
              try {
                s.send(a, rport, raddr);
              } catch {
                // ECONNREFUSED left over from a forgery to a closed port
              }
            }, delay);
        },
      },
    });
    try {
      listenTcp(udp.port, addr, ttl, neg, log);
    } catch (e) {
      udp.close();
      if (port !== 0 || tries >= 50) throw e;
      continue;
    }
    process.stdout.write(`upstream listening on ${udp.port}\n`);
    return;
  }
}

function listenTcp(
  port: number,
  addr: string,
  ttl: number,
  neg: number,
  log: (proto: string, buf: Buffer) => void,
): void {
  Bun.listen<{ buf: Buffer }>({
    hostname: "127.0.0.1",
    port,
    socket: {
      open(s) {
        s.data = { buf: Buffer.alloc(0) };
      },
      data(s, chunk) {
        s.data.buf = Buffer.concat([s.data.buf, chunk]);
        while (s.data.buf.length >= 2 && s.data.buf.length >= 2 + s.data.buf.readUInt16BE(0)) {
          const msg = s.data.buf.subarray(2, 2 + s.data.buf.readUInt16BE(0));
          s.data.buf = s.data.buf.subarray(2 + msg.length);
          log("tcp", msg);
          const a = answer(msg, addr, ttl, neg, true);
          if (a) {
            const len = Buffer.alloc(2);
            len.writeUInt16BE(a.length);
            s.write(Buffer.concat([len, a]));
          }
        }
      },
    },
  });
}

/** A running test upstream, seen from the test. */
export class Upstream {
  constructor(
    readonly proc: Subprocess<"ignore", "pipe", "inherit">,
    readonly port: number,
    private readonly dir: string,
  ) {}
  /** the query lines written so far */
  get lines(): string[] {
    let text = "";
    try {
      text = readFileSync(join(this.dir, "queries.log"), "utf8");
    } catch {
      // no query yet
    }
    return text.split("\n").filter((l) => l.startsWith("Q "));
  }
  /** "127.0.0.1#port", the form dns.upstreams takes */
  get address(): string {
    return `127.0.0.1#${this.port}`;
  }
  /** how many queries for this name (lowercase) reached the upstream */
  count(name: string, proto?: "udp" | "tcp"): number {
    return this.lines.filter((l) => {
      const [, p, n] = l.split(" ");
      return n === name && (!proto || p === proto);
    }).length;
  }
  /** the queries that reached the upstream: protocol, name (lowercase), type, ID, source port, name as sent */
  queries(): Array<{ proto: string; name: string; type: string; id: number; port: number; sent: string }> {
    return this.lines
      .filter((l) => l.startsWith("Q "))
      .map((l) => {
        const [, proto, name, type, id, port, sent] = l.split(" ") as string[];
        return { proto: proto!, name: name!, type: type!, id: Number(id), port: Number(port), sent: sent! };
      });
  }
  async stop(): Promise<void> {
    this.proc.kill();
    await this.proc.exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function startUpstream(
  opts: { port?: number; addr?: string; ttl?: number; neg?: number; delayMs?: number } = {},
): Promise<Upstream> {
  const dir = mkdtempSync(join(tmpdir(), "moat-upstream-"));
  const proc = Bun.spawn(
    [
      process.execPath,
      join(import.meta.dir, "upstream.ts"),
      "--port",
      String(opts.port ?? 0),
      "--log",
      join(dir, "queries.log"),
      "--addr",
      opts.addr ?? "192.0.2.1",
      "--ttl",
      String(opts.ttl ?? 300),
      "--neg",
      String(opts.neg ?? 30),
      "--delay",
      String(opts.delayMs ?? 0),
    ],
    { stdin: "ignore", stdout: "pipe", stderr: "inherit" },
  );
  const reader = proc.stdout.getReader();
  const dec = new TextDecoder();
  let pending = "";
  let ready: (p: number) => void = () => {};
  const portP = new Promise<number>((res) => (ready = res));
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pending += dec.decode(value);
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const l of lines) {
        const m = /^upstream listening on (\d+)/.exec(l);
        if (m) ready(Number(m[1]));
      }
    }
  })();
  const port = await Promise.race([portP, Bun.sleep(15000).then(() => 0)]);
  if (!port) throw new Error("test upstream did not start");
  return new Upstream(proc, port, dir);
}

if (import.meta.main) await serve();
