// The work one client query may cause, as unbound bounds it: the queries sent (max-sent-count 32),
// the CNAME restarts (max-query-restarts 11), the referrals followed, the glueless name servers looked
// up (NXNSAttack, CVE-2020-12662: a few of a referral's names at a time, never all of them), how deep
// one name server's lookup may need another's (TsuNAME's cyclic dependencies end here too), and the
// time. Spent, the query ends in SERVFAIL with an Extended DNS Error (RFC 8914) that says which.
// With dns.dnssec the answer's DNSKEY and DS fetches draw on the same Budget (one per client query):
// the clock, the glueless lookups and the referrals are the client query's, and the queries sent for
// the answer and its keys together stay within MAX_SENT_WITH_KEYS (KeyTrap's cousins, a chain of
// zones each with keys to fetch, cannot multiply the work by the steps it takes).
import { nameKey } from "../dnssec/names.ts";

/** queries sent for the answer (unbound's max-sent-count) */
const MAX_SENT = 32;
/** queries sent for the answer and its DNSSEC keys together */
const MAX_SENT_WITH_KEYS = 64;
export const MAX_RESTARTS = 11;
export const MAX_REFERRALS = 30;
/** glueless names of one zone's NS set looked up for one client query (unbound resolves a few at a time) */
export const GLUELESS_PER_ZONE = 3;
/** glueless lookups for one client query in all */
const MAX_GLUELESS = 8;
/** a name server's address that needs another's that needs another's ... */
export const MAX_DEPTH = 4;
/** one client query's resolution; a loop ends in SERVFAIL before a client's usual 5 s timeout */
const TIME_MS = 3500;
/** one authority's UDP answer (unbound starts at 376 ms and backs off; a home network sees ~30–300 ms) */
export const SERVER_TIMEOUT_MS = 900;

/** Why a resolution failed: an Extended DNS Error (RFC 8914). */
export interface Failure {
  ede: number;
  text: string;
}

/** RFC 8914 codes: 0 Other Error, 22 No Reachable Authority. */
export const EDE_OTHER = 0;
export const EDE_NO_AUTHORITY = 22;

export class Budget {
  sent = 0;
  /** MAX_SENT, and MAX_SENT_WITH_KEYS once the key fetches began */
  private limit = MAX_SENT;
  referrals = 0;
  glueless = 0;
  readonly deadline: number;
  /** glueless lookups started per zone cut */
  readonly gluelessByZone = new Map<string, number>();
  /** name servers whose address is being looked up: meeting one again is a cyclic dependency */
  readonly resolving = new Set<string>();
  /** name servers looked up already (with or without an address found) */
  readonly looked = new Set<string>();
  /** the first loop or limit met, which the final SERVFAIL reports rather than its consequence */
  reason: Failure | null = null;

  constructor(now = performance.now()) {
    this.deadline = now + TIME_MS;
  }

  /** The answer is in: the validator's key fetches follow, on what is left of the joint allowance. */
  forKeys(): void {
    this.limit = MAX_SENT_WITH_KEYS;
  }

  /** Why no further query may go out, or null. */
  spent(): Failure | null {
    if (this.sent >= this.limit) return this.note({ ede: EDE_OTHER, text: `query limit: ${this.limit} queries sent` });
    if (performance.now() >= this.deadline) return this.note({ ede: EDE_OTHER, text: `time limit: ${TIME_MS} ms` });
    return null;
  }

  /** Remembers the first reason and returns it. */
  note(f: Failure): Failure {
    this.reason ??= f;
    return this.reason;
  }

  /** Whether one more glueless name of `zone` may be looked up. */
  mayLookUp(zone: Uint8Array): boolean {
    const k = nameKey(zone);
    const n = this.gluelessByZone.get(k) ?? 0;
    if (n >= GLUELESS_PER_ZONE || this.glueless >= MAX_GLUELESS) return false;
    this.gluelessByZone.set(k, n + 1);
    this.glueless++;
    return true;
  }
}
