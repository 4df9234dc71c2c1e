// dns.dnssec: forwarded answers are validated (src/dns/dnssec/) between the cache and the forwarder,
// so only cache misses are judged, once, and the cache keeps the verdict with the answer. The query
// goes upstream with DO and CD (we judge the signatures, not the upstream); a client that sets CD
// gets the answer unvalidated (RFC 4035 §3.2.2). Bogus answers become SERVFAIL with the Extended DNS
// Error that says why (RFC 8914); secure ones carry AD when the client asked with DO or AD (RFC 6840 §5.7).
import { Reply, Status } from "../query/enums.ts";
import type { ConfigView, Handler, Next, Pending, QueryContext, Answer } from "./context.ts";
import { DenialCache } from "./dnssec/aggressive.ts";
import { parseAnchor, type Anchor } from "./dnssec/anchors.ts";
import type { RRset } from "./dnssec/records.ts";
import { stripDnssec } from "./dnssec/strip.ts";
import { ABANDONED, BOGUS, SECURE, Validator, type Fetch, type Verdict } from "./dnssec/validator.ts";
import { buildReply, setU16, setU32, type RR } from "./reply.ts";
import { CD, RCODE, TYPE, parseQuery, walkMessage, type Message } from "./wire.ts";

/** The AD bit of the header's second byte. */
const AD = 0x20;
/** A validation that takes longer (a slow chain of key fetches) is abandoned: SERVFAIL, as unbound gives up. */
const VALIDATION_MS = 4000;

const EDE_TEXT: Record<number, string> = {
  0: "DNSSEC validation abandoned",
  6: "DNSSEC bogus",
  7: "signature expired",
  8: "signature not yet valid",
  9: "DNSKEY missing",
  10: "RRSIGs missing",
  12: "NSEC missing",
};

export class DnssecHandler implements Handler {
  readonly name = "dnssec";
  private readonly validator: Validator;
  private anchorLines: readonly string[] | null = null;
  private anchors: Anchor[] = [];
  /** the proofs of secure negative answers, reused for other names in their ranges (dns.recursive) */
  private readonly denials = new DenialCache();

  constructor(
    private readonly config: ConfigView,
    fetch: Fetch,
  ) {
    this.validator = new Validator({ anchors: () => this.currentAnchors(), fetch });
  }

  private currentAnchors(): Anchor[] {
    const lines = this.config.current.dns.trustAnchors;
    if (lines !== this.anchorLines) {
      this.anchorLines = lines;
      this.anchors = [];
      this.denials.clear();
      for (const l of lines) {
        const a = parseAnchor(l);
        if (typeof a === "object") this.anchors.push(a);
      }
    }
    return this.anchors;
  }

  handle(ctx: QueryContext, next: Next): Pending {
    const dns = this.config.current.dns;
    if (!dns.dnssec || ctx.q.checkingDisabled) return next(ctx);
    // RFC 8198 as a resolver from the root (unbound's aggressive-nsec); forwarded, the upstream's cache does it
    const proven = dns.recursive.active && ctx.q.qclass === 1 ? this.fromProofs(ctx) : null;
    if (proven) return proven;
    const query = upstreamQuery(ctx.query, ctx.q);
    const inner: QueryContext = { ...ctx, query, q: parseQuery(query) };
    return Promise.resolve(next(inner)).then((a) => this.judge(ctx, inner, a));
  }

  private fromProofs(ctx: QueryContext): Answer {
    this.currentAnchors(); // new anchors empty the kept proofs first
    return fromProofsOf(this.denials, ctx);
  }

  private async judge(ctx: QueryContext, inner: QueryContext, a: Answer): Promise<Answer> {
    ctx.status = inner.status;
    ctx.reply = inner.reply;
    ctx.upstream = inner.upstream;
    ctx.cnameChain = inner.cnameChain;
    const m = inner.upstreamMessage;
    if (!a || !m) {
      ctx.reply = Reply.SERVFAIL;
      return buildReply(ctx.query, ctx.q, RCODE.SERVFAIL);
    }
    let v: Verdict | null = null;
    if (m.rcode === RCODE.NOERROR || m.rcode === RCODE.NXDOMAIN) {
      // `inner` names the client query: dns.recursive charges the key fetches to the answer's budget
      v = await withinLimit(this.validator.validate(a, ctx.q.wire, ctx.q.qtype, inner));
      ctx.dnssec = v.state;
      if (v.denial && this.config.current.dns.recursive.active) this.denials.learn(v.denial, v.ttl);
      if (v.state === BOGUS || v.state === ABANDONED) {
        ctx.reply = Reply.SERVFAIL;
        ctx.ede = v.ede;
        const text = v.why ? `${EDE_TEXT[v.ede] ?? "DNSSEC"}: ${v.why}` : (EDE_TEXT[v.ede] ?? "DNSSEC");
        return buildReply(ctx.query, ctx.q, RCODE.SERVFAIL, undefined, undefined, { code: v.ede, text });
      }
    }
    const out = ctx.q.dnssecOk ? a : stripDnssec(a, m, ctx.query, ctx.q);
    if (!out) {
      ctx.reply = Reply.SERVFAIL;
      return buildReply(ctx.query, ctx.q, RCODE.SERVFAIL);
    }
    // CD was ours, not the client's; AD only for a secure answer the client asked about with DO or AD
    out[3] = (out[3]! & ~(AD | CD)) | (v?.state === SECURE && wantsAd(ctx) ? AD : 0);
    let msg = out === a ? m : walkMessage(out);
    if (msg && v?.ttl !== undefined && capTtls(out, msg, v.ttl)) msg = walkMessage(out);
    ctx.upstreamMessage = msg;
    return out;
  }
}

/** RFC 8198: a name inside a range that a kept NSEC/NSEC3 proof covers is answered from it, no query sent. */
function fromProofsOf(denials: DenialCache, ctx: QueryContext): Answer {
  const s = denials.answer(ctx.q.wire, ctx.q.qtype);
  if (!s) return null;
  const dnssec = ctx.q.dnssecOk;
  const rrs = (set: RRset): RR[] =>
    [...set.rrs, ...(dnssec ? set.sigs : [])].map((r) => ({
      owner: r.owner,
      type: r.type,
      ttl: Math.min(r.ttl, s.ttl),
      data: r.rdata,
    }));
  const authority = [...rrs(s.soa), ...(dnssec ? s.sets.flatMap(rrs) : [])];
  const out = buildReply(ctx.query, ctx.q, s.nxdomain ? RCODE.NXDOMAIN : RCODE.NOERROR, [], authority);
  if (wantsAd(ctx)) out[3] = out[3]! | AD;
  ctx.status = Status.CACHE;
  ctx.reply = s.nxdomain ? Reply.NXDOMAIN : Reply.NODATA;
  ctx.dnssec = SECURE;
  ctx.upstreamMessage = walkMessage(out);
  return out;
}

/** Lowers every record's TTL above `cap` to it (the cache reads them afterwards); whether any changed. */
function capTtls(out: Uint8Array, m: Message, cap: number): boolean {
  let changed = false;
  for (const r of m.records)
    if (r.type !== TYPE.OPT && r.ttl > cap) {
      setU32(out, r.ttlAt, cap);
      changed = true;
    }
  return changed;
}

/** RFC 6840 §5.7: AD goes to a client that set DO, or AD in its query. */
export function wantsAd(ctx: QueryContext): boolean {
  return ctx.q.dnssecOk || (ctx.q.flags & AD) !== 0;
}

/** The validation's verdict, or ABANDONED once VALIDATION_MS have passed (its work goes on, and fills the key cache). */
function withinLimit(p: Promise<Verdict>): Promise<Verdict> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Verdict>((resolve) => {
    timer = setTimeout(() => resolve({ state: ABANDONED, ede: 0, why: "time limit" }), VALIDATION_MS);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** The client's query with CD in the header and DO in its OPT (one added when it had none). */
function upstreamQuery(query: Uint8Array, q: ReturnType<typeof parseQuery>): Uint8Array {
  const out = new Uint8Array(q.size + (q.edns ? 0 : 11));
  out.set(query.subarray(0, q.size));
  out[3] = out[3]! | CD;
  if (q.edns) out[q.optAt - 4] = out[q.optAt - 4]! | 0x80;
  else {
    out.set([0, 0, 41, 0x04, 0xd0, 0, 0, 0x80, 0, 0, 0], q.size);
    setU16(out, 10, ((query[10]! << 8) | query[11]!) + 1);
  }
  return out;
}

/** A query for `name`/`type` with RD, CD and DO: what the validator asks the upstreams for keys and proofs. */
export function keyQuery(name: Uint8Array, type: number): Uint8Array {
  const out = new Uint8Array(12 + name.length + 4 + 11);
  out[2] = 0x01; // RD
  out[3] = CD;
  out[5] = 1;
  out[11] = 1;
  out.set(name, 12);
  let o = 12 + name.length;
  setU16(out, o, type);
  setU16(out, o + 2, 1);
  o += 4;
  out.set([0, 0, 41, 0x04, 0xd0, 0, 0, 0x80, 0, 0, 0], o);
  return out;
}
