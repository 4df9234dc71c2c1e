// Forwards queries to dns.upstreams over UDP (TCP when the answer is truncated). The upstream with
// the best recent response time goes first; one that fails or times out drops back and the next is
// tried; SERVFAIL when every attempt fails. Counts and response times per upstream feed the API.
// Names a per-domain entry of dns.upstreams covers (`[/corp.example/]10.0.0.1`, per-domain.ts) go to its
// servers alone, then names a conditional forwarder covers (dns.revServers) to it alone.
// dns.upstreamMode picks the order (upstream-order.ts), or PARALLEL asks every server at once. upstream.ts sends the UDP
// queries and checks their answers (RFC 5452: random IDs and ports, the question byte for byte).
// Encrypted upstreams (tls://, https://) go through their transport (upstream-dot.ts, upstream-doh.ts).
import { Reply, Status } from "../query/enums.ts";
import type { Handler, Next, Pending, QueryContext } from "./context.ts";
import { buildReply, setU16, type Ede } from "./reply.ts";
import { AA, RCODE, TYPE, getU16, readName, walkMessage, type Message } from "./wire.ts";
import { revServerFor, revServers } from "./rev-servers.ts";
import { upstreamBlockStatus } from "./upstream-blocked.ts";
import { Upstream } from "./upstream.ts";
import { randomU16 } from "./random.ts";
import { FrameReader } from "./tcp-frames.ts";
import { parsePerDomain, parseUpstreamSpec } from "../config/upstream-syntax.ts";
import { PerDomainRoutes } from "./per-domain.ts";
import { orderUpstreams } from "./upstream-order.ts";
import { Bootstrap } from "./bootstrap.ts";
import { DotTransport } from "./upstream-dot.ts";
import { DohTransport } from "./upstream-doh.ts";
import { upstreamKey, upstreamList } from "../policies/upstreams/policy.ts";

export interface UpstreamStats {
  /** "ip#port", or an encrypted upstream as the user wrote it */
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

/** The SERVFAIL of a name with nowhere to go says why (RFC 8914, 22: No Reachable Authority). */
const NO_UPSTREAM: Ede = { code: 22, text: "no upstream configured" };

export class Forwarder implements Handler {
  readonly name = "forward";
  /** dns.upstreams' general servers */
  private ups: Upstream[] = [];
  /** every server of dns.upstreams, general and per-domain */
  private own: Upstream[] = [];
  private perDomain = new PerDomainRoutes<Upstream>();
  /** the groups' own upstream lists (src/filter/'s snapshot), by the list as one string */
  private byGroup = new Map<string, Upstream[]>();
  /** conditional forwarders by "ip#port", kept while they are configured */
  private conditional = new Map<string, Upstream>();

  constructor(
    private readonly opts: {
      timeoutMs: number;
      attempts: number;
      log: (l: "warn" | "info", m: string) => void;
      /** dns.revServers, read per query so a change applies at once */
      revServers?: () => readonly string[];
      /** dns.bootstrap: plain servers that look up the host names of encrypted upstreams */
      bootstrap?: () => readonly string[];
      /** dns.upstreamMode, read per query */
      mode?: () => string;
    },
  ) {
    this.bootstrap = new Bootstrap(() => {
      const own = opts.bootstrap?.() ?? [];
      if (own.length) return [...own];
      return this.ups.filter((u) => !u.enc).map((u) => `${u.ip}#${u.port}`);
    });
  }

  private readonly bootstrap: Bootstrap;

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    for (const u of [...this.own, ...this.conditional.values(), ...[...this.byGroup.values()].flat()]) u.close();
  }

  /** Replaces the upstream list (general and per-domain), keeping the statistics (and sockets) of servers that stay. */
  setUpstreams(list: readonly string[]): void {
    const old = new Map(this.own.map((u) => [u.name, u]));
    const made = new Map<string, Upstream>();
    const general: string[] = [];
    const routes = new PerDomainRoutes<Upstream>();
    for (const s of list) {
      const pd = parsePerDomain(s);
      if (pd === null) general.push(s);
      else if (typeof pd === "string") this.opts.log("warn", `upstream "${s}" is ${pd}: ignored`);
      else {
        const rule = { ups: pd.servers.length ? this.makeUpstreams(pd.servers, old, made) : null };
        for (const d of pd.domains) routes.add(d, rule);
      }
    }
    this.ups = this.makeUpstreams(general, old, made);
    this.perDomain = routes;
    this.own = [...made.values()];
    for (const u of old.values()) u.close();
  }

  /** A group's own upstream list (the snapshot's), made once per distinct list and kept. */
  private groupUpstreams(ctx: QueryContext): Upstream[] {
    const key = upstreamKey(ctx.snapshot, ctx.upstreamSet);
    const list = upstreamList(ctx.snapshot, ctx.upstreamSet);
    if (key === undefined || list === undefined) return this.ups;
    let ups = this.byGroup.get(key);
    if (!ups) this.byGroup.set(key, (ups = this.makeUpstreams(list, new Map())));
    return ups;
  }

  /**
   * Upstreams for the entries of `list`, taking the ones `made` (this list's so far) or `old` has
   * (removed from it) rather than new ones; each one made is added to `made`.
   */
  private makeUpstreams(
    list: readonly string[],
    old: Map<string, Upstream>,
    made = new Map<string, Upstream>(),
  ): Upstream[] {
    const next: Upstream[] = [];
    for (const s of list) {
      const p = parseUpstreamSpec(s);
      if (typeof p === "string") {
        this.opts.log("warn", `upstream "${s}" is ${s.includes("://") ? p : "not an IP address"}: ignored`);
        continue;
      }
      const name = p.kind === "udp" ? `${p.ip}#${p.port}` : s;
      let up = made.get(name) ?? old.get(name);
      if (!up) {
        up = new Upstream(p.kind === "udp" ? p.ip : (p.ip ?? p.host), p.port, name);
        if (p.kind !== "udp") {
          const t = {
            name,
            host: p.host,
            ip: p.ip,
            port: p.port,
            path: p.path,
            bootstrap: this.bootstrap,
            log: this.opts.log,
          };
          up.enc = p.kind === "tls" ? new DotTransport(t) : new DohTransport(t);
        }
      }
      if (!next.includes(up)) next.push(up);
      made.set(name, up);
      old.delete(name);
    }
    return next;
  }

  /**
   * The servers a query goes to, in the order of dns.upstreamMode: its per-domain servers, its
   * conditional forwarder, or its group's upstreams (else dns.upstreams).
   */
  private route(ctx: QueryContext): Upstream[] {
    const name = ctx.q.name;
    const mode = this.opts.mode?.() ?? "FASTEST";
    const perDomain = this.perDomain.find(name);
    if (perDomain?.ups) return orderUpstreams(perDomain.ups, mode);
    const list = this.opts.revServers?.() ?? [];
    const rule = revServerFor(revServers(list), name);
    if (!rule) {
      return orderUpstreams(ctx.upstreamSet === 0 ? this.ups : this.groupUpstreams(ctx), mode);
    }
    const key = `${rule.ip}#${rule.port}`;
    let up = this.conditional.get(key) ?? this.ups.find((u) => u.name === key);
    if (!up) this.conditional.set(key, (up = new Upstream(rule.ip, rule.port, key)));
    return [up];
  }

  /**
   * One query to `server` (a dns.upstreams entry) on a connection of its own, outside the order and
   * statistics (the "Test upstreams" action, upstream-probe.ts): its answer, null when none came, or
   * why `server` is not one.
   */
  exchangeOnce(server: string, query: Uint8Array): Promise<Uint8Array | null> | string {
    const spec = parseUpstreamSpec(server);
    if (typeof spec === "string") return spec;
    const up = this.makeUpstreams([server], new Map())[0]!;
    const ms = this.opts.timeoutMs * this.opts.attempts;
    const sent = up.enc
      ? up.enc.exchange(query, ms)
      : Promise.race([up.send(query, query.length, ms), Bun.sleep(ms).then(() => null)]).then((a) =>
          a && getU16(a, 2) & 0x0200 ? this.viaTcp(up, query) : a,
        );
    return sent.finally(() => up.close());
  }

  stats(): UpstreamStats[] {
    return [...this.own, ...this.conditional.values(), ...[...this.byGroup.values()].flat()].map((u) => ({
      name: u.name,
      ip: u.ip,
      port: u.port,
      count: u.count,
      answered: u.answered,
      failed: u.failed,
      responseTime: u.answered ? u.totalMs / u.answered : 0,
      smoothed: u.smoothed,
    }));
  }

  handle(ctx: QueryContext, _next: Next): Pending {
    return this.forward(ctx);
  }

  private forward(ctx: QueryContext): Promise<Uint8Array> {
    const order = this.route(ctx);
    if (order.length > 1 && this.opts.mode?.() === "PARALLEL") return this.race(ctx, order);
    return this.attempt(ctx, order, 0);
  }

  /** SERVFAIL once every attempt failed (EDE 22 when there was no server to try). */
  private failed(ctx: QueryContext, order: Upstream[]): Uint8Array {
    ctx.status = Status.FORWARDED;
    ctx.reply = Reply.SERVFAIL;
    return buildReply(ctx.query, ctx.q, RCODE.SERVFAIL, undefined, undefined, order.length ? null : NO_UPSTREAM);
  }

  /** One server's answer to the query: over UDP (TCP when truncated) or its encrypted transport; null: none. */
  private exchange(up: Upstream, ctx: QueryContext): Promise<Uint8Array | null> {
    up.count++;
    if (up.enc) return up.enc.exchange(ctx.query, this.opts.timeoutMs);
    return this.viaUdp(up, ctx).then((a) => (a && getU16(a, 2) & 0x0200 ? this.viaTcp(up, ctx.query) : a));
  }

  // Promise steps rather than an async loop: an async function keeps its locals in heap scopes,
  // a dozen objects a query more for the collector.
  private attempt(ctx: QueryContext, order: Upstream[], i: number): Promise<Uint8Array> {
    if (i >= Math.min(this.opts.attempts, order.length)) return Promise.resolve(this.failed(ctx, order));
    const t0 = performance.now();
    return this.exchange(order[i]!, ctx).then((a) => this.judged(ctx, order, i, t0, a));
  }

  /**
   * PARALLEL: every server asked at once; the first answer that is not SERVFAIL or REFUSED is the
   * client's, such an answer only when no other comes, SERVFAIL when none answers.
   */
  private race(ctx: QueryContext, order: Upstream[]): Promise<Uint8Array> {
    return new Promise((resolve) => {
      let left = order.length;
      let done = false;
      let fallback: { a: Uint8Array; m: Message; up: Upstream } | null = null;
      for (const up of order) {
        const t0 = performance.now();
        void this.exchange(up, ctx).then((a) => {
          left--;
          const m = this.measured(ctx, up, t0, a);
          if (done) return;
          if (m && m.rcode !== RCODE.SERVFAIL && m.rcode !== RCODE.REFUSED) {
            done = true;
            resolve(this.accept(ctx, a!, m, up));
          } else if (m) fallback ??= { a: a!, m, up };
          if (!done && left === 0) {
            done = true;
            resolve(fallback ? this.accept(ctx, fallback.a, fallback.m, fallback.up) : this.failed(ctx, order));
          }
        });
      }
    });
  }

  /** Counts `up`'s answer `a` (null: none came) in its statistics; the answer's message when it answers the question. */
  private measured(ctx: QueryContext, up: Upstream, t0: number, a: Uint8Array | null): Message | null {
    const ms = performance.now() - t0;
    const m = a && walkMessage(a);
    if (!a || !m || !sameQuestion(a, ctx)) {
      up.failed++;
      up.smoothed = up.smoothed * 0.5 + this.opts.timeoutMs * 0.5 + 1;
      return null;
    }
    up.answered++;
    up.totalMs += ms;
    // a broken or refusing server is not rewarded for its speed
    if (m.rcode !== RCODE.SERVFAIL && m.rcode !== RCODE.REFUSED)
      up.smoothed = up.smoothed === 0 ? ms : up.smoothed * 0.8 + ms * 0.2;
    return m;
  }

  /** The answer of attempt `i`: accepted, or the next attempt. */
  private judged(
    ctx: QueryContext,
    order: Upstream[],
    i: number,
    t0: number,
    a: Uint8Array | null,
  ): Uint8Array | Promise<Uint8Array> {
    const up = order[i]!;
    const m = this.measured(ctx, up, t0, a);
    if (!m) return this.attempt(ctx, order, i + 1);
    // a broken or refusing upstream: try the next one; its answer stands only when none is left
    if ((m.rcode === RCODE.SERVFAIL || m.rcode === RCODE.REFUSED) && i + 1 < Math.min(this.opts.attempts, order.length))
      return this.attempt(ctx, order, i + 1);
    return this.accept(ctx, a!, m, up);
  }

  /** Makes the upstream's answer ours: `a` is a private copy (onAnswer and viaTcp hand over their own), patched in place. */
  private accept(ctx: QueryContext, a: Uint8Array, m: Message, up: Upstream): Uint8Array {
    ctx.status = upstreamBlockStatus(a, m, ctx.q.qtype) ?? Status.FORWARDED;
    a[0] = ctx.query[0]!;
    a[1] = ctx.query[1]!;
    a[2] = a[2]! & ~(AA >> 8); // the answer is not ours
    a[3] = a[3]! | 0x80; // RA: we recurse for the client
    ctx.upstream = up.name;
    ctx.upstreamMessage = m;
    noteReply(ctx, a, m);
    return a;
  }

  private viaUdp(up: Upstream, ctx: QueryContext): Promise<Uint8Array | null> {
    if (up.closed) return NO_ANSWER;
    this.sweepSoon();
    return up.send(ctx.query, ctx.q.end, this.opts.timeoutMs);
  }

  private sweeper: ReturnType<typeof setInterval> | null = null;

  /** A sweep every 50 ms while queries are in flight: timeouts fire within 50 ms of their deadline. */
  private sweepSoon(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = performance.now();
      let inFlight = 0;
      for (const u of [...this.own, ...this.conditional.values(), ...[...this.byGroup.values()].flat()])
        inFlight += u.expire(now);
      if (inFlight === 0 && this.sweeper) {
        clearInterval(this.sweeper);
        this.sweeper = null;
      }
    }, 50);
  }

  private async viaTcp(up: Upstream, query: Uint8Array): Promise<Uint8Array | null> {
    return new Promise((resolve) => {
      let done = false;
      let sock: { end(): void } | undefined;
      // the answer is read once into its own buffer, however it is chunked (tcp-frames.ts)
      const reader = new FrameReader((a) => finish(a.length >= 12 && getU16(a, 0) === id ? a : null, sock));
      const finish = (v: Uint8Array | null, s?: { end(): void }) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        s?.end();
        resolve(v);
      };
      const timer = setTimeout(() => finish(null), this.opts.timeoutMs * 2);
      // a random ID here too, and the answer must carry it and the question
      const id = randomU16();
      const framed = new Uint8Array(query.length + 2);
      setU16(framed, 0, query.length);
      framed.set(query, 2);
      setU16(framed, 2, id);
      Bun.connect({
        hostname: up.ip,
        port: up.port,
        socket: {
          open: (s) => void s.write(framed),
          data: (s, chunk) => {
            sock = s;
            if (!done) reader.push(chunk);
          },
          close: () => finish(null),
          error: () => finish(null),
          connectError: () => finish(null),
        },
      }).catch(() => finish(null));
    });
  }
}

const NO_ANSWER: Promise<Uint8Array | null> = Promise.resolve(null);

/** The answer's question is the one asked: the same name (in any case), type and class, byte for byte. */
function sameQuestion(a: Uint8Array, ctx: QueryContext): boolean {
  if (getU16(a, 4) !== 1) return false;
  const wire = ctx.q.wire; // lowercase
  if (a.length < 12 + wire.length + 4) return false;
  for (let i = 0; i < wire.length; i++) {
    const c = a[12 + i]!;
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== wire[i]) return false;
  }
  const o = 12 + wire.length;
  return getU16(a, o) === ctx.q.qtype && getU16(a, o + 2) === ctx.q.qclass;
}

/** Records what the answer `a` (walked as `m`) says for the query log: its reply type and CNAME chain. */
export function noteReply(ctx: QueryContext, a: Uint8Array, m: Message): void {
  ctx.reply = replyType(m);
  let chain: string[] | null = null;
  for (const r of m.records) {
    if (r.section !== 0 || r.type !== TYPE.CNAME) continue;
    const t = readName(a, r.rdata);
    if (t) (chain ??= []).push(t);
  }
  if (chain) ctx.cnameChain = chain;
}

function replyType(m: Message): number {
  switch (m.rcode) {
    case RCODE.NXDOMAIN:
      return Reply.NXDOMAIN;
    case RCODE.SERVFAIL:
      return Reply.SERVFAIL;
    case RCODE.REFUSED:
      return Reply.REFUSED;
    case RCODE.NOTIMP:
      return Reply.NOTIMP;
    case RCODE.NOERROR:
      break;
    default:
      return Reply.OTHER;
  }
  const first = m.records.length && m.records[0]!.section === 0 ? m.records[0]! : null;
  if (!first) return Reply.NODATA;
  if (first.type === TYPE.CNAME) return Reply.CNAME;
  if (first.type === TYPE.A || first.type === TYPE.AAAA) return Reply.IP;
  if (first.type === TYPE.PTR || first.type === TYPE.NS || first.type === TYPE.MX) return Reply.DOMAIN;
  return Reply.OTHER;
}
