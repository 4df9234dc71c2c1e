// One thread's resolver: the access and rate checks, the chain (special names → local → policy → cache →
// forwarder), truncation and one query record per answer. The main thread's DnsServer runs one, and
// so does each extra DNS thread (threads/worker.ts) with its own forwarder; the cache's answers are shared.
import type { Config } from "../config/index.ts";
import { Reply, Status, dbQueryType } from "../query/enums.ts";
import type { QueryRecord, QuerySink } from "../query/record.ts";
import type { Snapshot } from "../filter/snapshot.ts";
import { ipToPtr } from "../net/ip.ts";
import { chain, type ConfigView, type Pending, type QueryContext, type Answer } from "./context.ts";
import { LocalHandler } from "./local.ts";
import { SpecialNamesHandler } from "./special.ts";
import { PolicyHandler } from "./policy.ts";
import { DnsCache, type SharedCacheMemory } from "./cache.ts";
import { Forwarder } from "./forwarder.ts";
import { RecursiveHandler } from "./recursive/handler.ts";
import { T } from "./dnssec/records.ts";
import { DnssecHandler, keyQuery } from "./validate.ts";
import { RateLimiter } from "./ratelimit.ts";
import { isLocalClient } from "./iface.ts";
import { EcsTrust, ecsClient } from "./ecs.ts";
import { ClientAccess } from "./access.ts";
import { buildReply, errorFromHeader, truncateFor } from "./reply.ts";
import { RCODE, TYPE, WireError, parseQuery, readName, walkMessage, type Question } from "./wire.ts";
import { nameToWire } from "../net/dns-name.ts";
import { sentTo } from "./own-queries.ts";
import { AnswerTextMemo } from "./answer-text-memo.ts";

export interface EngineDeps {
  config: ConfigView;
  /** the global blocking switch (read on every query) */
  blocking: { readonly active: boolean };
  /** where each answered query's record goes */
  sink: QuerySink;
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** the filter snapshot in force */
  snapshot: () => Snapshot;
  /** the name on Moat's certificate, where DDR (special.ts) points devices; null: none */
  certName: () => string | null;
  /** a client's rate-limit episode began (ratelimit.ts): must only hand it off, it runs on the hot path */
  rateLimited?: (client: string, seconds: number) => void;
  /** a query this thread forwarded to `upstream` came back to Moat: the upstream is Moat itself */
  loop: (upstream: string) => void;
  /** the main thread's cache memory, in another DNS thread (threads/worker.ts); else the engine makes it */
  sharedCache?: SharedCacheMemory;
}

/** RFC 8914 has no code for it: 0 (Other) with the words */
const LOOP_EDE = { code: 0, text: "forwarding loop: the upstream sent this query back to Moat" };

const UPSTREAM_TIMEOUT_MS = 1500;

/** Answers by origin since start, as dnsmasq counts them (/api/info/metrics `replies`). */
export interface Origins {
  forwarded: number;
  unanswered: number;
  local: number;
  optimized: number;
  auth: number;
}

export class QueryEngine {
  readonly local: LocalHandler;
  readonly cache: DnsCache;
  readonly forwarder: Forwarder;
  /** dns.recursive: cache misses resolved from the root instead of forwarded */
  readonly recursive: RecursiveHandler;
  readonly origins: Origins = { forwarded: 0, unanswered: 0, local: 0, optimized: 0, auth: 0 };
  /** queries answered (recorded or not) */
  answered = 0;
  /** the record handed to the sink, filled anew for each query */
  private readonly rec: QueryRecord = {
    time: 0,
    type: 0,
    domain: "",
    client: "",
    status: 0,
    reply: 0,
    replyTime: 0,
    upstream: null,
    dnssec: 0,
    listId: null,
    ede: -1,
    cname: null,
    answers: null,
  };
  /** each distinct answer section's text, so a repeated answer costs no walk and no string (answer-text-memo.ts) */
  private readonly answerTexts = new AnswerTextMemo();
  private readonly resolve: (ctx: QueryContext) => Pending;
  /** the context of a query answered at once, for the next one (fill()); null while a query uses it */
  private spare: QueryContext | null = null;
  private readonly limiter: RateLimiter;
  private readonly ecsTrust: EcsTrust;
  private readonly access: ClientAccess;
  private unsub: (() => void) | null = null;

  constructor(private readonly d: EngineDeps) {
    const config = d.config;
    const cfg = config.current.dns;
    this.forwarder = new Forwarder({
      timeoutMs: UPSTREAM_TIMEOUT_MS,
      attempts: 3,
      log: d.log,
      revServers: () => config.current.dns.revServers,
      mode: () => config.current.dns.upstreamMode,
      bootstrap: () => config.current.dns.bootstrap,
    });
    this.forwarder.setUpstreams(cfg.upstreams);
    this.cache = new DnsCache(
      cfg.cache.size,
      () => config.current.dns.cache.optimizer,
      Date.now,
      d.sharedCache ?? null,
    );
    this.local = new LocalHandler(config);
    this.recursive = new RecursiveHandler(config, d.log);
    this.resolve = chain([
      new SpecialNamesHandler(config, d.certName),
      this.local,
      new PolicyHandler(config, d.blocking),
      this.cache,
      new DnssecHandler(config, (name, type, query) => this.fetchForValidation(name, type, query)),
      this.recursive,
      this.forwarder,
    ]);
    this.ecsTrust = new EcsTrust(() => config.current.dns.ecs.trustedSources);
    this.access = new ClientAccess(() => config.current.dns.access);
    this.limiter = new RateLimiter(
      () => config.current.dns.rateLimit,
      (m) => d.log("warn", m),
      d.rateLimited,
    );
  }

  async start(): Promise<void> {
    this.unsub = this.d.config.subscribe((next: Config, prev: Config) => {
      if (next.dns.upstreams !== prev.dns.upstreams) this.forwarder.setUpstreams(next.dns.upstreams);
      if (next.dns.cache.size !== prev.dns.cache.size) this.cache.resize(next.dns.cache.size);
    });
  }

  stop(): void {
    this.unsub?.();
    this.forwarder.stop();
    this.recursive.stop();
  }

  /**
   * One query in, one answer (or nothing) out. Never throws. `encrypted` (DoT, DoH): listeningMode
   * LOCAL does not apply, so devices reach their client ID's policy away from home; these transports
   * run over TCP, so they cannot be used to reflect traffic at a forged address as open UDP can.
   */
  handle(
    buf: Uint8Array,
    source: string,
    tcp: boolean,
    clientId: string | null = null,
    encrypted = false,
    /** DoH: the body is one DNS message (RFC 8484 §4.1), so bytes after its last record make it malformed */
    whole = false,
  ): Pending {
    let client = source;
    const start = performance.now();
    const dns = this.d.config.current.dns;
    if (dns.listeningMode === "LOCAL" && !encrypted && !isLocalClient(client)) return null;
    let q: ReturnType<typeof parseQuery>;
    try {
      // the spare context's question too: no one holds it (a handler that keeps a query returns a promise)
      q = parseQuery(buf, this.spare === null ? null : this.spare.q);
    } catch (e) {
      const rcode = e instanceof WireError ? e.rcode : null;
      return rcode === null ? null : errorFromHeader(buf, rcode);
    }
    // bytes after the last record the header counts: UDP and TCP answer as if they were not there,
    // as unbound and dnsmasq do, and pass on only the message (a strict upstream, BIND say, would
    // answer the whole with FORMERR); a DoH body with them is not one message (RFC 1035 §4.1)
    if (q.size < buf.length) {
      if (whole) return buildReply(buf, q, RCODE.FORMERR);
      buf = buf.subarray(0, q.size);
    }
    // a version we do not speak: BADVERS with our version (0) in the OPT (RFC 6891 §6.1.3)
    if (q.ednsVersion > 0) return buildReply(buf, q, RCODE.BADVERS);
    // one of our own forwarded queries, back again: forwarding it once more is the loop (own-queries.ts)
    const loopedVia = sentTo(buf, q.end);
    if (loopedVia !== null) {
      this.d.loop(loopedVia);
      return buildReply(buf, q, RCODE.SERVFAIL, undefined, undefined, LOOP_EDE);
    }
    if (dns.EDNS0ECS && q.optAt >= 0 && this.ecsTrust.trusts(client)) client = ecsClient(buf, q) ?? client;
    if (this.limiter.over(client)) return buildReply(buf, q, RCODE.REFUSED);
    // the context of the last query answered at once, if no one holds it: a cache hit or a block makes none
    const ctx =
      this.spare === null
        ? this.context(buf, q, client, tcp, start, false)
        : this.fill(this.spare, buf, q, client, tcp, start, false);
    this.spare = null;
    ctx.clientId = clientId;
    // dns.access (access.ts): after the rate limit, so a refused client's flood is not logged query by query
    if (this.access.refuses(client, clientId)) {
      ctx.status = Status.CLIENT_REFUSED;
      ctx.reply = Reply.REFUSED;
      return this.finish(ctx, buildReply(buf, q, RCODE.REFUSED));
    }
    let r: Pending;
    try {
      r = this.resolve(ctx);
    } catch (e) {
      this.d.log("error", `query ${q.name}: ${(e as Error).message}`);
      r = buildReply(buf, q, RCODE.SERVFAIL);
    }
    if (r instanceof Promise) return this.finishLater(ctx, r);
    const a = this.finish(ctx, r);
    this.spare = ctx; // answered: nothing holds it now (a handler that goes on with a query returns a promise)
    return a;
  }

  // apart from handle(): a closure there would cost every query its captured variables
  private finishLater(ctx: QueryContext, r: Promise<Answer>): Promise<Answer> {
    return r.then(
      (a) => this.finish(ctx, a),
      (e) => {
        this.d.log("error", `query ${ctx.q.name}: ${(e as Error).message}`);
        return buildReply(ctx.query, ctx.q, RCODE.SERVFAIL);
      },
    );
  }

  /** A query's context before any handler has looked at it, judged by the current filter snapshot. */
  private context(
    query: Uint8Array,
    q: Question,
    client: string,
    tcp: boolean,
    start: number,
    background: boolean,
  ): QueryContext {
    return this.fill({} as QueryContext, query, q, client, tcp, start, background);
  }

  /**
   * Sets every field of `ctx` as a new query's: both a new context and the reused one of a query
   * answered at once (handle()), so the two cannot drift apart and no field of an earlier query stays.
   * The fields are set in one order, so every context has the same shape.
   */
  private fill(
    ctx: QueryContext,
    query: Uint8Array,
    q: Question,
    client: string,
    tcp: boolean,
    start: number,
    background: boolean,
  ): QueryContext {
    ctx.query = query;
    ctx.q = q;
    ctx.client = client;
    ctx.clientId = null;
    ctx.tcp = tcp;
    ctx.start = start;
    ctx.snapshot = this.d.snapshot();
    ctx.status = Status.UNKNOWN;
    ctx.reply = Reply.UNKNOWN;
    ctx.upstream = null;
    ctx.listId = null;
    ctx.ede = -1;
    ctx.cname = null;
    ctx.upstreamMessage = null;
    ctx.dnssec = 0;
    ctx.cnameChain = null;
    ctx.upstreamSet = 0;
    ctx.background = background;
    return ctx;
  }

  private finish(ctx: QueryContext, a: Answer): Answer {
    if (!a) return a;
    this.record(ctx, a);
    return ctx.tcp ? a : truncateFor(a, ctx.q);
  }

  private countOrigin(ctx: QueryContext): void {
    const o = this.origins;
    if (ctx.status === Status.CACHE_STALE) o.optimized++;
    else if (ctx.status === Status.FORWARDED || ctx.status === Status.RETRIED || ctx.status === Status.RETRIED_DNSSEC) {
      if (ctx.upstream === null)
        o.unanswered++; // every upstream failed
      else o.forwarded++;
    } else if (ctx.upstream !== null) {
      // a cache hit or an upstream's own block: answered from the cache or forwarded, not local
      if (ctx.status !== Status.CACHE) o.forwarded++;
    } else if (ctx.status !== Status.UNKNOWN) o.local++; // local records, blocked names, special domains
  }

  private record(ctx: QueryContext, a: Uint8Array): void {
    this.answered++;
    this.countOrigin(ctx);
    if (!this.d.config.current.dns.queryLogging) return;
    try {
      // one record object for every query: the sink copies what it keeps (QuerySink)
      const r = this.rec;
      r.time = Date.now() / 1000;
      r.type = dbQueryType(ctx.q.qtype);
      r.domain = ctx.q.name;
      r.client = ctx.client;
      r.status = ctx.status;
      r.reply = ctx.reply;
      r.replyTime = performance.now() - ctx.start;
      r.upstream = ctx.upstream;
      r.dnssec = ctx.dnssec;
      r.listId = ctx.listId;
      r.ede = ctx.ede;
      r.cname = ctx.cname;
      r.answers = this.answerTexts.text(a);
      this.d.sink.record(r);
    } catch {
      // the statistics must never take the DNS down
    }
  }

  /** DNSKEY, DS and the proofs the validator needs with DO and CD, resolved (dns.recursive) or forwarded: recorded nowhere. */
  private fetchForValidation(name: Uint8Array, type: number, client: object): Promise<Uint8Array | null> {
    const query = keyQuery(name, type);
    const ctx = this.context(query, parseQuery(query), "127.0.0.1", false, performance.now(), true);
    const forward = (c: QueryContext) => this.forwarder.handle(c, () => null);
    return Promise.resolve(this.recursive.handle(ctx, forward, client)).then((a) => (ctx.upstreamMessage ? a : null));
  }

  /**
   * The root's DNSKEY with DO and CD from the upstream in use: whether its answer carries the RRSIG
   * Moat's validation needs (an upstream that strips them makes every validated name SERVFAIL), and
   * which upstream answered; null when none answered. Recorded nowhere.
   */
  async rootKeysSigned(): Promise<{ signed: boolean; upstream: string | null } | null> {
    const query = keyQuery(Uint8Array.of(0), T.DNSKEY);
    const ctx = this.context(query, parseQuery(query), "127.0.0.1", false, performance.now(), true);
    const a = await this.forwarder.handle(ctx, () => null);
    const m = a && ctx.upstreamMessage;
    if (!m || m.rcode !== RCODE.NOERROR) return null;
    const signed = m.records.some((r) => r.section === 0 && r.type === T.RRSIG);
    return { signed, upstream: ctx.upstream };
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
}
