// The chain of trust (RFC 4035 §5): from a trust anchor's DS to the DNSKEYs of each zone down to the
// one that signed an answer, each zone's keys fetched once (DNSKEY and DS with DO+CD through the
// forwarder) and kept with their verdict. A zone is secure (its keys verified), insecure (a proven
// delegation without a usable DS) or bogus; an answer is judged RRset by RRset, and a negative
// answer by its NSEC/NSEC3 proof. Work is bounded: each job (one zone's keys, one answer) gets
// MAX_TRIES signature verifications, and a whole validation a time limit.
import { RCODE, walkMessage } from "../wire.ts";
import type { Anchor } from "./anchors.ts";
import { dsMatches, parseDnskey, parseDs, type Dnskey, type Ds } from "./crypto.ts";
import { dsAbsence, proveDenial, proveWildcard, type Proof } from "./denial.ts";
import { equalNames, isBelow, labelCount, nameKey, parentOf } from "./names.ts";
import { T, recordsOf, rrsetsOf, type RRset } from "./records.ts";
import { parseRrsig, verifyRrset, type Budget, type SigResult } from "./rrsig.ts";
import { TtlMap } from "./ttl-map.ts";

/** The values of Pi-hole's DNSSEC status (src/query/enums.ts DNSSEC_STATUS). */
export const SECURE = 1,
  BOGUS = 3,
  ABANDONED = 4;
const INSECURE = 2;

export interface Verdict {
  state: number;
  /** the Extended DNS Error of a bogus answer (RFC 8914): 6, 7, 8, 9, 10 or 12 */
  ede: number;
  why: string;
  /**
   * A secure answer's TTLs may not outlive its signatures: at most each RRSIG's original TTL and the
   * seconds to its expiration (RFC 4035 §5.3.3). Absent when nothing caps them.
   */
  ttl?: number;
  /** a secure negative answer's verified NSEC/NSEC3 RRsets, its zone and SOA: what RFC 8198 lets a resolver reuse */
  denial?: Denial;
}

export interface Denial {
  zone: Uint8Array;
  sets: RRset[];
  soa: RRset | undefined;
}

/**
 * Fetches `name`/`type` with DO and CD from the upstreams: the raw answer, or null when none came.
 * `query` is the same object for every fetch of one client query's validation (a resolver from the
 * root charges them all to one budget).
 */
export type Fetch = (name: Uint8Array, type: number, query: object) => Promise<Uint8Array | null>;

/** Signature verifications one job may spend (unbound's KeyTrap fix allows a handful per RRset). */
const MAX_TRIES = 8;
/**
 * What one client query's validation may spend in all (KeyTrap, CVE-2023-50387, comes back as many
 * cheap jobs: a CNAME chain through N zones, each with keys that fail, cost ~5 ms a zone). DS and
 * DNSKEY queries: unbound's max-sent-count, 32 outgoing queries per resolution (unbound.conf(5));
 * a chain needs 2 per new zone, so unbound's max-query-restarts, 11 CNAMEs (unbound.conf(5)), fits.
 * Signature checks: 8 jobs' worth of MAX_TRIES. The first job that fails ends the validation: the
 * answer is bogus already (BIND's max-validation-failures-per-fetch, 1, stops there too).
 */
const QUERY_FETCHES = 32;
const QUERY_TRIES = 8 * MAX_TRIES;

/** One validation's allowance: what is left of it. Work done for another query (a kept verdict) costs nothing. */
interface Work {
  /** what fetch() is handed: the client query's identity (validate()'s `client`) */
  client: object;
  fetches: number;
  tries: Budget;
}
/** RRSIG signature algorithms we verify; others make a zone insecure (RFC 4035 §5.2). */
const SUPPORTED = new Set([8, 10, 13, 14, 15]);
const DIGESTS = new Set([2, 4]);
/** How long verdicts on zones are kept, seconds: at most their TTL, and bogus ones briefly. */
const MAX_KEEP = 3600;
const BOGUS_KEEP = 60;

interface Zone {
  name: Uint8Array;
  state: number;
  keys: Dnskey[];
  ede: number;
  why: string;
  ttl: number;
  /** the walk found no zone cut can lie below (an alias, or a name that does not exist) */
  final?: boolean;
}

interface Fetched {
  rcode: number;
  answer: RRset[];
  authority: RRset[];
  ttl: number;
}

const SIG_EDE: Record<SigResult, number> = { ok: 0, expired: 7, "not-yet": 8, bad: 6, "no-key": 9, budget: 0 };

function bogus(name: Uint8Array, ede: number, why: string): Zone {
  return { name, state: BOGUS, keys: [], ede, why, ttl: BOGUS_KEEP };
}
const insecure = (name: Uint8Array, why: string): Zone => ({
  name,
  state: INSECURE,
  keys: [],
  ede: 0,
  why,
  ttl: MAX_KEEP,
});
const abandoned = (name: Uint8Array, why: string): Zone => ({ name, state: ABANDONED, keys: [], ede: 0, why, ttl: 0 });
/** What fetch() returns once the query has made QUERY_FETCHES of them. */
const OVER = Symbol("over");
const overspent = (name: Uint8Array) => abandoned(name, "too many DS and DNSKEY queries for one answer");
/** A job's budget, drawing on the query's too. */
const job = (work: Work): Budget => ({ tries: MAX_TRIES, query: work.tries });

/** A failed signature check as a zone verdict: the budget spent is ABANDONED, the rest bogus. */
function sigFailure(name: Uint8Array, r: SigResult, what: string): Zone {
  return r === "budget" ? abandoned(name, `${what}: too many signatures`) : bogus(name, SIG_EDE[r], `${what}: ${r}`);
}

/** The zone that signed an RRset: the signer of its first RRSIG at or above the owner. */
function signerOf(set: RRset): Uint8Array | null {
  for (const r of set.sigs) {
    const s = parseRrsig(r);
    if (s && isBelow(set.owner, s.signer)) return s.signer;
  }
  return null;
}

export interface ValidatorOptions {
  anchors: () => readonly Anchor[];
  fetch: Fetch;
  /** ms since the epoch */
  now?: () => number;
}

export class Validator {
  private readonly now: () => number;
  private readonly fetched: TtlMap<Fetched | null>;
  private readonly zones: TtlMap<Zone>;
  private readonly enclosing: TtlMap<Zone>;

  constructor(private readonly o: ValidatorOptions) {
    this.now = o.now ?? Date.now;
    this.fetched = new TtlMap(this.now);
    this.zones = new TtlMap(this.now);
    this.enclosing = new TtlMap(this.now);
  }

  /** null: no usable answer; OVER: this query has asked for as many as it may */
  private async fetch(name: Uint8Array, type: number, work: Work): Promise<Fetched | null | typeof OVER> {
    const k = `${nameKey(name)}|${type}`;
    if (!this.fetched.has(k)) {
      if (work.fetches <= 0) return OVER;
      work.fetches--;
    }
    return this.fetched.get(
      k,
      () => this.o.fetch(name, type, work.client).then(parseFetched),
      (f) => (f ? Math.min(f.ttl, MAX_KEEP) : 0),
    );
  }

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  /** The anchors whose owner is the closest to `name` at or above it. */
  private anchorFor(name: Uint8Array): Anchor[] {
    let best: Anchor[] = [];
    for (const a of this.o.anchors()) {
      if (!isBelow(name, a.owner)) continue;
      if (!best.length || a.owner.length > best[0]!.owner.length) best = [a];
      else if (equalNames(a.owner, best[0]!.owner)) best.push(a);
    }
    return best;
  }

  /** The verdict on zone `name` (a signer an RRSIG names) and, when secure, its verified keys. */
  zone(name: Uint8Array, work: Work): Promise<Zone> {
    return this.zones.get(
      nameKey(name),
      () => this.loadZone(name, work),
      (z) => z.ttl,
    );
  }

  private async loadZone(name: Uint8Array, work: Work): Promise<Zone> {
    const anchors = this.anchorFor(name);
    if (!anchors.length) return insecure(name, "no trust anchor above it");
    if (equalNames(anchors[0]!.owner, name)) return this.keysFrom(name, anchors, "trust anchor", work);
    const f = await this.fetch(name, T.DS, work);
    if (f === OVER) return overspent(name);
    if (!f) return abandoned(name, "no answer to the DS query");
    const ds = f.answer.find((s) => s.type === T.DS && equalNames(s.owner, name));
    if (ds) {
      const signer = signerOf(ds);
      if (!signer) {
        const up = await this.enclosingZone(parentOf(name), work);
        return up.state === SECURE ? bogus(name, 10, "DS without RRSIG") : up;
      }
      if (equalNames(signer, name)) return bogus(name, 6, "DS signed by its own zone");
      const parent = await this.zone(signer, work);
      if (parent.state !== SECURE) return { ...parent, name };
      const r = verifyRrset(ds, signer, parent.keys, this.seconds(), job(work));
      if (r !== "ok") return sigFailure(name, r, "DS");
      const list: Ds[] = [];
      for (const rr of ds.rrs) {
        const d = parseDs(rr.rdata);
        if (d) list.push(d);
      }
      return this.keysFrom(name, list, "DS", work);
    }
    // no DS: the parent must prove it, or be insecure itself
    const proof = await this.provenSets(f.authority, parentOf(name), work, name);
    if (proof.zone.state !== SECURE) return { ...proof.zone, name };
    const absence = dsAbsence(proof.sets, proof.zone.name, name);
    if (absence === "insecure-cut") return insecure(name, "a delegation without DS");
    return bogus(name, 12, absence === "no-cut" ? "signer is not a zone" : "no proof that the DS is missing");
  }

  /** The zone's DNSKEYs checked against its DS (or anchors): secure, insecure without a usable DS, or bogus. */
  private async keysFrom(name: Uint8Array, ds: readonly Ds[], what: string, work: Work): Promise<Zone> {
    const usable = ds.filter((d) => SUPPORTED.has(d.algorithm) && DIGESTS.has(d.digestType));
    if (!usable.length) return insecure(name, `${what}: no supported algorithm or digest`);
    const f = await this.fetch(name, T.DNSKEY, work);
    if (f === OVER) return overspent(name);
    if (!f) return abandoned(name, "no answer to the DNSKEY query");
    const set = f.answer.find((s) => s.type === T.DNSKEY && equalNames(s.owner, name));
    if (!set) return bogus(name, 9, "no DNSKEY");
    const keys: Dnskey[] = [];
    for (const r of set.rrs) {
      const k = parseDnskey(r.rdata);
      if (k) keys.push(k);
    }
    const entry = keys.filter((k) => usable.some((d) => dsMatches(d, name, k)));
    if (!entry.length) return bogus(name, 9, `no DNSKEY matches the ${what}`);
    const r = verifyRrset(set, name, entry, this.seconds(), job(work));
    if (r !== "ok") return sigFailure(name, r, "DNSKEY");
    // kept no longer than the keys' TTL and their signatures allow
    const ttl = Math.min(MAX_KEEP, ttlCap([set], this.seconds()) ?? MAX_KEEP, ...set.rrs.map((x) => x.ttl));
    return { name, state: SECURE, keys, ede: 0, why: "", ttl };
  }

  /**
   * The zone `name` lies in, found from the trust anchor down, one DS query per label: secure (with
   * keys), insecure below a proven delegation without DS, or bogus. For RRsets that come unsigned.
   */
  enclosingZone(name: Uint8Array, work: Work): Promise<Zone> {
    return this.enclosing.get(
      nameKey(name),
      () => this.walk(name, work),
      (z) => z.ttl,
    );
  }

  // One label per step, each step's verdict kept (enclosingZone's cache): new names under a zone already
  // walked cost no DS query and no signature check.
  private async walk(name: Uint8Array, work: Work): Promise<Zone> {
    const anchors = this.anchorFor(name);
    if (!anchors.length) return insecure(name, "no trust anchor above it");
    if (equalNames(name, anchors[0]!.owner)) return this.zone(name, work);
    let zone = await this.enclosingZone(parentOf(name), work);
    if (zone.state !== SECURE || zone.final) return zone;
    const f = await this.fetch(name, T.DS, work);
    if (f === OVER) return overspent(name);
    if (!f) return abandoned(name, "no answer to the DS query");
    if (f.answer.some((s) => s.type === T.DS && equalNames(s.owner, name))) return this.zone(name, work);
    // an alias, or a name that does not exist: no zone cut here or below
    if (f.answer.some((s) => s.type === T.CNAME)) return { ...zone, final: true };
    const proof = await this.provenSets(f.authority, zone.name, work, name);
    if (proof.zone.state !== SECURE) return proof.zone;
    zone = proof.zone;
    if (f.rcode === RCODE.NXDOMAIN) return { ...zone, final: true };
    const absence = dsAbsence(proof.sets, zone.name, name);
    if (absence === "insecure-cut") return insecure(name, "a delegation without DS");
    if (absence === "bogus") return bogus(name, 12, "no proof that the DS is missing");
    return zone;
  }

  /**
   * The signed NSEC/NSEC3 RRsets of a negative answer, verified with their signer's keys, and that
   * signer's zone. Unsigned ones: the zone `fallback` lies in decides (insecure, or bogus).
   */
  private async provenSets(
    authority: RRset[],
    fallback: Uint8Array,
    work: Work,
    /** a DS proof comes from above the name whose DS it denies (and waiting on that name's own verdict would never end) */
    above?: Uint8Array,
  ): Promise<{ zone: Zone; sets: RRset[] }> {
    const denial = authority.filter((s) => s.type === T.NSEC || s.type === T.NSEC3 || s.type === T.SOA);
    const signed = denial.find((s) => s.sigs.length && s.type !== T.SOA) ?? denial.find((s) => s.sigs.length);
    const signer = signed && signerOf(signed);
    if (!signer) {
      const z = await this.enclosingZone(fallback, work);
      if (z.state !== SECURE) return { zone: z, sets: [] };
      const proofs = denial.some((s) => s.type !== T.SOA);
      return { zone: bogus(fallback, proofs ? 10 : 12, proofs ? "unsigned NSEC" : "no NSEC or NSEC3"), sets: [] };
    }
    if (above && isBelow(signer, above)) return { zone: bogus(above, 12, "DS denied by the zone itself"), sets: [] };
    const zone = await this.zone(signer, work);
    if (zone.state !== SECURE) return { zone, sets: [] };
    const budget = job(work);
    const sets: RRset[] = [];
    for (const s of denial) {
      if (s.type === T.SOA || !isBelow(s.owner, signer)) continue;
      const r = verifyRrset(s, signer, zone.keys, this.seconds(), budget);
      if (r !== "ok") return { zone: sigFailure(s.owner, r, s.type === T.NSEC ? "NSEC" : "NSEC3"), sets: [] };
      sets.push(s);
    }
    if (!sets.length) return { zone: bogus(signer, 12, "no NSEC or NSEC3"), sets: [] };
    return { zone, sets };
  }

  /**
   * Judges an answer to `qname`/`qtype` (uncompressed lowercase wire name) fetched with DO and CD.
   * `client`: the client query, handed to every fetch (a resolver from the root charges them to its budget).
   */
  async validate(buf: Uint8Array, qname: Uint8Array, qtype: number, client?: object): Promise<Verdict> {
    const m = walkMessage(buf);
    const records = m && recordsOf(buf, m);
    if (!m || !records) return { state: BOGUS, ede: 6, why: "malformed answer" };
    const answer = rrsetsOf(records, 0);
    const authority = rrsetsOf(records, 1);
    const verdicts: Zone[] = [];
    const work: Work = { client: client ?? {}, fetches: QUERY_FETCHES, tries: { tries: QUERY_TRIES } };
    const budget = job(work);
    const failed = () => verdicts.some((z) => z.state === BOGUS || z.state === ABANDONED);
    for (const set of answer) {
      if (failed()) break;
      // a CNAME synthesized from a DNAME comes unsigned; the DNAME's signature covers it (RFC 6672 §5.3.3)
      const synthesized =
        set.type === T.CNAME &&
        !set.sigs.length &&
        answer.some((d) => d.type === T.DNAME && isBelow(set.owner, d.owner) && !equalNames(set.owner, d.owner));
      if (!synthesized) verdicts.push(await this.checkSet(set, authority, budget, work));
    }
    // the name the answer ends at, past its CNAMEs: if it has no RRset of the type asked, the denial must be proven
    let sname = qname;
    for (let hops = 0; hops < 16 && qtype !== T.CNAME; hops++) {
      const c = answer.find((s) => s.type === T.CNAME && equalNames(s.owner, sname));
      if (!c) break;
      sname = c.rrs[0]!.rdata;
    }
    const final = answer.some((s) => equalNames(s.owner, sname) && (s.type === qtype || qtype === 255));
    let denial: Denial | undefined;
    if (!final && !failed() && (m.rcode === RCODE.NOERROR || m.rcode === RCODE.NXDOMAIN)) {
      const d = await this.checkDenial(sname, qtype, m.rcode === RCODE.NXDOMAIN, authority, work);
      verdicts.push(d.zone);
      const zone = d.zone.name;
      if (!answer.length && d.sets.length)
        denial = { zone, sets: d.sets, soa: authority.find((x) => x.type === T.SOA && equalNames(x.owner, zone)) };
    }
    const v = combine(verdicts);
    if (v.state === SECURE) {
      v.ttl = ttlCap([...answer, ...authority], this.seconds());
      if (denial) v.denial = denial;
    }
    return v;
  }

  private async checkSet(set: RRset, authority: RRset[], budget: Budget, work: Work): Promise<Zone> {
    const signer = signerOf(set);
    if (!signer) {
      const z = await this.enclosingZone(set.owner, work);
      return z.state === SECURE ? bogus(set.owner, 10, "RRset without RRSIG") : z;
    }
    const zone = await this.zone(signer, work);
    if (zone.state !== SECURE) return zone;
    const r = verifyRrset(set, signer, zone.keys, this.seconds(), budget);
    if (r !== "ok") return sigFailure(set.owner, r, "answer");
    // expanded from a wildcard: the name itself must be proven absent
    const labels = Math.min(...set.sigs.map((s) => parseRrsig(s)?.labels ?? 255));
    // an owner that is itself the wildcard ("*.w", asked for by name) is not an expansion: RRSIG labels leave "*" out
    const literal = set.owner[0] === 1 && set.owner[1] === 42 ? 1 : 0;
    if (labels >= labelCount(set.owner) - literal) return zone;
    const proof = await this.provenSets(authority, set.owner, work);
    if (proof.zone.state !== SECURE) return proof.zone;
    return fromProof(proveWildcard(proof.sets, proof.zone.name, set.owner, labels), set.owner, zone);
  }

  private async checkDenial(
    name: Uint8Array,
    qtype: number,
    nx: boolean,
    authority: RRset[],
    work: Work,
  ): Promise<{ zone: Zone; sets: RRset[] }> {
    const proof = await this.provenSets(authority, name, work);
    if (proof.zone.state !== SECURE) return { zone: proof.zone, sets: [] };
    if (!isBelow(name, proof.zone.name)) return { zone: bogus(name, 12, "proof from another zone"), sets: [] };
    const zone = fromProof(proveDenial(proof.sets, proof.zone.name, name, qtype, nx), name, proof.zone);
    return { zone, sets: zone.state === SECURE ? proof.sets : [] };
  }
}

function fromProof(p: Proof, name: Uint8Array, zone: Zone): Zone {
  if (p === "secure") return zone;
  return p === "insecure" ? insecure(name, "NSEC3 opt-out or iterations") : bogus(name, 12, "no denial proof");
}

/** Bogus over abandoned over insecure over secure; nothing judged (no records, no denial) is insecure. */
function combine(zones: Zone[]): Verdict {
  for (const state of [BOGUS, ABANDONED, INSECURE]) {
    const z = zones.find((x) => x.state === state);
    if (z) return { state, ede: z.ede, why: z.why };
  }
  return { state: zones.length ? SECURE : INSECURE, ede: 0, why: "" };
}

/** The TTL the signatures of these RRsets allow (RFC 4035 §5.3.3); undefined when none carries a signature. */
function ttlCap(sets: RRset[], now: number): number | undefined {
  let cap: number | undefined;
  for (const set of sets)
    for (const r of set.sigs) {
      const sig = parseRrsig(r);
      if (!sig) continue;
      const left = Math.max(0, (sig.expiration - now) | 0);
      cap = Math.min(cap ?? Number.POSITIVE_INFINITY, sig.originalTtl, left);
    }
  return cap;
}

function parseFetched(buf: Uint8Array | null): Fetched | null {
  const m = buf && walkMessage(buf);
  const records = m && recordsOf(buf, m);
  if (!m || !records || (m.rcode !== RCODE.NOERROR && m.rcode !== RCODE.NXDOMAIN)) return null;
  let ttl = MAX_KEEP;
  for (const r of records) ttl = Math.min(ttl, r.ttl);
  return { rcode: m.rcode, answer: rrsetsOf(records, 0), authority: rrsetsOf(records, 1), ttl };
}
