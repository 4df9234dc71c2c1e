// The DNS-over-TCP side of the listener: framing (tcp-frames.ts), pipelined queries answered as
// they resolve (out of order; the IDs tell them apart, RFC 7766 §6.2.1.1), writes that wait for
// the socket to drain, and limits so that connections cannot exhaust the process's file
// descriptors (which the API needs too): at most dns.tcp.maxConnections in all and
// dns.tcp.maxConnectionsPerClient from one client (an IPv4 address or an IPv6 /64), as unbound's
// incoming-num-tcp. At the limit a new connection takes the place of the one that has kept its
// place longest without use: idle since longest, or with a partial message begun longest ago
// (one that trickles bytes makes no progress by that measure); when every connection waits for
// answers it is refused. A message must arrive whole within MESSAGE_SECONDS of its first
// byte, and a connection idle for IDLE_SECONDS is closed.
// A client may send its queries and then shut down its writing side (shutdown(SHUT_WR)): its FIN
// means no more queries, not no more answers, so the listeners are half-open (HALF_OPEN) and the
// connection ends once every answer owed has been written (RFC 7766 §6.2.4: the server closes
// only when it has nothing outstanding), as unbound does.
import type { Socket, SocketHandler } from "bun";
import { normalizeIp } from "../net/ip.ts";
import type { Answer, Pending } from "./context.ts";
import { FrameReader } from "./tcp-frames.ts";

const IDLE_SECONDS = 10;
const MESSAGE_SECONDS = 10;

/** Bun.listen's option for TcpConnections' listeners: the peer's FIN does not close our side (see above). */
export const HALF_OPEN = { allowHalfOpen: true } as const;

export interface TcpLimits {
  maxConnections: number;
  maxConnectionsPerClient: number;
}

export interface TcpState {
  reader: FrameReader;
  out: Uint8Array[];
  client: string;
  /** the key the per-client limit counts by */
  group: string;
  /** queries read and not answered yet */
  inFlight: number;
  /** performance.now() when the partial message now arriving began (0: none) */
  partialSince: number;
  /** performance.now() of the last complete message or answer (or the connection's start) */
  lastUsed: number;
  closed: boolean;
  /** the client has shut down its writing side: close once nothing is owed */
  peerEnded: boolean;
  /** DNS over TLS: the client ID in the server name the client asked for (dot-listener.ts) */
  clientId: string | null;
}

/** An IPv4 address stands for itself; an IPv6 address for its /64 (one host has a whole /64). */
function clientGroup(ip: string): string {
  if (!ip.includes(":")) return ip;
  const parts = ip.split("::")[0]!.split(":");
  return parts.length >= 4 ? parts.slice(0, 4).join(":") : ip;
}

export class TcpConnections {
  /** open connections, oldest first */
  private readonly open = new Set<Socket<TcpState>>();
  private readonly perGroup = new Map<string, number>();
  private sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly handle: (msg: Uint8Array, client: string, clientId: string | null) => Pending,
    private readonly limits: () => TcpLimits,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Handlers for Bun.listen; every listener shares the one set of limits. */
  handlers(): SocketHandler<TcpState> {
    return {
      open: (s) => this.onOpen(s),
      data: (s, chunk) => this.onData(s, chunk),
      drain: (s) => this.flush(s),
      end: (s) => this.onEnd(s),
      timeout: (s) => this.drop(s),
      error: () => {},
      close: (s) => this.forget(s),
    };
  }

  private onOpen(s: Socket<TcpState>): void {
    const client = normalizeIp(s.remoteAddress);
    const state: TcpState = {
      reader: null as unknown as FrameReader,
      out: [],
      client,
      group: clientGroup(client),
      inFlight: 0,
      partialSince: 0,
      lastUsed: performance.now(),
      closed: false,
      peerEnded: false,
      clientId: null,
    };
    state.reader = new FrameReader((msg) => this.onMessage(s, msg));
    s.data = state;
    const { maxConnections, maxConnectionsPerClient } = this.limits();
    const mine = this.perGroup.get(state.group) ?? 0;
    if (maxConnectionsPerClient > 0 && mine >= maxConnectionsPerClient) {
      const victim = this.victim(state.group);
      if (!victim) return void this.refuse(s);
      this.drop(victim);
    } else if (maxConnections > 0 && this.open.size >= maxConnections) {
      const victim = this.victim(null);
      if (!victim) return void this.refuse(s);
      this.drop(victim);
    }
    this.open.add(s);
    this.perGroup.set(state.group, (this.perGroup.get(state.group) ?? 0) + 1);
    s.timeout(IDLE_SECONDS);
    this.sweeper ??= setInterval(() => this.sweep(), 1000);
  }

  /** The connection to close for a new one: of those not waiting for us, the one unused longest. */
  private victim(group: string | null): Socket<TcpState> | null {
    let best: Socket<TcpState> | null = null,
      bestSince = Infinity;
    for (const c of this.open) {
      const d = c.data;
      if ((group !== null && d.group !== group) || d.inFlight > 0 || d.out.length > 0) continue;
      const since = d.partialSince > 0 ? d.partialSince : d.lastUsed;
      if (since < bestSince) {
        best = c;
        bestSince = since;
      }
    }
    return best;
  }

  private refuse(s: Socket<TcpState>): void {
    s.data.closed = true;
    s.terminate();
  }

  private onData(s: Socket<TcpState>, chunk: Uint8Array): void {
    const d = s.data;
    if (d.closed) return;
    s.timeout(IDLE_SECONDS);
    d.reader.push(chunk);
    if (!d.reader.partial) d.partialSince = 0;
    else if (d.partialSince === 0) d.partialSince = performance.now();
  }

  private onMessage(s: Socket<TcpState>, msg: Uint8Array): void {
    const d = s.data;
    // the partial message (if any) after this one starts now
    d.partialSince = 0;
    d.lastUsed = performance.now();
    const r = this.handle(msg, d.client, d.clientId);
    if (r instanceof Promise) {
      d.inFlight++;
      r.then(
        (a) => this.answered(s, a),
        () => this.answered(s, null),
      );
    } else this.send(s, r);
  }

  private answered(s: Socket<TcpState>, a: Answer): void {
    s.data.inFlight--;
    s.data.lastUsed = performance.now();
    this.send(s, a);
  }

  /** The client's FIN: the queries it sent are still answered, then the connection ends. */
  private onEnd(s: Socket<TcpState>): void {
    const d = s.data;
    if (!d || d.closed) return;
    d.peerEnded = true;
    this.endIfDone(s);
  }

  /** After the client's FIN, our own FIN follows the last answer owed (a partial message never completes). */
  private endIfDone(s: Socket<TcpState>): void {
    const d = s.data;
    if (!d.peerEnded || d.closed || d.inFlight > 0 || d.out.length > 0) return;
    this.forget(s);
    s.end();
  }

  private send(s: Socket<TcpState>, a: Answer): void {
    if (s.data.closed) return;
    if (!a) {
      this.endIfDone(s);
      return;
    }
    const framed = new Uint8Array(a.length + 2);
    framed[0] = a.length >> 8;
    framed[1] = a.length & 0xff;
    framed.set(a, 2);
    s.data.out.push(framed);
    if (s.data.out.length === 1) this.flush(s);
  }

  private flush(s: Socket<TcpState>): void {
    const out = s.data.out;
    while (out.length) {
      const chunk = out[0]!;
      const n = s.write(chunk);
      if (n < chunk.length) {
        out[0] = chunk.subarray(Math.max(0, n));
        return;
      }
      out.shift();
    }
    if (s.data.peerEnded) this.endIfDone(s);
  }

  /** Closes slow messages: a connection that trickles bytes keeps its idle timer alive, not its place. */
  private sweep(): void {
    const limit = performance.now() - MESSAGE_SECONDS * 1000;
    for (const c of this.open) if (c.data.partialSince > 0 && c.data.partialSince < limit) this.drop(c);
    if (this.open.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  private drop(s: Socket<TcpState>): void {
    this.forget(s);
    s.terminate();
  }

  private forget(s: Socket<TcpState>): void {
    const d = s.data;
    if (!d || d.closed) return;
    d.closed = true;
    d.out.length = 0;
    if (!this.open.delete(s)) return;
    const n = (this.perGroup.get(d.group) ?? 1) - 1;
    if (n > 0) this.perGroup.set(d.group, n);
    else this.perGroup.delete(d.group);
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}
