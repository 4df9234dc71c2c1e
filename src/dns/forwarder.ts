// Forwards queries to dns.upstreams over UDP (TCP when the answer is truncated). The upstream with
// the best recent response time goes first; one that fails or times out drops back and the next is
// tried; SERVFAIL when every attempt fails. Counts and response times per upstream feed the API.
import type { udp } from "bun";
import { isIP } from "node:net";
import { Reply, Status } from "../stats/enums.ts";
import type { Handler, Next, Pending, QueryContext } from "./context.ts";
import { buildReply, setU16 } from "./reply.ts";
import { RCODE, TYPE, getU16, readName, walkMessage, type Message } from "./wire.ts";

export interface UpstreamStats {
  /** "ip#port" */
  name: string;
  ip: string;
  port: number;
  /** queries sent */
  count: number;
  /** answers received */
  answered: number;
  failed: number;
  /** mean response time of answered queries, ms */
  responseTime: number;
  /** smoothed response time used for the ordering, ms */
  smoothed: number;
}

class Upstream {
  count = 0;
  answered = 0;
  failed = 0;
  totalMs = 0;
  smoothed = 0;
  constructor(readonly ip: string, readonly port: number, readonly name: string) {}
  get family(): 4 | 6 {
    return isIP(this.ip) === 6 ? 6 : 4;
  }
}

interface PendingQuery {
  resolve: (a: Uint8Array | null) => void;
  up: Upstream;
  qname: string;
  timer: ReturnType<typeof setTimeout>;
}

export function parseUpstream(s: string): { ip: string; port: number } | null {
  const [ip, port] = s.split("#") as [string, string | undefined];
  if (!isIP(ip)) return null;
  return { ip, port: port ? Number(port) : 53 };
}

export class Forwarder implements Handler {
  readonly name = "forward";
  private ups: Upstream[] = [];
  private sock4: udp.Socket<"uint8array"> | null = null;
  private sock6: udp.Socket<"uint8array"> | null = null;
  private readonly pending = new Map<number, PendingQuery>();
  private nextId = Math.floor(Math.random() * 65536);

  constructor(private readonly opts: { timeoutMs: number; attempts: number; log: (l: "warn" | "info", m: string) => void }) {}

  async start(): Promise<void> {
    const data = (_s: unknown, buf: Uint8Array, port: number, addr: string) => this.onAnswer(buf, port, addr);
    this.sock4 = await Bun.udpSocket({ hostname: "0.0.0.0", port: 0, binaryType: "uint8array", socket: { data, error: () => {} } });
    try {
      this.sock6 = await Bun.udpSocket({ hostname: "::", port: 0, binaryType: "uint8array", socket: { data, error: () => {} } });
    } catch {
      this.sock6 = null; // no IPv6 on this host
    }
  }

  stop(): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.resolve(null);
    }
    this.pending.clear();
    this.sock4?.close();
    this.sock6?.close();
  }

  /** Replaces the upstream list, keeping the statistics of servers that stay. */
  setUpstreams(list: readonly string[]): void {
    const old = new Map(this.ups.map((u) => [u.name, u]));
    const next: Upstream[] = [];
    for (const s of list) {
      const p = parseUpstream(s);
      if (!p) {
        this.opts.log("warn", `upstream "${s}" is not an IP address: ignored`);
        continue;
      }
      const name = `${p.ip}#${p.port}`;
      next.push(old.get(name) ?? new Upstream(p.ip, p.port, name));
    }
    this.ups = next;
  }

  stats(): UpstreamStats[] {
    return this.ups.map((u) => ({
      name: u.name, ip: u.ip, port: u.port, count: u.count, answered: u.answered, failed: u.failed,
      responseTime: u.answered ? u.totalMs / u.answered : 0, smoothed: u.smoothed,
    }));
  }

  handle(ctx: QueryContext, _next: Next): Pending {
    return this.forward(ctx);
  }

  private async forward(ctx: QueryContext): Promise<Uint8Array> {
    const order = [...this.ups].sort((a, b) => score(a) - score(b));
    for (let i = 0; i < Math.min(this.opts.attempts, order.length); i++) {
      const up = order[i]!;
      const t0 = performance.now();
      up.count++;
      let a = await this.viaUdp(up, ctx);
      if (a && getU16(a, 2) & 0x0200) a = await this.viaTcp(up, ctx.query);
      const ms = performance.now() - t0;
      const m = a && walkMessage(a);
      if (!a || !m || !sameQuestion(a, ctx)) {
        up.failed++;
        up.smoothed = up.smoothed * 0.5 + this.opts.timeoutMs * 0.5 + 1;
        continue;
      }
      if (m.rcode === RCODE.SERVFAIL || m.rcode === RCODE.REFUSED) {
        // a broken or refusing upstream: try the next one, but remember this answer as a last resort
        up.answered++;
        up.totalMs += ms;
        if (i + 1 < Math.min(this.opts.attempts, order.length)) continue;
      }
      up.answered++;
      up.totalMs += ms;
      up.smoothed = up.smoothed === 0 ? ms : up.smoothed * 0.8 + ms * 0.2;
      return this.accept(ctx, a, m, up);
    }
    ctx.status = Status.FORWARDED;
    ctx.reply = Reply.SERVFAIL;
    return buildReply(ctx.query, ctx.q, RCODE.SERVFAIL);
  }

  private accept(ctx: QueryContext, a: Uint8Array, m: Message, up: Upstream): Uint8Array {
    const out = a.slice();
    out[0] = ctx.query[0]!;
    out[1] = ctx.query[1]!;
    out[2] = out[2]! & ~0x04; // AA: the answer is not ours
    out[3] = out[3]! | 0x80; // RA: we recurse for the client
    ctx.status = Status.FORWARDED;
    ctx.upstream = up.name;
    ctx.upstreamMessage = m;
    ctx.reply = replyType(m);
    const cnames = m.records.filter((r) => r.section === 0 && r.type === TYPE.CNAME);
    if (cnames.length) {
      const chain: string[] = [];
      for (const r of cnames) {
        const t = readName(a, r.rdata);
        if (t) chain.push(t);
      }
      ctx.cnameChain = chain;
    }
    return out;
  }

  private viaUdp(up: Upstream, ctx: QueryContext): Promise<Uint8Array | null> {
    const sock = up.family === 6 ? this.sock6 : this.sock4;
    if (!sock) return Promise.resolve(null);
    let id = this.nextId;
    for (let tries = 0; this.pending.has(id) && tries < 65536; tries++) id = (id + 1) & 0xffff;
    this.nextId = (id + 7919) & 0xffff;
    const msg = ctx.query.slice();
    setU16(msg, 0, id);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(null);
      }, this.opts.timeoutMs);
      this.pending.set(id, { resolve, up, qname: ctx.q.name, timer });
      try {
        sock.send(msg, up.port, up.ip);
      } catch {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(null);
      }
    });
  }

  private onAnswer(buf: Uint8Array, port: number, addr: string): void {
    if (buf.length < 12) return;
    const id = getU16(buf, 0);
    const p = this.pending.get(id);
    // only the server we asked may answer (a spoofed or late reply is ignored)
    if (!p || p.up.port !== port || normalize(addr) !== p.up.ip) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.resolve(buf.slice());
  }

  private async viaTcp(up: Upstream, query: Uint8Array): Promise<Uint8Array | null> {
    return new Promise((resolve) => {
      let buf = new Uint8Array(0);
      let done = false;
      const finish = (v: Uint8Array | null, s?: { end(): void }) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        s?.end();
        resolve(v);
      };
      const timer = setTimeout(() => finish(null), this.opts.timeoutMs * 2);
      const framed = new Uint8Array(query.length + 2);
      setU16(framed, 0, query.length);
      framed.set(query, 2);
      Bun.connect({
        hostname: up.ip,
        port: up.port,
        socket: {
          open: (s) => void s.write(framed),
          data: (s, chunk) => {
            const n = new Uint8Array(buf.length + chunk.length);
            n.set(buf);
            n.set(chunk, buf.length);
            buf = n;
            if (buf.length >= 2 && buf.length >= 2 + getU16(buf, 0)) finish(buf.slice(2, 2 + getU16(buf, 0)), s);
          },
          close: () => finish(null),
          error: () => finish(null),
          connectError: () => finish(null),
        },
      }).catch(() => finish(null));
    });
  }
}

function score(u: Upstream): number {
  // untried servers get a chance early, so a fast new one is found
  return u.count === 0 ? 0 : u.smoothed;
}

function normalize(ip: string): string {
  return ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip;
}

function sameQuestion(a: Uint8Array, ctx: QueryContext): boolean {
  if (getU16(a, 4) !== 1) return false;
  const name = readName(a, 12);
  return name !== null && name === ctx.q.name.replace(/\\(\d{3})/g, (_m, d: string) => String.fromCharCode(Number(d)));
}

export function replyType(m: Message): number {
  switch (m.rcode) {
    case RCODE.NXDOMAIN: return Reply.NXDOMAIN;
    case RCODE.SERVFAIL: return Reply.SERVFAIL;
    case RCODE.REFUSED: return Reply.REFUSED;
    case RCODE.NOTIMP: return Reply.NOTIMP;
    case RCODE.NOERROR: break;
    default: return Reply.OTHER;
  }
  const first = m.records.find((r) => r.section === 0);
  if (!first) return Reply.NODATA;
  if (first.type === TYPE.CNAME) return Reply.CNAME;
  if (first.type === TYPE.A || first.type === TYPE.AAAA) return Reply.IP;
  if (first.type === TYPE.PTR || first.type === TYPE.NS || first.type === TYPE.MX) return Reply.DOMAIN;
  return Reply.OTHER;
}
