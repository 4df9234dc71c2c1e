// DNS over TLS to an upstream (RFC 7858): one connection kept open and reused, queries pipelined on it
// with our own ids (answers may come back in any order), padded (RFC 8467), the certificate checked
// against the system's trust store and the upstream's name. A connection the server closed is opened
// again on the next query; queries it carried unanswered are sent once more on the new one.
import type { Socket } from "bun";
import { padQuery } from "./padding.ts";
import { randomU16 } from "./random.ts";
import { Health, type EncryptedTransport, type TransportOptions } from "./transport.ts";

/** Queries in flight on one connection; beyond this the upstream counts as busy and the next one is tried. */
const MAX_IN_FLIGHT = 4096;
const IDLE_SECONDS = 30;

interface InFlight {
  resolve: (a: Uint8Array | null) => void;
  deadline: number;
  framed: Uint8Array;
  resent: boolean;
}

export class DotTransport implements EncryptedTransport {
  private readonly health: Health;
  private sock: Socket<undefined> | null = null;
  private connecting = false;
  private ready = false;
  private closed = false;
  private readonly pending = new Map<number, InFlight>();
  /** framed queries written once the handshake is done, or when the socket drains */
  private out: Uint8Array[] = [];
  private inbuf: Uint8Array = new Uint8Array(0);
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private handshakeTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly opts: TransportOptions) {
    this.health = new Health(opts);
  }

  get lastError(): string | null {
    return this.health.lastError;
  }

  exchange(query: Uint8Array, timeoutMs: number): Promise<Uint8Array | null> {
    if (this.closed || this.pending.size >= MAX_IN_FLIGHT || (!this.ready && this.health.paused())) return NONE;
    const id = this.freeId();
    const msg = query.slice();
    msg[0] = id >> 8;
    msg[1] = id & 0xff;
    const padded = padQuery(msg);
    const framed = new Uint8Array(padded.length + 2);
    framed[0] = padded.length >> 8;
    framed[1] = padded.length & 0xff;
    framed.set(padded, 2);
    // the first query of a connection also waits for the connection and the handshake
    const deadline = performance.now() + (this.ready ? timeoutMs : timeoutMs * 2);
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, deadline, framed, resent: false });
      this.sweepSoon();
      this.write(framed);
    });
  }

  close(): void {
    this.closed = true;
    this.failAll(null);
    this.drop();
  }

  private freeId(): number {
    let id = randomU16();
    while (this.pending.has(id)) id = (id + 1) & 0xffff;
    return id;
  }

  private write(framed: Uint8Array): void {
    this.out.push(framed);
    if (this.ready && this.out.length === 1) this.flush();
    else if (!this.sock && !this.connecting) void this.connect();
  }

  private flush(): void {
    const s = this.sock;
    if (!s || !this.ready) return;
    while (this.out.length) {
      const chunk = this.out[0]!;
      const n = s.write(chunk);
      if (n < chunk.length) {
        this.out[0] = chunk.subarray(Math.max(0, n));
        return;
      }
      this.out.shift();
    }
  }

  private async connect(): Promise<void> {
    this.connecting = true;
    const o = this.opts;
    let ip: string;
    try {
      ip = o.ip ?? (await o.bootstrap.resolve(o.host));
    } catch (e) {
      this.connecting = false;
      this.health.failed((e as Error).message);
      this.failAll(null);
      return;
    }
    if (this.closed) return;
    this.handshakeTimer = setTimeout(() => this.lost("the TLS handshake did not finish within 3 s"), 3000);
    try {
      const s = await Bun.connect({
        hostname: ip,
        port: o.port,
        tls: { serverName: o.host },
        socket: {
          handshake: (s, ok, err) => this.onHandshake(s, ok, err),
          data: (_s, chunk) => this.onData(chunk),
          drain: () => this.flush(),
          timeout: (s) => void s.end(),
          close: () => this.lost(null),
          error: (_s, e) => this.lost(e.message),
          connectError: (_s, e) => this.lost(`cannot connect: ${e.message}`),
        },
      });
      // still wanted (no failure or close came first): it is the connection
      if (this.connecting || this.ready) this.sock = s;
      else s.terminate();
    } catch (e) {
      this.lost(`cannot connect: ${(e as Error).message}`);
    }
  }

  private onHandshake(s: Socket<undefined>, ok: boolean, err: Error | null): void {
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = null;
    if (!ok) {
      this.lost(`certificate refused: ${err?.message ?? "not trusted"}`);
      return;
    }
    this.sock = s;
    this.connecting = false;
    this.ready = true;
    s.timeout(IDLE_SECONDS);
    this.flush();
  }

  private onData(chunk: Uint8Array): void {
    let buf = this.inbuf.length ? concat(this.inbuf, chunk) : chunk;
    while (buf.length >= 2) {
      const len = (buf[0]! << 8) | buf[1]!;
      if (buf.length < 2 + len) break;
      if (len >= 12) {
        const id = (buf[2]! << 8) | buf[3]!;
        const p = this.pending.get(id);
        if (p) {
          this.pending.delete(id);
          this.health.answered();
          p.resolve(buf.slice(2, 2 + len));
        }
      }
      buf = buf.subarray(2 + len);
    }
    this.inbuf = buf.length ? buf.slice() : new Uint8Array(0);
  }

  /** The connection is gone (closed, refused, failed): unanswered queries go once more on a new one. */
  private lost(why: string | null): void {
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = null;
    const wasReady = this.ready;
    this.drop();
    if (this.closed) return;
    if (why !== null || !wasReady) {
      this.health.failed(why ?? "the connection closed before the TLS handshake");
      if (!this.opts.ip) this.opts.bootstrap.forget(this.opts.host);
      this.failAll(null);
      return;
    }
    // an idle close by the server: what was in flight goes again, once
    for (const [id, p] of this.pending) {
      if (p.resent) {
        this.pending.delete(id);
        p.resolve(null);
      } else {
        p.resent = true;
        this.out.push(p.framed);
      }
    }
    if (this.out.length) void this.connect();
  }

  private drop(): void {
    const s = this.sock;
    this.sock = null;
    this.ready = false;
    this.connecting = false;
    this.out = [];
    this.inbuf = new Uint8Array(0);
    s?.terminate();
  }

  private failAll(v: null): void {
    for (const p of this.pending.values()) p.resolve(v);
    this.pending.clear();
  }

  /** One sweep every 100 ms while queries are in flight gives up on those past their deadline. */
  private sweepSoon(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = performance.now();
      let late = 0;
      for (const [id, p] of this.pending) {
        if (p.deadline > now) continue;
        this.pending.delete(id);
        p.resolve(null);
        late++;
      }
      if (late) this.health.failed(`no answer within the timeout (${late} ${late === 1 ? "query" : "queries"})`);
      if (this.pending.size === 0 && this.sweeper) {
        clearInterval(this.sweeper);
        this.sweeper = null;
      }
    }, 100);
  }
}

const NONE: Promise<Uint8Array | null> = Promise.resolve(null);

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
