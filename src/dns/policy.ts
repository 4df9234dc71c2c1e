// The filtering step, in Pi-hole FTL's order (docs/pihole-differences.md): allow exact → allow regex → special domains →
// deny exact → the group's blocked services → antigravity → gravity (+ ABP subtrees) → deny regex; after the answer
// comes back, every name of its CNAME chain is checked against the block lists (dns.CNAMEdeepInspect). A paused
// client is blocked before all of it (and with blocking off): a pause is the parent's switch, not a list. A safe-search
// host of the client's groups is answered with its engine's CNAME before the allow list is asked.
import { Status, Reply } from "../query/enums.ts";
import { hashName, type DomainSet } from "../filter/domainset.ts";
import { regexMatches, type NameMatcher, type RegexReply } from "../filter/regex.ts";
import type { RegexRule, Snapshot } from "../filter/snapshot.ts";
import type { ConfigView, Handler, Next, Pending, QueryContext, Answer } from "./context.ts";
import { blockedReply } from "./blocked.ts";
import { buildReply } from "./reply.ts";
import { nameToWire } from "../net/dns-name.ts";
import { RCODE, TYPE } from "./wire.ts";
import { SERVICES } from "../filter/services/catalogue.ts";
import { PAUSED_LIST_ID, SCHEDULE_LIST_ID } from "../filter/services/rules.ts";
import { safeSearchTarget } from "../filter/safesearch.ts";
import { safeSearchAnswer } from "./safesearch.ts";

/** each safe-search engine's target in wire form, by engine code */
const SAFE_TARGET: Array<Uint8Array | undefined> = [];
for (let code = 1; safeSearchTarget(code) !== undefined; code++)
  SAFE_TARGET[code] = nameToWire(safeSearchTarget(code)!)!;

/** EDE text per service code, made once: a blocked query must not build a string */
const SERVICE_REASON = new Map(SERVICES.map((s) => [s.code, `blocked service: ${s.name}`]));

type Verdict =
  | { allow: true }
  | { allow: false; status: number; reason: string; listId: number | null; reply: RegexReply | null }
  | null;

export class PolicyHandler implements Handler {
  readonly name = "policy";
  constructor(
    private readonly config: ConfigView,
    private readonly blocking: { readonly active: boolean },
  ) {}

  handle(ctx: QueryContext, next: Next): Pending {
    sufWire = null;
    const snap = ctx.snapshot;
    if (snap.paused?.paused(ctx.client, ctx.clientId)) return this.pausedReply(ctx);
    const ownUpstreams = snap.upstreamLists.length > 0;
    if (!this.blocking.active && !ownUpstreams) return next(ctx);
    const groups =
      ctx.clientId === null ? snap.clients.groupsOf(ctx.client) : snap.clients.groupsOfId(ctx.clientId, ctx.client);
    // a group's own upstreams apply with blocking off too: they are where its queries go, not a list
    if (ownUpstreams) ctx.upstreamSet = snap.upstreamSetOf(groups);
    if (!this.blocking.active) return next(ctx);
    const dns = this.config.current.dns;
    const { q } = ctx;
    const h = hashName(q.wire);

    // safe search first: an allow-list entry for www.google.com must not switch it off
    if (intersects(groups, snap.safeSearchGroups)) {
      let safe = matchExact(snap.safeSearch, q.wire, h, groups);
      if (safe < 0) safe = matchExact(snap.safeSearchModerate, q.wire, h, groups);
      if (safe >= 0) return safeSearchAnswer(ctx, next, SAFE_TARGET[safe]!);
    }

    if (
      matchExact(snap.allowExact, q.wire, h, groups) >= 0 ||
      matchRegex(snap.allowRegex, snap.allowRegexAny, q.name, q.qtype, groups)
    )
      return next(ctx);

    const special = this.special(q.name, q.qtype, dns.specialDomains);
    if (special !== null) {
      ctx.status = Status.SPECIAL_DOMAIN;
      ctx.reply = special === RCODE.NXDOMAIN ? Reply.NXDOMAIN : Reply.NODATA;
      return buildReply(ctx.query, q, special);
    }

    // an open schedule window: its verdict, or (for block lists it schedules) the groups widened by its
    // list bit, with which the lists are judged from here on
    let judged = groups;
    let v: Verdict = null;
    if (snap.schedule !== null) {
      const open = snap.schedule.openGroups(groups, Date.now());
      if (open !== null) {
        v = scheduled(snap, q.wire, q.labels, h, open);
        if (!v && snap.schedule.schedulesLists) judged = snap.schedule.widen(groups, open);
      }
    }
    if (!v) v = judge(snap, q.wire, q.labels, h, q.name, q.qtype, judged, false);
    if (!v && dns.blockESNI && q.name.startsWith("_esni.")) {
      const rest = q.wire.subarray(q.labels[1] ?? 0);
      v = judge(
        snap,
        rest,
        q.labels.slice(1).map((o) => o - (q.labels[1] ?? 0)),
        hashName(rest),
        q.name.slice(6),
        q.qtype,
        judged,
        false,
      );
    }
    if (v && !v.allow) {
      ctx.status = v.status;
      ctx.listId = v.listId;
      ctx.ede = dns.blocking.edns === "NONE" ? -1 : 15;
      return blockedReply(ctx, dns, v.reason, v.reply);
    }
    if (v?.allow || !dns.CNAMEdeepInspect) return next(ctx);

    const r = next(ctx);
    // the widened groups are the clock's scratch array, which the next query reuses: a copy goes on
    if (r instanceof Promise) return this.inspectLater(ctx, r, judged === groups ? groups : Uint32Array.from(judged));
    return this.inspect(ctx, r, judged);
  }

  private pausedReply(ctx: QueryContext): Answer {
    const dns = this.config.current.dns;
    ctx.status = Status.DENYLIST;
    ctx.listId = PAUSED_LIST_ID;
    ctx.ede = dns.blocking.edns === "NONE" ? -1 : 15;
    return blockedReply(ctx, dns, "client paused", null);
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
    let hit: Verdict = null;
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
      const v = judge(snap, wire, labels, h, name, ctx.q.qtype, groups, true);
      if (v?.allow) return a;
      if (v && !hit) {
        hit = v;
        ctx.cname = name;
      }
    }
    if (!hit || hit.allow) return a;
    const dns = this.config.current.dns;
    ctx.status =
      hit.status === Status.GRAVITY
        ? Status.GRAVITY_CNAME
        : hit.status === Status.REGEX
          ? Status.REGEX_CNAME
          : Status.DENYLIST_CNAME;
    ctx.listId = hit.listId;
    ctx.ede = dns.blocking.edns === "NONE" ? -1 : 15;
    return blockedReply(ctx, dns, hit.reason, hit.reply);
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

function intersects(a: Uint32Array, b: Uint32Array): boolean {
  for (let i = 0; i < b.length; i++) if (((a[i] ?? 0) & b[i]!) !== 0) return true;
  return false;
}

function matchExact(set: DomainSet, wire: Uint8Array, h: number, groups: Uint32Array): number {
  return set.size === 0 ? -1 : set.match(wire, h, groups);
}

// The suffixes of the name being judged (each label onwards) and their hashes, worked out once per name
// for every subtree set (the ABP lists, the blocked services, the scheduled ones) instead of once per set:
// a view per label is an object for the collector. Keyed by the wire array itself; handle() forgets it at
// the start of every query, so a buffer used again for another name is never taken for the last one.
const SUF_VIEWS: Uint8Array[] = [];
const SUF_H: number[] = [];
let sufWire: Uint8Array | null = null;

function suffixes(wire: Uint8Array, labels: number[], h0: number): void {
  if (sufWire === wire) return;
  sufWire = wire;
  for (let i = 0; i < labels.length; i++) {
    const v = i === 0 ? wire : wire.subarray(labels[i]);
    SUF_VIEWS[i] = v;
    SUF_H[i] = i === 0 ? h0 : hashName(v);
  }
}

/** An ABP `||x^` entry matches x and every name below it. */
function matchSubtree(set: DomainSet, wire: Uint8Array, labels: number[], h0: number, groups: Uint32Array): number {
  if (set.size === 0) return -1;
  suffixes(wire, labels, h0);
  for (let i = 0; i < labels.length; i++) {
    const id = set.match(SUF_VIEWS[i]!, SUF_H[i]!, groups);
    if (id >= 0) return id;
  }
  return -1;
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

/** A group window open now (`open`: the client's groups that have one): everything blocked, or the services it schedules. */
function scheduled(snap: Snapshot, wire: Uint8Array, labels: number[], h: number, open: Uint32Array): Verdict {
  if (snap.schedule!.blocksEverything(open))
    return { allow: false, status: Status.DENYLIST, reason: "schedule", listId: SCHEDULE_LIST_ID, reply: null };
  const id = matchSubtree(snap.scheduledServices, wire, labels, h, open);
  if (id >= 0)
    return { allow: false, status: Status.DENYLIST, reason: SERVICE_REASON.get(id)!, listId: -id, reply: null };
  return null;
}

/** Deny exact → antigravity → gravity → deny regex for one name (the query name, or a name of a CNAME chain). */
function judge(
  snap: Snapshot,
  wire: Uint8Array,
  labels: number[],
  h: number,
  name: string,
  qtype: number,
  groups: Uint32Array,
  _cname: boolean,
): Verdict {
  let id = matchExact(snap.denyExact, wire, h, groups);
  if (id >= 0) return { allow: false, status: Status.DENYLIST, reason: "denylist", listId: id, reply: null };
  id = intersects(groups, snap.serviceGroups) ? matchSubtree(snap.services, wire, labels, h, groups) : -1;
  if (id >= 0)
    return { allow: false, status: Status.DENYLIST, reason: SERVICE_REASON.get(id)!, listId: -id, reply: null };
  if (
    matchExact(snap.antigravity, wire, h, groups) >= 0 ||
    matchSubtree(snap.antigravityAbp, wire, labels, h, groups) >= 0
  )
    return { allow: true };
  id = matchExact(snap.gravity, wire, h, groups);
  if (id < 0) id = matchSubtree(snap.gravityAbp, wire, labels, h, groups);
  if (id >= 0) return { allow: false, status: Status.GRAVITY, reason: "gravity", listId: id, reply: null };
  const r = matchRegex(snap.denyRegex, snap.denyRegexAny, name, qtype, groups);
  if (r) return { allow: false, status: Status.REGEX, reason: "regex", listId: r.id, reply: r.reply };
  return null;
}
