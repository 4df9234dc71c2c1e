// One question to one authority: over UDP through upstream.ts (a CSPRNG ID from its pool of sockets
// on CSPRNG ports, the name in 0x20 case, the answer taken only from that address and port with that
// ID and question: RFC 5452), again over TCP when the answer comes truncated (RFC 7766 §5). Each
// address keeps its smoothed round-trip time, and a silent one is tried last for a while (as
// unbound's infra cache).
import { setU16 } from "../reply.ts";
import { FrameReader } from "../tcp-frames.ts";
import { randomU16 } from "../random.ts";
import { Upstream } from "../upstream.ts";
import { OUR_UDP_SIZE, TC, getU16 } from "../wire.ts";

/** how long a silent address is tried after the others */
const ASIDE_MS = 60_000;
/** addresses remembered (RTT, set aside); the oldest go first */
const MAX_ADDRS = 4096;
const TCP_TIMEOUT_MS = 1500;

interface Infra {
  up: Upstream;
  /** smoothed RTT, ms; 0 until measured */
  rtt: number;
  asideUntil: number;
}

export class Exchanger {
  private readonly infra = new Map<string, Infra>();
  private sweeper: ReturnType<typeof setInterval> | null = null;
  /** queries sent since start (all addresses, TCP retries included), for /metrics */
  sent = 0;

  constructor(private readonly port: number) {}

  private entry(ip: string): Infra {
    let e = this.infra.get(ip);
    if (!e) {
      if (this.infra.size >= MAX_ADDRS) this.evict();
      e = { up: new Upstream(ip, this.port, `${ip}#${this.port}`), rtt: 0, asideUntil: 0 };
      this.infra.set(ip, e);
    }
    return e;
  }

  private evict(): void {
    for (const [ip, e] of this.infra) {
      if (e.up.slots.size) continue;
      e.up.close();
      this.infra.delete(ip);
      if (this.infra.size < MAX_ADDRS) return;
    }
  }

  /** Addresses in the order to try them: not set aside first, then by measured RTT (an unmeasured one early). */
  order(addrs: readonly string[]): string[] {
    const now = performance.now();
    const score = (ip: string): number => {
      const e = this.infra.get(ip);
      if (!e) return 0;
      return (e.asideUntil > now ? 1e6 : 0) + e.rtt;
    };
    return [...addrs].sort((a, b) => score(a) - score(b));
  }

  /** The checked answer to `query` (its question ends at `end`) from `ip`, or null (silent, unreachable). */
  async ask(ip: string, query: Uint8Array, end: number, timeoutMs: number): Promise<Uint8Array | null> {
    const e = this.entry(ip);
    this.sent++;
    const t0 = performance.now();
    this.sweepSoon();
    const a = await e.up.send(query, end, timeoutMs);
    if (!a) {
      e.rtt = Math.max(e.rtt * 2, timeoutMs);
      e.asideUntil = performance.now() + ASIDE_MS;
      return null;
    }
    const ms = performance.now() - t0;
    e.rtt = e.rtt === 0 ? ms : e.rtt * 0.7 + ms * 0.3;
    if (!(getU16(a, 2) & TC)) return a;
    this.sent++;
    return viaTcp(ip, this.port, query);
  }

  private sweepSoon(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = performance.now();
      let inFlight = 0;
      for (const e of this.infra.values()) inFlight += e.up.expire(now);
      if (inFlight === 0 && this.sweeper) {
        clearInterval(this.sweeper);
        this.sweeper = null;
      }
    }, 50);
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    for (const e of this.infra.values()) e.up.close();
    this.infra.clear();
  }
}

/** The query over TCP with an ID of its own; the answer must carry that ID (the caller checks the question). */
function viaTcp(ip: string, port: number, query: Uint8Array): Promise<Uint8Array | null> {
  return new Promise((resolve) => {
    let done = false;
    let sock: { end(): void } | undefined;
    const id = randomU16();
    const reader = new FrameReader((a) => finish(a.length >= 12 && getU16(a, 0) === id ? a : null));
    const finish = (v: Uint8Array | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock?.end();
      resolve(v);
    };
    const timer = setTimeout(() => finish(null), TCP_TIMEOUT_MS);
    const framed = new Uint8Array(query.length + 2);
    setU16(framed, 0, query.length);
    framed.set(query, 2);
    setU16(framed, 2, id);
    Bun.connect({
      hostname: ip,
      port,
      socket: {
        open: (s) => {
          sock = s;
          s.write(framed);
        },
        data: (_s, chunk) => {
          if (!done) reader.push(chunk);
        },
        close: () => finish(null),
        error: () => finish(null),
        connectError: () => finish(null),
      },
    }).catch(() => finish(null));
  });
}

/** A question for an authority: no RD, EDNS with our 1232-byte buffer (DNS Flag Day 2020), DO when asked. */
export function authorityQuery(name: Uint8Array, type: number, dnssecOk: boolean): { query: Uint8Array; end: number } {
  const end = 12 + name.length + 4;
  const q = new Uint8Array(end + 11);
  q[5] = 1; // QDCOUNT
  q[11] = 1; // ARCOUNT: the OPT
  q.set(name, 12);
  setU16(q, 12 + name.length, type);
  setU16(q, 14 + name.length, 1);
  q[end + 2] = 41;
  setU16(q, end + 3, OUR_UDP_SIZE);
  if (dnssecOk) q[end + 7] = 0x80;
  return { query: q, end };
}
