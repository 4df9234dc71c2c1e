// Aggressive use of DNSSEC-validated cache (RFC 8198): the NSEC/NSEC3 records of a secure negative
// answer say that a whole range of names does not exist, not just the name asked. Kept here by zone,
// they answer a later question inside a proven range (NXDOMAIN, or NODATA) without asking anyone, as
// unbound's aggressive-nsec does. Only verified records come in (Verdict.denial), only for their TTL,
// the SOA's TTL and MINIMUM (RFC 9077) and what their signatures allow; NSEC3 opt-out proves nothing.
import { nameKey, parentOf } from "./names.ts";
import { proveDenial } from "./denial.ts";
import { T, type RRset } from "./records.ts";
import type { Denial } from "./validator.ts";

/** zones whose proofs are kept; the oldest go first */
const MAX_ZONES = 1000;
/** NSEC/NSEC3 RRsets kept per zone (the proofs of ~10 names each); the oldest go first */
const MAX_SETS = 32;

interface Kept {
  set: RRset;
  /** ms since the epoch */
  until: number;
}

interface ZoneProofs {
  zone: Uint8Array;
  soa: Kept;
  sets: Map<string, Kept>;
}

/** A negative answer made from kept proofs: its rcode, and its authority section with the TTLs left. */
export interface Synthesized {
  nxdomain: boolean;
  soa: RRset;
  sets: RRset[];
  ttl: number;
}

export class DenialCache {
  private readonly zones = new Map<string, ZoneProofs>();

  constructor(private readonly now: () => number = Date.now) {}

  clear(): void {
    this.zones.clear();
  }

  /** Keeps a secure negative answer's proof for at most `cap` seconds (its signatures' limit). */
  learn(d: Denial, cap = Number.POSITIVE_INFINITY): void {
    const soa = d.soa?.rrs[0];
    if (!d.soa || !soa || soa.rdata.length < 20) return;
    const minimum = new DataView(soa.rdata.buffer, soa.rdata.byteOffset + soa.rdata.length - 4).getUint32(0);
    const negative = Math.min(cap, soa.ttl, minimum);
    if (!(negative > 0)) return;
    const k = nameKey(d.zone);
    let z = this.zones.get(k);
    const until = (ttl: number) => this.now() + Math.min(negative, ttl) * 1000;
    if (!z) {
      if (this.zones.size >= MAX_ZONES) this.zones.delete(this.zones.keys().next().value!);
      z = { zone: d.zone, soa: { set: d.soa, until: until(soa.ttl) }, sets: new Map() };
      this.zones.set(k, z);
    }
    z.soa = { set: d.soa, until: until(soa.ttl) };
    for (const s of d.sets) {
      const sk = `${nameKey(s.owner)}|${s.type}`;
      z.sets.delete(sk);
      if (z.sets.size >= MAX_SETS) z.sets.delete(z.sets.keys().next().value!);
      z.sets.set(sk, { set: s, until: until(Math.min(...s.rrs.map((r) => r.ttl))) });
    }
  }

  /** The proof that `name` does not exist, or has no `qtype`, from the kept records of its closest zone; null when none. */
  answer(name: Uint8Array, qtype: number): Synthesized | null {
    const now = this.now();
    // a DS record lives on the parent's side of a zone cut (RFC 4035 §3.1.4.1)
    let n = qtype === T.DS && name[0] !== 0 ? parentOf(name) : name;
    let z: ZoneProofs | undefined;
    for (;;) {
      z = this.zones.get(nameKey(n));
      if (z || n[0] === 0) break;
      n = parentOf(n);
    }
    if (!z || z.soa.until <= now) return null;
    const live = [...z.sets.values()].filter((k) => k.until > now);
    for (const nxdomain of [true, false]) {
      if (
        proveDenial(
          live.map((k) => k.set),
          z.zone,
          name,
          qtype,
          nxdomain,
        ) !== "secure"
      )
        continue;
      // the fewest records that still prove it: a reply carries two or three, not all the zone's
      const used = [...live];
      for (let i = used.length - 1; i >= 0; i--) {
        const without = used.filter((_, j) => j !== i);
        if (
          proveDenial(
            without.map((k) => k.set),
            z.zone,
            name,
            qtype,
            nxdomain,
          ) === "secure"
        )
          used.splice(i, 1);
      }
      const until = Math.min(z.soa.until, ...used.map((k) => k.until));
      const ttl = Math.floor((until - now) / 1000);
      if (ttl <= 0) return null;
      return { nxdomain, soa: z.soa.set, sets: used.map((k) => k.set), ttl };
    }
    return null;
  }
}
