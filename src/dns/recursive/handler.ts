// The chain's hook: with dns.recursive.active, a cache miss is resolved here from the root instead of
// forwarded. dns.revServers (conditional forwarding) and a group's own upstreams still go to the
// forwarder (the next handler), as do per-domain upstreams (dns.upstreams `[/domain/]server`) and classes
// other than IN; local zones answered before the cache.
import { Reply, Status } from "../../query/enums.ts";
import type { ConfigView, Handler, Next, Pending, QueryContext } from "../context.ts";
import { noteReply } from "../forwarder.ts";
import { buildReply } from "../reply.ts";
import { revServerFor, revServers } from "../rev-servers.ts";
import { perDomainServes } from "../per-domain.ts";
import { RCODE, walkMessage } from "../wire.ts";
import { Budget } from "./budget.ts";
import { Delegations } from "./delegations.ts";
import { Exchanger } from "./exchange.ts";
import { loadHints } from "./hints.ts";
import { Iterator, isFailure } from "./iterator.ts";

/** What /metrics shows of resolution from the root (summed over the DNS threads). */
export interface RecursiveCounters {
  /** client queries resolved from the root (their DNSSEC key fetches on the same budget) */
  resolutions: number;
  /** queries sent to authorities for them */
  sent: number;
  /** resolutions that started at a cached zone cut rather than the root */
  delegationHits: number;
}

/** what the query log and the upstream statistics show as the answer's source */
const RECURSIVE_UPSTREAM = "recursive";

export class RecursiveHandler implements Handler {
  readonly name = "recursive";
  private readonly cuts = new Delegations();
  private readonly net: Exchanger;
  private readonly iterator: Iterator;
  private hintsPath: string | null = null;
  private resolutions = 0;
  private priming: Promise<void> | null = null;
  /** a client query's budget, by its context (validate.ts hands that to the validator, which hands it to each key fetch) */
  private readonly shared = new WeakMap<object, Budget>();

  constructor(
    private readonly config: ConfigView,
    private readonly log: (level: "warn" | "info", m: string) => void,
    /** the authorities' port: 53, as every name server listens (tests in a network namespace of their own) */
    port = 53,
  ) {
    this.net = new Exchanger(port);
    this.iterator = new Iterator(this.cuts, this.net);
  }

  counters(): RecursiveCounters {
    return { resolutions: this.resolutions, sent: this.net.sent, delegationHits: this.cuts.hits };
  }

  /** `share`: the client query a key fetch is for (validator.ts Fetch): it draws on that query's Budget. */
  handle(ctx: QueryContext, next: Next, share?: object): Pending {
    const dns = this.config.current.dns;
    if (!dns.recursive.active || ctx.upstreamSet !== 0 || ctx.q.qclass !== 1) return next(ctx);
    if (revServerFor(revServers(dns.revServers), ctx.q.name)) return next(ctx);
    if (perDomainServes(dns.upstreams, ctx.q.name)) return next(ctx);
    if (dns.recursive.rootHints !== this.hintsPath) {
      this.hintsPath = dns.recursive.rootHints;
      this.cuts.setRoot(loadHints(this.hintsPath, (m) => this.log("warn", m)));
    }
    // the client query's one Budget: made for its answer, drawn on again by the key fetches its validation makes
    let b = this.shared.get(share ?? ctx);
    if (!b) {
      b = new Budget();
      this.shared.set(share ?? ctx, b);
      this.resolutions++;
    }
    if (share) b.forKeys();
    const budget = b;
    const resolve = () => this.iterator.resolve(ctx.q.wire, ctx.q.qtype, ctx.q.dnssecOk, budget);
    const run = this.cuts.needsPriming() ? this.prime().then(resolve) : resolve();
    return run.then((o) => {
      ctx.status = Status.FORWARDED;
      ctx.upstream = RECURSIVE_UPSTREAM;
      if (isFailure(o)) {
        const why = b.reason ?? o;
        ctx.reply = Reply.SERVFAIL;
        ctx.ede = why.ede;
        const out = buildReply(ctx.query, ctx.q, RCODE.SERVFAIL, undefined, undefined, {
          code: why.ede,
          text: why.text,
        });
        ctx.upstreamMessage = walkMessage(out);
        return out;
      }
      const out = buildReply(ctx.query, ctx.q, o.rcode, o.answers, o.authority);
      const m = walkMessage(out);
      ctx.upstreamMessage = m;
      if (!m) return out;
      noteReply(ctx, out, m);
      return out;
    });
  }

  /** The root's NS set asked once for all the queries that wait on it (a Budget of its own). */
  private prime(): Promise<void> {
    this.priming ??= this.iterator.prime(new Budget()).finally(() => {
      this.priming = null;
    });
    return this.priming;
  }

  stop(): void {
    this.net.stop();
  }
}
