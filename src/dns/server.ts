// The DNS service: UDP and TCP listeners on dns.port (dual-stack), access and rate checks, the
// resolver chain (local → policy → cache → forwarder), truncation, and one query record per answer.
// Settings apply live: upstreams, cache size, the port and the local records.
import type { udp, TCPSocketListener } from "bun";
import type { Runtime } from "../core/runtime.ts";
import { Reply, Status, dbQueryType } from "../stats/enums.ts";
import { FilterEngine } from "../filter/snapshot.ts";
import { normalizeIp } from "../filter/ip.ts";
import { chain, type Pending, type QueryContext, type Answer } from "./context.ts";
import { LocalHandler } from "./local.ts";
import { PolicyHandler } from "./policy.ts";
import { DnsCache, type CacheCounters } from "./cache.ts";
import { Forwarder, type UpstreamStats } from "./forwarder.ts";
import { RateLimiter } from "./ratelimit.ts";
import { addressesOf, isLocalClient } from "./iface.ts";
import { EcsTrust, ecsClient } from "./ecs.ts";
import { UdpBatcher } from "./udp-batch.ts";
import { buildReply, errorFromHeader, truncateFor } from "./reply.ts";
import { RCODE, TYPE, WireError, nameToWire, parseQuery, readName, walkMessage, type Question } from "./wire.ts";
import { ClientNames } from "./client-names.ts";
import { TcpConnections, type TcpState } from "./tcp-listener.ts";
import { startDotListener, type DotListener } from "./dot-listener.ts";
import { ipToPtr } from "../filter/ip.ts";
import { listenFailure } from "../core/start-errors.ts";

/** What the rest of Moat sees of the DNS engine (rt.dns). */
export interface DnsHandle {
  port: number;
  upstreams(): UpstreamStats[];
  cache(): CacheCounters;
  /** filter snapshot generation and sizes */
  filter(): { generation: number; builtAt: number; gravity: number; antigravity: number; allow: number; deny: number; regex: number };
  /** rebuild the filter snapshot now; resolves when it is live */
  reloadLists(): Promise<void>;
  flushCache(): void;
  /** one query from a DoH client: the same chain, policy and query log as UDP (`clientId` from the URL) */
  query(msg: Uint8Array, client: string, clientId: string | null): Pending;
  /** the DNS-over-TLS port, 0 when off */
  dotPort(): number;
  /** client address → host name, as far as the PTR lookups found them */
  clientNames(): Iterable<[string, string]>;
  /** answers by origin since start (forwarded, unanswered, local, optimized, auth) */
  replies(): { forwarded: number; unanswered: number; local: number; optimized: number; auth: number };
  stop(): Promise<void>;
}

const UPSTREAM_TIMEOUT_MS = 1500;

export class DnsServer implements DnsHandle {
  port: number;
  private udp: udp.Socket<"uint8array">[] = [];
  private tcp: TCPSocketListener<TcpState>[] = [];
  readonly filterEngine: FilterEngine;
  /** host names of the clients (PTR lookups through our own chain) */
  readonly names: ClientNames;
  private readonly forwarder: Forwarder;
  private readonly cacheH: DnsCache;
  private readonly resolve: (ctx: QueryContext) => Pending;
  private readonly local: LocalHandler;
  private readonly limiter: RateLimiter;
  private readonly ecsTrust: EcsTrust;
  private readonly tcpConns: TcpConnections;
  private unsub: Array<() => void> = [];

  constructor(private readonly rt: Runtime) {
    const cfg = rt.config.current.dns;
    this.port = cfg.port;
    this.names = new ClientNames({
      config: () => rt.config.current,
      clients: () => rt.stats?.window.clients.keys() ?? [],
      lookupPtr: (ip) => this.lookupPtr(ip),
      db: rt.queryDb,
      changed: (ip) => this.filterEngine.current.clients.forget(ip),
    });
    this.filterEngine = new FilterEngine({ dbPath: rt.paths.gravityDb, log: rt.log, clientOpts: { hostnameOf: (ip) => this.names.nameOf(ip) } });
    this.forwarder = new Forwarder({ timeoutMs: UPSTREAM_TIMEOUT_MS, attempts: 3, log: rt.log, revServers: () => rt.config.current.dns.revServers, bootstrap: () => rt.config.current.dns.bootstrap });
    this.forwarder.setUpstreams(cfg.upstreams);
    this.cacheH = new DnsCache(cfg.cache.size, () => rt.config.current.dns.cache.optimizer);
    this.local = new LocalHandler(rt.config);
    this.resolve = chain([this.local, new PolicyHandler(rt.config, rt.blocking), this.cacheH, this.forwarder]);
    this.tcpConns = new TcpConnections((msg, client) => this.handle(msg, client, true), () => rt.config.current.dns.tcp);
    this.ecsTrust = new EcsTrust(() => rt.config.current.dns.ecs.trustedSources);
    this.limiter = new RateLimiter(() => rt.config.current.dns.rateLimit, (m) => rt.log("warn", m));
  }

  private dot: DotListener | null = null;

  async start(): Promise<void> {
    await this.filterEngine.start();
    await this.forwarder.start();
    await this.listen(this.port);
    this.listenTls(this.rt.config.current.dns.tls.port, false);
    this.names.start();
    // the promise tells the API when the new snapshot answers queries (read-your-writes)
    const reload = () => this.filterEngine.rebuild();
    this.unsub.push(
      this.rt.events.on("dhcp-names-changed", ({ names }) => {
        this.local.setLeaseNames(names);
        // a device named by its new lease should not wait an hour for its name in the statistics
        for (const { ip } of names) this.names.forgetIfUnnamed(ip);
      }),
    );
    this.unsub.push(this.rt.events.on("lists-changed", reload), this.rt.events.on("gravity-updated", reload));
    this.unsub.push(
      this.rt.config.subscribe((next, prev) => {
        const d = next.dns, p = prev.dns;
        if (d.upstreams !== p.upstreams) this.forwarder.setUpstreams(d.upstreams);
        if (d.cache.size !== p.cache.size) this.cacheH.resize(d.cache.size);
        if (d.port !== p.port || d.listeningMode !== p.listeningMode || d.interface !== p.interface) void this.rebind(d.port);
        if (d.tls.port !== p.tls.port) {
          this.dot?.stop();
          this.dot = null;
          this.listenTls(d.tls.port, true);
        }
      }),
    );
  }

  /**
   * Binds UDP and TCP on every listening address: the wildcard (dual-stack, else IPv4), or with
   * listeningMode SINGLE/BIND the addresses of dns.interface plus loopback (as dnsmasq adds lo).
   */
  private async listen(port: number): Promise<void> {
    const batchers = new WeakMap<udp.Socket<"uint8array">, UdpBatcher>();
    const batcherOf = (sock: udp.Socket<"uint8array">) => {
      let b = batchers.get(sock);
      if (!b) batchers.set(sock, (b = new UdpBatcher((q) => sock.sendMany(q))));
      return b;
    };
    const onUdp = (sock: udp.Socket<"uint8array">, buf: Uint8Array, rport: number, addr: string) => {
      const client = normalizeIp(addr);
      const r = this.handle(buf, client, false);
      // forwarded answers come back in bursts too (one upstream datagram batch): they leave batched as well
      if (r instanceof Promise) r.then((a) => a && batcherOf(sock).send(a, rport, addr), () => {});
      else if (r) batcherOf(sock).send(r, rport, addr);
    };
    const tcp = this.tcpConns.handlers();
    const dns = this.rt.config.current.dns;
    const single = (dns.listeningMode === "SINGLE" || dns.listeningMode === "BIND") && dns.interface !== "";
    const candidates = single ? [...new Set([...addressesOf(dns.interface), "127.0.0.1", "::1"])] : ["::"];
    const udps: udp.Socket<"uint8array">[] = [], tcps: TCPSocketListener<TcpState>[] = [];
    const close = () => {
      for (const u of udps) u.close();
      for (const t of tcps) t.stop(true);
    };
    const bind = async (hostname: string) => {
      udps.push(await Bun.udpSocket({ hostname, port, binaryType: "uint8array", socket: { data: onUdp, error: () => {} } }));
      tcps.push(Bun.listen<TcpState>({ hostname, port, socket: tcp }));
    };
    const inUse = (e: unknown) => /EADDRINUSE/.test(`${(e as Error).message} ${(e as { code?: string }).code}`);
    for (const host of candidates) {
      try {
        await bind(host);
      } catch (e) {
        if (inUse(e)) {
          close();
          throw new Error(listenFailure("DNS", `port ${port}`, port, e, "dns.port"));
        }
        if (host === "::") {
          // no IPv6 on this host: IPv4 only
          try {
            await bind("0.0.0.0");
          } catch (e2) {
            close();
            throw new Error(listenFailure("DNS", `port ${port}`, port, e2, "dns.port"));
          }
        } else this.rt.log("warn", `DNS: cannot listen on ${host}:${port}: ${(e as Error).message}`);
      }
    }
    if (!udps.length) throw new Error(`cannot listen for DNS on port ${port}: no address of interface "${dns.interface}" could be bound`);
    this.udp = udps;
    this.tcp = tcps;
    this.port = port;
  }

  /**
   * DNS over TLS on `port` (0: off), with the certificate of src/tls. A port it cannot have is
   * reported, not fatal: plain DNS and the API matter more than this one listener.
   */
  private listenTls(port: number, announce: boolean): void {
    if (!port || !this.rt.tls) return;
    try {
      this.dot = startDotListener({ port, tls: this.rt.tls, log: this.rt.log, handle: (msg, client, id) => this.handle(msg, client, true, id, true), limits: () => this.rt.config.current.dns.tcp });
    } catch (e) {
      const why = /EADDRINUSE/.test(`${(e as Error).message} ${(e as { code?: string }).code}`) ? "the port is already in use" : (e as Error).message;
      this.rt.log("error", `cannot listen for DNS over TLS on port ${port}: ${why}`);
      return;
    }
    // at start services.ts prints every listener once all of them listen; a change says so itself
    if (announce) console.log(`moat: DNS over TLS listening on tcp [::]:${this.dot.port}`);
  }

  query(msg: Uint8Array, client: string, clientId: string | null): Pending {
    return this.handle(msg, client, true, clientId, true);
  }

  dotPort(): number {
    return this.dot?.port ?? 0;
  }

  private async rebind(port: number): Promise<void> {
    const oldUdp = this.udp, oldTcp = this.tcp;
    // the same port: the old sockets must go first or the new ones cannot bind it
    const samePort = port === this.port;
    if (samePort) this.closeListeners(oldUdp, oldTcp);
    try {
      await this.listen(port);
      if (!samePort) this.closeListeners(oldUdp, oldTcp);
      console.log(`moat: DNS listening on udp [::]:${port}/tcp [::]:${port}`);
    } catch (e) {
      this.rt.log("error", (e as Error).message);
      if (samePort) await this.listen(port).catch(() => {});
      else {
        this.udp = oldUdp;
        this.tcp = oldTcp;
      }
    }
  }

  private closeListeners(udps: udp.Socket<"uint8array">[], tcps: TCPSocketListener<TcpState>[]): void {
    for (const u of udps) u.close();
    for (const t of tcps) t.stop(true);
  }

  /**
   * One query in, one answer (or nothing) out. Never throws. `encrypted` (DoT, DoH): listeningMode
   * LOCAL does not apply, so devices reach their client ID's policy away from home; these transports
   * run over TCP, so they cannot be used to reflect traffic at a forged address as open UDP can.
   */
  handle(buf: Uint8Array, source: string, tcp: boolean, clientId: string | null = null, encrypted = false): Pending {
    let client = source;
    const start = performance.now();
    const dns = this.rt.config.current.dns;
    if (dns.listeningMode === "LOCAL" && !encrypted && !isLocalClient(client)) return null;
    let q;
    try {
      q = parseQuery(buf);
    } catch (e) {
      const rcode = e instanceof WireError ? e.rcode : null;
      return rcode === null ? null : errorFromHeader(buf, rcode);
    }
    // a version we do not speak: BADVERS with our version (0) in the OPT (RFC 6891 §6.1.3)
    if (q.ednsVersion > 0) return buildReply(buf, q, RCODE.BADVERS);
    if (dns.EDNS0ECS && q.optAt >= 0 && this.ecsTrust.trusts(client)) client = ecsClient(buf, q) ?? client;
    if (this.limiter.over(client)) return buildReply(buf, q, RCODE.REFUSED);
    const ctx = this.context(buf, q, client, tcp, start, false);
    ctx.clientId = clientId;
    let r: Pending;
    try {
      r = this.resolve(ctx);
    } catch (e) {
      this.rt.log("error", `query ${q.name}: ${(e as Error).message}`);
      r = buildReply(buf, q, RCODE.SERVFAIL);
    }
    return r instanceof Promise ? this.finishLater(ctx, r) : this.finish(ctx, r);
  }

  // apart from handle(): a closure there would cost every query its captured variables
  private finishLater(ctx: QueryContext, r: Promise<Answer>): Promise<Answer> {
    return r.then((a) => this.finish(ctx, a), (e) => {
      this.rt.log("error", `query ${ctx.q.name}: ${(e as Error).message}`);
      return buildReply(ctx.query, ctx.q, RCODE.SERVFAIL);
    });
  }

  /** A query's context before any handler has looked at it, judged by the current filter snapshot. */
  private context(query: Uint8Array, q: Question, client: string, tcp: boolean, start: number, background: boolean): QueryContext {
    return {
      query, q, client, clientId: null, tcp, start, snapshot: this.filterEngine.current,
      status: Status.UNKNOWN, reply: Reply.UNKNOWN, upstream: null, listId: null, ede: -1, cname: null,
      upstreamMessage: null, cnameChain: null, background,
    };
  }

  private finish(ctx: QueryContext, a: Answer): Answer {
    if (!a) return a;
    this.record(ctx);
    return ctx.tcp ? a : truncateFor(a, ctx.q);
  }

  /** Answers by origin since start, as dnsmasq counts them (/api/info/metrics `replies`). */
  readonly origins = { forwarded: 0, unanswered: 0, local: 0, optimized: 0, auth: 0 };

  private countOrigin(ctx: QueryContext): void {
    const o = this.origins;
    if (ctx.status === Status.CACHE_STALE) o.optimized++;
    else if (ctx.status === Status.FORWARDED || ctx.status === Status.RETRIED || ctx.status === Status.RETRIED_DNSSEC) {
      if (ctx.upstream === null) o.unanswered++; // every upstream failed
      else o.forwarded++;
    } else if (ctx.upstream !== null) {
      // a cache hit or an upstream's own block: answered from the cache or forwarded, not local
      if (ctx.status !== Status.CACHE) o.forwarded++;
    } else if (ctx.status !== Status.UNKNOWN) o.local++; // local records, blocked names, special domains
  }

  private record(ctx: QueryContext): void {
    this.countOrigin(ctx);
    if (!this.rt.config.current.dns.queryLogging) return;
    try {
      this.rt.queries.record({
        time: Date.now() / 1000,
        type: dbQueryType(ctx.q.qtype),
        domain: ctx.q.name,
        client: ctx.client,
        status: ctx.status,
        reply: ctx.reply,
        replyTime: performance.now() - ctx.start,
        upstream: ctx.upstream,
        dnssec: 0,
        listId: ctx.listId,
        ede: ctx.ede,
        cname: ctx.cname,
      });
    } catch {
      // the statistics must never take the DNS down
    }
  }

  /** A PTR lookup through the resolver chain that records nothing (client names). */
  async lookupPtr(ip: string): Promise<string | null> {
    const name = ipToPtr(ip);
    const wire = name && nameToWire(name);
    if (!wire) return null;
    const query = new Uint8Array(12 + wire.length + 4);
    query[1] = 1; // id 1: answers are handed back in process, never sent
    query[2] = 0x01; // RD
    query[5] = 1; // one question
    query.set(wire, 12);
    query[12 + wire.length + 1] = TYPE.PTR;
    query[12 + wire.length + 3] = 1; // IN
    const q = parseQuery(query);
    const ctx = this.context(query, q, "127.0.0.1", true, performance.now(), true);
    const a = await this.resolve(ctx);
    const m = a && walkMessage(a);
    const ptr = m?.rcode === RCODE.NOERROR ? m.records.find((r) => r.section === 0 && r.type === TYPE.PTR) : undefined;
    const host = ptr ? readName(a!, ptr.rdata) : null;
    return host ? host.replace(/\.$/, "") : null;
  }

  upstreams(): UpstreamStats[] {
    return this.forwarder.stats();
  }

  cache(): CacheCounters {
    return this.cacheH.stats();
  }

  filter() {
    const s = this.filterEngine.current;
    return {
      generation: this.filterEngine.generation, builtAt: s.builtAt, gravity: s.gravity.size + s.gravityAbp.size,
      antigravity: s.antigravity.size + s.antigravityAbp.size, allow: s.allowExact.size, deny: s.denyExact.size,
      regex: s.allowRegex.length + s.denyRegex.length,
    };
  }

  reloadLists(): Promise<void> {
    return this.filterEngine.rebuild();
  }

  flushCache(): void {
    this.cacheH.clear();
  }

  clientNames(): Iterable<[string, string]> {
    return this.names.known();
  }

  replies() {
    return { ...this.origins };
  }

  async stop(): Promise<void> {
    for (const u of this.unsub) u();
    this.names.stop();
    this.closeListeners(this.udp, this.tcp);
    this.tcpConns.stop();
    this.dot?.stop();
    this.forwarder.stop();
    this.filterEngine.stop();
  }
}
