// The filtering step, in Pi-hole FTL's order (docs/pihole-differences.md): allow exact → allow regex → special domains →
// deny exact → the "afterDeny" group policies (a group's open schedule window, its blocked services) → antigravity →
// gravity (+ ABP subtrees) → deny regex; after the answer comes back, every name of its CNAME chain is checked against
// the block lists (dns.CNAMEdeepInspect). The group policies (src/policies/registry.ts, the interface in
// src/filter/policy.ts) are asked at their points: "client" before all of it, also with blocking off (a paused
// client, a group's own upstreams), "beforeAllow" before the allow list (safe search).
import { Status, Reply } from "../query/enums.ts";
import { hashName } from "../filter/domainset.ts";
import { regexMatches, type NameMatcher, type RegexReply } from "../filter/regex.ts";
import { forgetSuffixes, matchExact, matchSubtree } from "../filter/match.ts";
import type { JudgedName, PolicyVerdict } from "../filter/policy.ts";
import type { RegexRule, Snapshot } from "../filter/snapshot.ts";
import type { ConfigView, Handler, Next, Pending, QueryContext, Answer } from "./context.ts";
import { blockedReply, rewrittenReply } from "./blocked.ts";
import { buildReply } from "./reply.ts";
import { nameToWire } from "../net/dns-name.ts";
import { RCODE, TYPE } from "./wire.ts";
import { safeSearchAnswer } from "./safesearch.ts";

/** A block (a policy's, or the lists': then with the regex's reply), or ALLOW (antigravity, an exception), or null: no verdict. */
type Verdict = PolicyVerdict;
const ALLOW: Verdict = { status: Status.UNKNOWN, reason: "", listId: 0, cnameTo: null };

/** The lists' block, refilled by each judge() that finds one, so a blocked query makes no verdict object: read it before the next judge(). */
const LISTED = { status: 0, reason: "", listId: 0, cnameTo: null, reply: null as RegexReply | null };
function listed(status: number, reason: string, listId: number, reply: RegexReply | null): Verdict {
  LISTED.status = status;
  LISTED.reason = reason;
  LISTED.listId = listId;
  LISTED.reply = reply;
  return LISTED;
}

export class PolicyHandler implements Handler {
  readonly name = "policy";
  constructor(
    private readonly config: ConfigView,
    private readonly blocking: { readonly active: boolean },
  ) {}

  /** the name being judged, refilled for each one (src/filter/policy.ts): no object per query */
  private readonly n: JudgedName = {
    wire: new Uint8Array(1),
    labels: [],
    h: 0,
    name: "",
    qtype: 0,
    groups: new Uint32Array(1),
    question: true,
  };

  handle(ctx: QueryContext, next: Next): Pending {
    forgetSuffixes();
    const snap = ctx.snapshot;
    const blocking = this.blocking.active;
    if (!blocking && !snap.activeAlways) return next(ctx);
    const { q } = ctx;
    const groups =
      ctx.clientId === null ? snap.clients.groupsOf(ctx.client) : snap.clients.groupsOfId(ctx.clientId, ctx.client);
    const n = this.n;
    n.wire = q.wire;
    n.labels = q.labels;
    n.h = 0;
    n.name = q.name;
    n.qtype = q.qtype;
    n.groups = groups;
    n.question = true;

    // a paused client, a group's own upstreams (with blocking off too: they are not lists)
    let v = this.ask(snap, snap.active.client, ctx, !blocking);
    if (v !== null) return this.verdict(ctx, next, v);
    if (!blocking) return next(ctx);
    const dns = this.config.current.dns;
    n.h = hashName(q.wire);

    // safe search first: an allow-list entry for www.google.com must not switch it off
    v = this.ask(snap, snap.active.beforeAllow, ctx, false);
    if (v !== null) return this.verdict(ctx, next, v);

    if (
      matchExact(snap.allowExact, q.wire, n.h, groups) >= 0 ||
      matchRegex(snap.allowRegex, snap.allowRegexAny, q.name, q.qtype, groups)
    )
      return next(ctx);

    const special = this.special(q.name, q.qtype, dns.specialDomains);
    if (special !== null) {
      ctx.status = Status.SPECIAL_DOMAIN;
      ctx.reply = special === RCODE.NXDOMAIN ? Reply.NXDOMAIN : Reply.NODATA;
      return buildReply(ctx.query, q, special);
    }

    v = judge(snap, ctx, n);
    // an open schedule window may have widened the groups the lists are judged with: they are judged so from here on
    const judged = n.groups;
    if (v === null && dns.blockESNI && q.name.startsWith("_esni.")) v = judgeEsni(snap, ctx, n);
    if (v !== null && v !== ALLOW) return this.verdict(ctx, next, v);
    if (v === ALLOW || !dns.CNAMEdeepInspect) return next(ctx);

    const r = next(ctx);
    // the widened groups are the clock's scratch array, which the next query reuses: a copy goes on
    if (r instanceof Promise) return this.inspectLater(ctx, r, judged === groups ? groups : Uint32Array.from(judged));
    return this.inspect(ctx, r, judged);
  }

  /** The first verdict of the policies at one point (`blockingOff`: only those judged with blocking off too). */
  private ask(snap: Snapshot, at: readonly number[], ctx: QueryContext, blockingOff: boolean): Verdict | null {
    const list = snap.policies.list;
    for (let i = 0; i < at.length; i++) {
      const k = at[i]!;
      const p = list[k]!;
      if (blockingOff && p.always !== true) continue;
      const v = p.judge(snap.states[k], ctx, this.n);
      if (v !== null) return v;
    }
    return null;
  }

  /** A block, or a policy's CNAME answer (safe search). */
  private verdict(ctx: QueryContext, next: Next, v: Verdict): Pending {
    if (v.allow === true) return next(ctx);
    if (v.cnameTo !== null) return safeSearchAnswer(ctx, next, v.cnameTo);
    const dns = this.config.current.dns;
    ctx.status = v.status;
    ctx.listId = v.listId;
    if (v.rewrite === true && v.reply) return rewrittenReply(ctx, dns, v.reply);
    ctx.ede = dns.blocking.edns === "NONE" ? -1 : 15;
    return blockedReply(ctx, dns, v.reason, v.reply ?? null);
  }

  // apart from handle(): a closure there would cost every query its captured variables
  private inspectLater(ctx: QueryContext, r: Promise<Answer>, groups: Uint32Array): Promise<Answer> {
    return r.then((a) => this.inspect(ctx, a, groups));
  }

  /** CNAME deep inspection: block the answer when a name in its chain is blocked and none is allowed. */
  private inspect(ctx: QueryContext, a: Answer, groups: Uint32Array): Answer {
    const chain = ctx.cnameChain;
    if (!a || !chain || chain.length === 0) return a;
    const snap = ctx.snapshot;
    const n = this.n;
    let hit: Verdict | null = null;
    for (const name of chain) {
      const wire = nameToWire(name);
      if (!wire) continue;
      const labels: number[] = [];
      for (let o = 0; wire[o] !== 0; o += wire[o]! + 1) labels.push(o);
      const h = hashName(wire);
      if (
        matchExact(snap.allowExact, wire, h, groups) >= 0 ||
        matchRegex(snap.allowRegex, snap.allowRegexAny, name, ctx.q.qtype, groups)
      )
        return a;
      n.wire = wire;
      n.labels = labels;
      n.h = h;
      n.name = name;
      n.qtype = ctx.q.qtype;
      n.groups = groups;
      n.question = false;
      const v = judge(snap, ctx, n);
      if (v === ALLOW) return a;
      if (v !== null && hit === null) {
        hit = { ...v }; // the next name's judge() refills LISTED
        ctx.cname = name;
      }
    }
    if (hit === null) return a;
    const dns = this.config.current.dns;
    ctx.status =
      hit.status === Status.GRAVITY
        ? Status.GRAVITY_CNAME
        : hit.status === Status.REGEX
          ? Status.REGEX_CNAME
          : Status.DENYLIST_CNAME;
    ctx.listId = hit.listId;
    ctx.ede = dns.blocking.edns === "NONE" ? -1 : 15;
    return blockedReply(ctx, dns, hit.reason, hit.reply ?? null);
  }

  private special(
    name: string,
    qtype: number,
    s: { mozillaCanary: boolean; iCloudPrivateRelay: boolean; designatedResolver: boolean },
  ): number | null {
    if (s.mozillaCanary && name === "use-application-dns.net" && (qtype === TYPE.A || qtype === TYPE.AAAA))
      return RCODE.NXDOMAIN;
    if (s.iCloudPrivateRelay && (name === "mask.icloud.com" || name === "mask-h2.icloud.com")) return RCODE.NXDOMAIN;
    if (s.designatedResolver && (name === "resolver.arpa" || name.endsWith(".resolver.arpa"))) return RCODE.NOERROR;
    return null;
  }
}

/** `any`: the union of the non-inverted rules; when it does not hit, only inverted rules can. */
function matchRegex(
  rules: RegexRule[],
  any: NameMatcher | null,
  name: string,
  qtype: number,
  groups: Uint32Array,
): RegexRule | null {
  if (rules.length === 0) return null;
  const hit = any === null || any.test(name);
  for (const r of rules) {
    if (!hit && !r.invert) continue;
    let applies = false;
    for (let i = 0; i < r.mask.length; i++) if ((r.mask[i]! & (groups[i] ?? 0)) !== 0) applies = true;
    if (applies && regexMatches(r, name, qtype)) return r;
  }
  return null;
}

/**
 * The name after `_esni.` (dns.blockESNI), judged as the question's would be. Apart from handle(): the
 * closure of its labels' map would cost every query a scope for the variables it captures (bench/dns/alloc.ts).
 */
function judgeEsni(snap: Snapshot, ctx: QueryContext, n: JudgedName): Verdict | null {
  const q = ctx.q;
  const first = q.labels[1] ?? 0;
  const rest = q.wire.subarray(first);
  n.wire = rest;
  n.labels = q.labels.slice(1).map((o) => o - first);
  n.h = hashName(rest);
  n.name = q.name.slice(6);
  n.question = false;
  return judge(snap, ctx, n);
}

/**
 * Deny exact → the "afterDeny" policies → antigravity → gravity → deny regex for one name (the question, the
 * name after `_esni.`, or a name of a CNAME chain). The policies may widen `n.groups` for the lists after them.
 */
function judge(snap: Snapshot, ctx: QueryContext, n: JudgedName): Verdict | null {
  const { wire, labels, h } = n;
  let id = matchExact(snap.denyExact, wire, h, n.groups);
  if (id >= 0) return listed(Status.DENYLIST, "denylist", id, null);
  const at = snap.active.afterDeny;
  const list = snap.policies.list;
  for (let i = 0; i < at.length; i++) {
    const k = at[i]!;
    const p = list[k]!;
    if (!n.question && p.everyName !== true) continue;
    const v = p.judge(snap.states[k], ctx, n);
    if (v !== null) return v.allow === true ? ALLOW : v;
  }
  const groups = n.groups;
  if (
    matchExact(snap.antigravity, wire, h, groups) >= 0 ||
    matchSubtree(snap.antigravityAbp, wire, labels, h, groups) >= 0
  )
    return ALLOW;
  id = matchExact(snap.gravity, wire, h, groups);
  if (id < 0) id = matchSubtree(snap.gravityAbp, wire, labels, h, groups);
  if (id >= 0) return listed(Status.GRAVITY, "gravity", id, null);
  const r = matchRegex(snap.denyRegex, snap.denyRegexAny, n.name, n.qtype, groups);
  if (r) return listed(Status.REGEX, "regex", r.id, r.reply);
  return null;
}
