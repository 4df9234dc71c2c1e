// The safe-search answer (src/policies/safesearch/ has the engines and the policy): a CNAME from the asked
// host to the engine's target, followed by the target's own records for the asked type, resolved through the rest of
// the chain (cache, then upstreams) as any name is, so the device connects to the engine's safe address.
// The target's CNAME chain, if it has one, is copied record by record with its names written out, and
// only A and AAAA data is copied as bytes (other types' data may hold compressed names).
import { Reply } from "../query/enums.ts";
import { nameToWire } from "../net/dns-name.ts";
import type { Answer, Next, Pending, QueryContext } from "./context.ts";
import { buildReply, type RR } from "./reply.ts";
import { parseQuery, RCODE, TYPE, walkMessage, readName } from "./wire.ts";

/** the CNAME's TTL when the target's answer has no records to take one from */
const DEFAULT_TTL = 300;

/** A query for `target` with the client's type, recursion desired, no EDNS (the chain answers it like any other). */
function subQuery(target: Uint8Array, qtype: number): Uint8Array {
  const buf = new Uint8Array(12 + target.length + 4);
  buf[2] = 0x01; // RD
  buf[5] = 1; // QDCOUNT
  buf.set(target, 12);
  const o = 12 + target.length;
  buf[o] = qtype >> 8;
  buf[o + 1] = qtype & 0xff;
  buf[o + 3] = 1; // IN
  return buf;
}

export function safeSearchAnswer(ctx: QueryContext, next: Next, target: Uint8Array): Pending {
  const query = subQuery(target, ctx.q.qtype);
  const sub: QueryContext = {
    ...ctx,
    query,
    q: parseQuery(query),
    clientId: ctx.clientId,
    upstreamMessage: null,
    cnameChain: null,
    cname: null,
  };
  const r = next(sub);
  return r instanceof Promise ? combineLater(ctx, sub, target, r) : combine(ctx, sub, target, r);
}

function combineLater(ctx: QueryContext, sub: QueryContext, target: Uint8Array, r: Promise<Answer>): Promise<Answer> {
  return r.then((a) => combine(ctx, sub, target, a));
}

function combine(ctx: QueryContext, sub: QueryContext, target: Uint8Array, a: Answer): Answer {
  if (a === null) return null;
  const m = walkMessage(a, true);
  ctx.status = sub.status;
  ctx.upstream = sub.upstream;
  ctx.reply = Reply.CNAME;
  if (!m) return buildReply(ctx.query, ctx.q, RCODE.SERVFAIL);
  const answers: RR[] = [{ type: TYPE.CNAME, ttl: DEFAULT_TTL, data: target }];
  for (const rec of m.records) {
    if (rec.section !== 0 || rec.name === null) continue;
    const owner = nameToWire(rec.name);
    if (!owner) continue;
    if (rec.type === TYPE.CNAME) {
      const to = readName(a, rec.rdata);
      const data = to === null ? null : nameToWire(to);
      if (data) answers.push({ type: TYPE.CNAME, ttl: rec.ttl, data, owner });
    } else if (rec.type === ctx.q.qtype && (rec.type === TYPE.A || rec.type === TYPE.AAAA))
      answers.push({ type: rec.type, ttl: rec.ttl, data: a.subarray(rec.rdata, rec.rdata + rec.rdlen), owner });
  }
  if (answers.length > 1) answers[0]!.ttl = Math.min(DEFAULT_TTL, answers[1]!.ttl);
  return buildReply(ctx.query, ctx.q, m.rcode, answers);
}
