// The DNS service: UDP and TCP listeners on dns.port (dual-stack), the resolver (engine.ts), and,
// with dns.threads > 1, the extra DNS threads that share the UDP port through SO_REUSEPORT
// (threads/). Settings apply live: upstreams, cache size, the port, the threads and the local records.
// The filter snapshot is src/filter/service.ts's: this server reads the one in force and hands each new
// one to its other threads.
import { probeUpstreams, type UpstreamProbe } from "./upstream-probe.ts";
import { availableParallelism } from "node:os";
import type { TCPSocketListener } from "bun";
import type { Runtime } from "../core/runtime.ts";
import type { Config, ConfigStore } from "../config/index.ts";
import type { QuerySink } from "../query/record.ts";
import type { TlsStore } from "../tls/store.ts";
import type { FilterHandle } from "../filter/service.ts";
import type { Pending } from "./context.ts";
import type { CacheCounters } from "./cache.ts";
import type { UpstreamStats } from "./forwarder.ts";
import { ClientNames } from "./client-names.ts";
import { certificateName } from "./special.ts";
import { HALF_OPEN, TcpConnections, type TcpState } from "./tcp-listener.ts";
import { startDotListener, type DotListener } from "./dot-listener.ts";
import { listenFailure } from "../core/start-errors.ts";
import { QueryEngine, type Origins } from "./engine.ts";
import { UdpListeners } from "./udp-listeners.ts";
import { DnsThreads } from "./threads/pool.ts";
import type { LeaseNames } from "./threads/protocol.ts";
import { sumCache, sumFields, sumOrigins, sumUpstreams } from "./threads/sums.ts";
import type { RecursiveCounters } from "./recursive/handler.ts";
import { forThreads } from "./threads/shared-snapshot.ts";

interface DnsDeps extends Pick<Runtime, "config" | "queryDb" | "events" | "blocking" | "log"> {
  /** where each answered query's record goes (the statistics, and the fleet's history when it is on) */
  sink: QuerySink;
  /** the clients seen lately, whose host names the PTR lookups find */
  recentClients: () => Iterable<string>;
  /** the certificate DNS over TLS serves */
  tls: TlsStore;
  /** the filter snapshot in force, and its swaps to hand to the other DNS threads (src/filter/service.ts) */
  filter: Pick<FilterHandle, "current" | "onSwap">;
}

/** What the API and the other services see of the DNS engine (src/services.ts alone starts and stops it). */
export interface DnsHandle {
  cache(): CacheCounters;
  /** restartdns (with the filter's rebuild): empties every DNS thread's cache; resolves once all are empty */
  flushCache(): Promise<void>;
  /** one query from a DoH client: the same chain, policy and query log as UDP (`clientId` from the URL) */
  query(msg: Uint8Array, client: string, clientId: string | null): Pending;
  /** client address → host name, as far as the PTR lookups found them */
  clientNames(): Iterable<[string, string]>;
  /** answers by origin since start (forwarded, unanswered, local, optimized, auth) */
  replies(): Origins;
  /** resolution from the root (dns.recursive) since start */
  recursive(): RecursiveCounters;
  /** queries answered by each DNS thread since it started (the main thread first) */
  threadAnswers(): number[];
  /** Resolves once every query answered so far is in the statistics (the DNS threads' records are sent in batches). */
  syncRecords(): Promise<void>;
  /** whether the upstream in use passes DNSSEC records: the root's DNSKEY with its RRSIG (null: no answer) */
  rootKeysSigned(): Promise<{ signed: boolean; upstream: string | null } | null>;
  /** the "Test upstreams" action: each server of `entries` (as dns.upstreams takes them) asked for `name` once */
  testUpstreams(entries: readonly string[], name: string, type: "A" | "AAAA"): Promise<UpstreamProbe[]>;
}

/** dns.threads: 0 means one per core. */
function threadCount(setting: number): number {
  return Math.max(1, setting === 0 ? availableParallelism() : setting);
}

/** How many DNS threads of their own answer UDP (0: the main thread alone); the main thread answers too with dns.interface set. */
function workerCount(dns: Config["dns"]): number {
  const threads = threadCount(dns.threads);
  const single = (dns.listeningMode === "SINGLE" || dns.listeningMode === "BIND") && dns.interface !== "";
  if (single) return threads - 1;
  return threads > 1 || dns.offMainThread ? threads : 0;
}

/** What the filter applies to each build's data: with other DNS threads to post it to, shared memory or its mapped file. */
export function snapshotForThreads(config: ConfigStore): <T extends object>(data: T) => T {
  return (data) => (workerCount(config.current.dns) > 0 ? forThreads(data) : data);
}

export class DnsServer implements DnsHandle {
  port: number;
  private udp: UdpListeners | null = null;
  private tcp: TCPSocketListener<TcpState>[] = [];
  private threads: DnsThreads | null = null;
  /** host names of the clients (PTR lookups through our own chain) */
  readonly names: ClientNames;
  private readonly engine: QueryEngine;
  private readonly tcpConns: TcpConnections;
  private leaseNames: LeaseNames = [];
  private unsub: Array<() => void> = [];

  constructor(private readonly rt: DnsDeps) {
    const cfg = rt.config.current.dns;
    this.port = cfg.port;
    this.names = new ClientNames({
      config: () => rt.config.current,
      clients: rt.recentClients,
      lookupPtr: (ip) => this.lookupPtr(ip),
      db: rt.queryDb,
      changed: (ip) => {
        this.rt.filter.current.forget(ip);
        void this.threads?.name(ip, this.names.nameOf(ip));
      },
    });
    this.engine = new QueryEngine({
      config: rt.config,
      blocking: rt.blocking,
      sink: rt.sink,
      log: rt.log,
      rateLimited: (client, seconds) => this.rateLimited(client, seconds),
      loop: (upstream) => void rt.events.emit("forwarding-loop", { upstream }),
      snapshot: () => this.rt.filter.current,
      certName: () => certificateName(rt.tls),
    });
    this.tcpConns = new TcpConnections(
      (msg, client) => this.handle(msg, client, true),
      () => rt.config.current.dns.tcp,
    );
  }

  private dot: DotListener | null = null;

  async start(): Promise<void> {
    // each new snapshot goes to the other DNS threads; the filter's change resolves once they have it
    this.unsub.push(this.rt.filter.onSwap((snap, domainsOnly) => this.threads?.snapshot(snap, domainsOnly)));
    await this.engine.start();
    await this.listen(this.port);
    this.listenTls(this.rt.config.current.dns.tls.port, false);
    this.names.start();
    this.unsub.push(
      this.rt.events.on("dhcp-names-changed", ({ names }) => {
        this.leaseNames = names;
        this.engine.local.setLeaseNames(names);
        // a device named by its new lease should not wait an hour for its name in the statistics
        for (const { ip } of names) this.names.forgetIfUnnamed(ip);
        return this.threads?.leases(names);
      }),
    );
    this.unsub.push(this.rt.events.on("blocking-changed", ({ active }) => this.threads?.blocking(active)));
    this.unsub.push(
      this.rt.config.subscribe((next, prev, changed) => {
        const d = next.dns,
          p = prev.dns;
        // the other DNS threads take every change; the API answers once they have it (read-your-writes)
        if (this.threads && changed.some((c) => c.startsWith("dns.")))
          this.rt.events.inForce("config", this.threads.config(next, changed));
        // the engine made a new shared table of answers (it heard the change first)
        if (this.threads && d.cache.size !== p.cache.size)
          this.rt.events.inForce("dns.cache.size", this.threads.cache(this.engine.cache.shared().answers));
        if (
          d.port !== p.port ||
          d.listeningMode !== p.listeningMode ||
          d.interface !== p.interface ||
          d.threads !== p.threads ||
          d.offMainThread !== p.offMainThread
        )
          this.rt.events.inForce("dns.port", this.rebind(d.port));
        if (d.tls.port !== p.tls.port) {
          this.dot?.stop();
          this.dot = null;
          this.listenTls(d.tls.port, true);
        }
      }),
    );
  }

  /**
   * Binds UDP and TCP on every listening address. UDP: the wildcard (dual-stack, else IPv4) and each
   * local address beside it, or with listeningMode SINGLE/BIND the addresses of dns.interface plus
   * loopback (as dnsmasq adds lo); either set is kept in step as addresses come and go, so an answer
   * leaves from the address asked (udp-listeners.ts). TCP answers from the connection's own address
   * anyway: the wildcard, or SINGLE/BIND's addresses as they were at the bind. With dns.threads > 1
   * the extra threads bind the same UDP set (SO_REUSEPORT); TCP, DoT and DoH stay on this thread.
   */
  private async listen(port: number): Promise<void> {
    const handleUdp = (buf: Uint8Array, client: string) => this.engine.handle(buf, client, false);
    const tcp = this.tcpConns.handlers();
    const dns = this.rt.config.current.dns;
    const single = (dns.listeningMode === "SINGLE" || dns.listeningMode === "BIND") && dns.interface !== "";
    const iface = single ? dns.interface : null;
    // With DNS threads and no interface to keep to, they answer UDP on every address and this thread
    // keeps only the wildcard (what no address's socket holds): its heap holds the 24 h window, and
    // its collector's pauses were the slowest answers (bench/mix: p99 at one thread).
    const workers = workerCount(dns);
    const workersAnswer = workers > 0 && !single;
    const udp = new UdpListeners(port, iface, true, handleUdp, this.rt.log, !workersAnswer);
    const tcps: TCPSocketListener<TcpState>[] = [];
    const close = () => this.closeListeners(udp, tcps);
    try {
      await udp.start();
    } catch (e) {
      if (/no address of interface/.test((e as Error).message)) throw e;
      throw new Error(listenFailure("DNS", `port ${port}`, port, e, "dns.port"));
    }
    for (const host of single ? udp.hosts() : [udp.hosts()[0]!]) {
      try {
        tcps.push(Bun.listen<TcpState>({ hostname: host, port, socket: tcp, ...HALF_OPEN }));
      } catch (e) {
        if (!single || /EADDRINUSE/.test(`${(e as Error).message} ${(e as { code?: string }).code}`)) {
          await close();
          throw new Error(listenFailure("DNS", `port ${port}`, port, e, "dns.port"));
        }
        this.rt.log("warn", `DNS: cannot listen on ${host}:${port} (TCP): ${(e as Error).message}`);
      }
    }
    let pool: DnsThreads | null = null;
    if (workers > 0) {
      try {
        pool = await DnsThreads.start({
          count: workers,
          port,
          iface,
          config: this.rt.config,
          blocking: this.rt.blocking,
          snapshot: () => this.rt.filter.current,
          leases: () => this.leaseNames,
          names: () => this.names.known(),
          // read now: DoT or DoH may be switched on later, and a thread has no certificate of its own
          certName: () => certificateName(this.rt.tls),
          cache: () => this.engine.cache.shared(),
          sink: () => this.rt.sink,
          loop: (upstream) => void this.rt.events.emit("forwarding-loop", { upstream }),
          log: this.rt.log,
          rateLimited: (client, seconds) => this.rateLimited(client, seconds),
          died: (thread, text) => void this.rt.events.emit("dns-thread-died", { thread, text }),
        });
      } catch (e) {
        await close();
        throw new Error(listenFailure("DNS", `port ${port}`, port, e, "dns.port"));
      }
    }
    this.udp = udp;
    this.tcp = tcps;
    this.threads = pool;
    this.port = port;
  }

  /**
   * DNS over TLS on `port` (0: off), with the certificate of src/tls. A port it cannot have is
   * reported, not fatal: plain DNS and the API matter more than this one listener.
   */
  private listenTls(port: number, announce: boolean): void {
    if (!port) return;
    try {
      this.dot = startDotListener({
        port,
        tls: this.rt.tls,
        log: this.rt.log,
        handle: (msg, client, id) => this.handle(msg, client, true, id, true),
        limits: () => this.rt.config.current.dns.tcp,
      });
    } catch (e) {
      const why = /EADDRINUSE/.test(`${(e as Error).message} ${(e as { code?: string }).code}`)
        ? "the port is already in use"
        : (e as Error).message;
      this.rt.log("error", `cannot listen for DNS over TLS on port ${port}: ${why}`);
      return;
    }
    // at start services.ts prints every listener once all of them listen; a change says so itself
    if (announce) console.log(`moat: DNS over TLS listening on tcp [::]:${this.dot.port}`);
  }

  query(msg: Uint8Array, client: string, clientId: string | null): Pending {
    return this.engine.handle(msg, client, true, clientId, true, true);
  }

  dotPort(): number {
    return this.dot?.port ?? 0;
  }

  private async rebind(port: number): Promise<void> {
    const oldUdp = this.udp,
      oldTcp = this.tcp,
      oldThreads = this.threads;
    // the same port: the old sockets must go first or the new ones cannot bind it
    const samePort = port === this.port;
    if (samePort) await this.closeListeners(oldUdp, oldTcp, oldThreads);
    try {
      await this.listen(port);
      if (!samePort) await this.closeListeners(oldUdp, oldTcp, oldThreads);
      console.log(`moat: DNS listening on udp [::]:${port}/tcp [::]:${port}`);
    } catch (e) {
      this.rt.log("error", (e as Error).message);
      if (samePort) await this.listen(port).catch(() => {});
      else {
        this.udp = oldUdp;
        this.tcp = oldTcp;
        this.threads = oldThreads;
      }
    }
  }

  private async closeListeners(
    udp: UdpListeners | null,
    tcps: TCPSocketListener<TcpState>[],
    threads: DnsThreads | null = null,
  ): Promise<void> {
    await udp?.close();
    for (const t of tcps) t.stop(true);
    if (threads) {
      if (this.threads === threads) this.threads = null;
      await threads.stop();
    }
  }

  /** One query from TCP, DoT or DoH (UDP goes straight to the engine). */
  private handle(
    buf: Uint8Array,
    source: string,
    tcp: boolean,
    clientId: string | null = null,
    encrypted = false,
  ): Pending {
    return this.engine.handle(buf, source, tcp, clientId, encrypted);
  }

  /** A PTR lookup through the resolver chain that records nothing (client names). */
  lookupPtr(ip: string): Promise<string | null> {
    return this.engine.lookupPtr(ip);
  }
  /** Off the query's path: whoever hears the event (src/notices/) writes its message after this answer left. */
  private rateLimited(client: string, seconds: number): void {
    setImmediate(() => void this.rt.events.emit("client-rate-limited", { client, seconds }));
  }

  rootKeysSigned(): ReturnType<QueryEngine["rootKeysSigned"]> {
    return this.engine.rootKeysSigned();
  }

  testUpstreams(entries: readonly string[], name: string, type: "A" | "AAAA"): Promise<UpstreamProbe[]> {
    return probeUpstreams((server, q) => this.engine.forwarder.exchangeOnce(server, q), entries, name, type);
  }

  upstreams(): UpstreamStats[] {
    return sumUpstreams(
      this.engine.forwarder.stats(),
      this.others().map((c) => c.upstreams),
    );
  }

  cache(): CacheCounters {
    return sumCache(
      this.engine.cache.stats(),
      this.others().map((c) => c.cache),
    );
  }

  async flushCache(): Promise<void> {
    this.engine.cache.clear();
    await this.threads?.flush();
  }

  clientNames(): Iterable<[string, string]> {
    return this.names.known();
  }

  replies(): Origins {
    return sumOrigins(
      this.engine.origins,
      this.others().map((c) => c.origins),
    );
  }

  recursive(): RecursiveCounters {
    return sumFields(
      this.engine.recursive.counters(),
      this.others().map((c) => c.recursive),
    );
  }

  syncRecords(): Promise<void> {
    return this.threads ? this.threads.sync() : Promise.resolve();
  }

  threadAnswers(): number[] {
    return [this.engine.answered, ...(this.threads?.counters() ?? []).map((c) => c?.answered ?? 0)];
  }

  /** The extra threads' latest counters (those that reported). */
  private others() {
    return (this.threads?.counters() ?? []).filter((c) => c !== null);
  }

  async stop(): Promise<void> {
    for (const u of this.unsub) u();
    this.names.stop();
    await this.closeListeners(this.udp, this.tcp, this.threads);
    this.tcpConns.stop();
    this.dot?.stop();
    this.engine.stop();
  }
}
