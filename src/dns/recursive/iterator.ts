// Iterative resolution from the root (RFC 1034 §5.3.3), as unbound does it: QNAME minimisation
// (RFC 9156: each zone is asked only for the next label, type A, and for the full name at the last;
// an NXDOMAIN or an error on a minimised name is asked again in full, the fallback RFC 9156 §3 allows
// for broken servers), referrals followed down only, glue taken only in the bailiwick of the zone that
// gave it, glueless name servers looked up a few at a time, CNAME chains followed across zones. Every
// step draws on the client query's Budget (budget.ts). Answers keep only the records the asked zone
// may speak for: an authority's records about names outside its zone are dropped.
import { equalNames, isBelow, labelCount, nameKey, parentOf, suffix } from "../dnssec/names.ts";
import { RCODE, TYPE, getU16, walkMessage } from "../wire.ts";
import { AA } from "../wire.ts";
import {
  type Budget,
  EDE_NO_AUTHORITY,
  EDE_OTHER,
  MAX_DEPTH,
  MAX_REFERRALS,
  MAX_RESTARTS,
  SERVER_TIMEOUT_MS,
  type Failure,
} from "./budget.ts";
import type { Cut, Delegations, NameServer } from "./delegations.ts";
import { authorityQuery, type Exchanger } from "./exchange.ts";
import { DNAME, dnameAbove, synthesize, withoutSynthesized } from "./dname.ts";
import { recordsOf, targetOf, type Rec } from "./records.ts";

const DS = 43;
const RRSIG = 46;
/** RFC 6672 §2.2: a DNAME substitution that makes a name too long */
const YXDOMAIN = 6;
/** minimised queries before the full name is asked (unbound's MAX_MINIMISE_COUNT is 10) */
const MAX_MINIMISE = 10;
/** record types an authority's negative answer carries: the SOA and the DNSSEC denial (RFC 4035 §3.1.3) */
const NEGATIVE = new Set([TYPE.SOA, 47, 50, RRSIG]);

export interface Resolved {
  rcode: number;
  answers: Rec[];
  authority: Rec[];
}

export const isFailure = <T extends object>(o: T | Failure): o is Failure => "ede" in o;

interface Response {
  m: NonNullable<ReturnType<typeof walkMessage>>;
  recs: Rec[];
  ip: string;
}

const text = (name: Uint8Array): string => {
  const out: string[] = [];
  for (let o = 0; name[o]! !== 0; o += name[o]! + 1)
    out.push(Buffer.from(name.subarray(o + 1, o + 1 + name[o]!)).toString("latin1"));
  return out.length ? out.join(".") : ".";
};

export class Iterator {
  constructor(
    private readonly cuts: Delegations,
    private readonly net: Exchanger,
  ) {}

  /** `name` (lowercase wire) of `qtype`, its CNAME chain followed across zones. */
  async resolve(name: Uint8Array, qtype: number, dnssecOk: boolean, b: Budget, depth = 0): Promise<Resolved | Failure> {
    const chain: Rec[] = [];
    const seen = new Set([nameKey(name)]);
    let cur = name;
    for (let restarts = 0; ; restarts++) {
      const r = await this.iterate(cur, qtype, dnssecOk, b, depth);
      if (isFailure(r)) return r;
      const answers = withoutSynthesized(r.answers);
      let target = cur;
      for (;;) {
        if (qtype === TYPE.CNAME || answers.some((a) => a.type === qtype && equalNames(a.key, target))) break;
        let c = answers.find((a) => a.type === TYPE.CNAME && equalNames(a.key, target));
        const d = c ? undefined : dnameAbove(answers, target);
        if (d) {
          c = synthesize(d, target, targetOf(d)) ?? undefined;
          if (!c) return { rcode: YXDOMAIN, answers: [...chain, ...answers], authority: [] };
          answers.splice(answers.indexOf(d) + 1, 0, c);
        }
        if (!c) break;
        target = targetOf(c);
        const k = nameKey(target);
        if (seen.has(k)) return b.note({ ede: EDE_OTHER, text: `CNAME loop at ${text(target)}` });
        seen.add(k);
      }
      chain.push(...answers);
      const answered = answers.some((a) => a.type === qtype && equalNames(a.key, target));
      if (equalNames(target, cur) || answered || r.rcode !== RCODE.NOERROR)
        return { rcode: r.rcode, answers: chain, authority: r.authority };
      if (restarts >= MAX_RESTARTS)
        return b.note({ ede: EDE_OTHER, text: `CNAME chain longer than ${MAX_RESTARTS} restarts` });
      cur = target;
    }
  }

  /**
   * Asks the root hints' servers for the root's NS set and takes it, with the addresses they give for
   * it, as the root cut (RFC 8109 §3: any name is in the root's bailiwick). Names without an address are
   * left out; an answer with none at all, or no answer, leaves the hints.
   */
  async prime(b: Budget): Promise<void> {
    const root = Uint8Array.of(0);
    const r = await this.askZone(this.cuts.closest(root), root, TYPE.NS, false, b, MAX_DEPTH, new Set());
    const ns = isFailure(r) ? [] : r.recs.filter((x) => x.section === 0 && x.type === TYPE.NS && x.key[0] === 0);
    const servers: NameServer[] = [];
    for (const n of ns) {
      const name = targetOf(n);
      const addrs = isFailure(r)
        ? []
        : r.recs
            .filter((g) => g.section === 2 && equalNames(g.key, name) && (g.type === TYPE.A || g.type === TYPE.AAAA))
            .map((g) => addrText(g.data));
      if (addrs.length) servers.push({ name, addrs });
    }
    this.cuts.primed(servers.length ? servers : null, Math.min(...ns.map((n) => n.ttl)));
  }

  /** One name without restarts: down from the closest known cut, one label at a time. */
  private async iterate(
    name: Uint8Array,
    qtype: number,
    dnssecOk: boolean,
    b: Budget,
    depth: number,
  ): Promise<Resolved | Failure> {
    // a DS record lives on the parent's side of the cut (RFC 4035 §3.1.4.1)
    let cut = this.cuts.closest(qtype === DS && name[0] !== 0 ? parentOf(name) : name);
    let minimise = true;
    let steps = 0;
    let labels = labelCount(cut.zone) + 1;
    const total = labelCount(name);
    const zones = new Set([nameKey(cut.zone)]);
    const excluded = new Set<string>();
    for (;;) {
      // names found inside this zone before need no minimised query of their own
      while (minimise && labels < total && this.cuts.isNoCut(suffix(name, labels))) labels++;
      const mini = minimise && labels < total && steps < MAX_MINIMISE;
      const qn = mini ? suffix(name, labels) : name;
      const qt = mini ? TYPE.A : qtype;
      const r = await this.askZone(cut, qn, qt, dnssecOk, b, depth, excluded);
      if (isFailure(r)) {
        const stale = b.spent() ? null : this.cuts.stale(name, cut.zone);
        if (stale && !zones.has(nameKey(stale.zone))) {
          // the zone that delegates is silent: the expired delegation's servers are asked (serve-stale)
          cut = stale;
          zones.add(nameKey(stale.zone));
          labels = labelCount(stale.zone) + 1;
          excluded.clear();
          continue;
        }
        if (!mini || b.spent()) return r;
        minimise = false; // RFC 9156 §3: a server that fails on the minimised name gets the full one
        excluded.clear();
        continue;
      }
      const { m, recs, ip } = r;
      const inZone = (x: Rec) => isBelow(x.key, cut.zone);
      const answers = recs.filter((x) => x.section === 0 && inZone(x));
      const ns = recs.filter((x) => x.section === 1 && x.type === TYPE.NS);
      const soa = recs.some((x) => x.section === 1 && x.type === TYPE.SOA);
      if (m.rcode === RCODE.NXDOMAIN) {
        if (mini) {
          minimise = false;
          continue;
        }
        return {
          rcode: m.rcode,
          answers,
          authority: recs.filter((x) => x.section === 1 && NEGATIVE.has(x.type) && inZone(x)),
        };
      }
      if (answers.length === 0 && ns.length && !soa && !(m.flags & AA)) {
        // a referral: only downwards, towards the name
        const child = ns[0]!.key;
        if (equalNames(child, cut.zone) || !isBelow(child, cut.zone) || !isBelow(qn, child)) {
          // the same zone again (the child's servers do not serve it), or sideways/upwards: a lame server
          b.note({ ede: EDE_OTHER, text: `referral loop at ${text(cut.zone)}` });
          excluded.add(ip);
          continue;
        }
        if (++b.referrals > MAX_REFERRALS) return b.note({ ede: EDE_OTHER, text: `referral limit: ${MAX_REFERRALS}` });
        const k = nameKey(child);
        if (zones.has(k)) return b.note({ ede: EDE_OTHER, text: `referral loop at ${text(child)}` });
        zones.add(k);
        cut = this.referral(cut, child, recs, ns);
        labels = labelCount(child) + 1;
        excluded.clear();
        continue;
      }
      if (!(m.flags & AA) && answers.length === 0) {
        // neither an answer, nor a denial, nor a referral: lame
        excluded.add(ip);
        continue;
      }
      if (mini && answers.some((x) => x.type === DNAME)) {
        // a DNAME at or above the minimised name redirects the rest: the full name gets its CNAME made
        minimise = false;
        continue;
      }
      if (mini) {
        // the name exists and is no cut: one label more of it for the same zone
        const soaTtl = recs.find((x) => x.section === 1 && x.type === TYPE.SOA)?.ttl;
        this.cuts.noCut(qn, Math.min(soaTtl ?? 300, ...answers.map((x) => x.ttl)));
        labels++;
        steps++;
        continue;
      }
      const authority = answers.length ? [] : recs.filter((x) => x.section === 1 && NEGATIVE.has(x.type) && inZone(x));
      return { rcode: m.rcode, answers, authority };
    }
  }

  /** A referral's cut: its NS names, with the glue in the bailiwick of the zone that referred. */
  private referral(from: Cut, child: Uint8Array, recs: Rec[], ns: Rec[]): Cut {
    const servers: NameServer[] = [];
    let ttl = Number.POSITIVE_INFINITY;
    for (const r of ns) {
      if (!equalNames(r.key, child)) continue;
      ttl = Math.min(ttl, r.ttl);
      const name = targetOf(r);
      const addrs: string[] = [];
      if (isBelow(name, from.zone))
        for (const g of recs)
          if (g.section === 2 && equalNames(g.key, name) && (g.type === TYPE.A || g.type === TYPE.AAAA))
            addrs.push(addrText(g.data));
      servers.push({ name, addrs });
    }
    return this.cuts.learn(child, servers, ttl === Number.POSITIVE_INFINITY ? 0 : ttl);
  }

  /** The first usable response from the cut's servers, looking up glueless ones when those with addresses fail. */
  private async askZone(
    cut: Cut,
    qn: Uint8Array,
    qt: number,
    dnssecOk: boolean,
    b: Budget,
    depth: number,
    excluded: Set<string>,
  ): Promise<Response | Failure> {
    const { query, end } = authorityQuery(qn, qt, dnssecOk);
    for (;;) {
      // a server that did not answer is asked once more (a datagram may be lost) after the others
      for (let round = 0; round < 2; round++) {
        const addrs = cut.servers.flatMap((s) => s.addrs).filter((ip) => !excluded.has(ip));
        for (const ip of this.net.order([...new Set(addrs)])) {
          const stop = b.spent();
          if (stop) return stop;
          b.sent++;
          const wait = Math.min(SERVER_TIMEOUT_MS, b.deadline - performance.now());
          const a = await this.net.ask(ip, query, end, wait);
          if (!a) {
            if (round === 1) excluded.add(ip);
            continue;
          }
          const m = walkMessage(a);
          const recs = m && sameQuestion(a, qn, qt) ? recordsOf(a, m) : null;
          if (!m || !recs || (m.rcode !== RCODE.NOERROR && m.rcode !== RCODE.NXDOMAIN)) {
            excluded.add(ip); // REFUSED, SERVFAIL, garbage: lame for this zone, for this query
            continue;
          }
          return { m, recs, ip };
        }
      }
      if (!(await this.lookUpGlueless(cut, b, depth))) break;
    }
    return b.reason ?? { ede: EDE_NO_AUTHORITY, text: `no reachable authority for ${text(cut.zone)}` };
  }

  /** Looks up the addresses of one more glueless name server of `cut`; false when none may be. */
  private async lookUpGlueless(cut: Cut, b: Budget, depth: number): Promise<boolean> {
    for (const s of cut.servers) {
      if (s.addrs.length) continue;
      const k = nameKey(s.name);
      if (b.resolving.has(k)) {
        b.note({ ede: EDE_OTHER, text: `cyclic NS dependency at ${text(s.name)}` });
        continue;
      }
      if (b.looked.has(k)) continue; // looked up for this query already, without an address
      if (depth >= MAX_DEPTH) {
        b.note({ ede: EDE_OTHER, text: `name server dependency deeper than ${MAX_DEPTH}` });
        return false;
      }
      if (b.spent() || !b.mayLookUp(cut.zone)) return false;
      b.looked.add(k);
      b.resolving.add(k);
      // IPv4 first, as unbound's default prefers; a name server with IPv6 addresses alone is asked there
      for (const [type, size] of [
        [TYPE.A, 4],
        [TYPE.AAAA, 16],
      ] as const) {
        if (b.spent()) break;
        const r = await this.resolve(s.name, type, false, b, depth + 1);
        // a name that does not exist (NXNSAttack's are made up) has no AAAA either
        if (isFailure(r) || r.rcode !== RCODE.NOERROR) break;
        for (const a of r.answers) if (a.type === type && a.data.length === size) s.addrs.push(addrText(a.data));
        if (s.addrs.length) break;
      }
      b.resolving.delete(k);
      return true;
    }
    return false;
  }
}

/** The answer's question is ours, the name in any case. */
function sameQuestion(a: Uint8Array, qn: Uint8Array, qt: number): boolean {
  if (getU16(a, 4) !== 1 || a.length < 12 + qn.length + 4) return false;
  for (let i = 0; i < qn.length; i++) {
    const c = a[12 + i]!;
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== qn[i]) return false;
  }
  return getU16(a, 12 + qn.length) === qt;
}

function addrText(d: Uint8Array): string {
  if (d.length === 4) return d.join(".");
  const parts: string[] = [];
  for (let i = 0; i < 16; i += 2) parts.push(((d[i]! << 8) | d[i + 1]!).toString(16));
  return parts.join(":");
}
