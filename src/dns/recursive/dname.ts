// DNAME (RFC 6672): a zone's record that redirects every name below its owner to the same name below
// its target. The authority sends the DNAME and a CNAME it synthesized for the name asked; as unbound
// does, Moat makes that CNAME itself from the DNAME (§3.4: a resolver may) and drops the one received,
// so a server cannot send a CNAME that disagrees with its DNAME, and a server that sends none works.
import { equalNames, isBelow } from "../dnssec/names.ts";
import { TYPE } from "../wire.ts";
import type { Rec } from "./records.ts";

export const DNAME = 39;
/** RFC 1035 §3.1: a name longer than this does not exist; the substitution that makes one is YXDOMAIN (RFC 6672 §2.2) */
const MAX_NAME = 255;

/** The DNAME among `answers` whose owner lies strictly above `name`. */
export function dnameAbove(answers: readonly Rec[], name: Uint8Array): Rec | undefined {
  return answers.find((d) => d.type === DNAME && isBelow(name, d.key) && !equalNames(name, d.key));
}

/** The answers less the CNAMEs below one of their DNAMEs (received, not trusted: synthesize() makes them). */
export function withoutSynthesized(answers: Rec[]): Rec[] {
  if (!answers.some((d) => d.type === DNAME)) return answers;
  return answers.filter((c) => c.type !== TYPE.CNAME || !dnameAbove(answers, c.key));
}

/**
 * The CNAME `d` makes for `name` (lowercase wire, below d's owner): its owner the name, its target the
 * name with d's owner replaced by d's target, its TTL d's (§3.4); null when that target is too long.
 */
export function synthesize(d: Rec, name: Uint8Array, target: Uint8Array): Rec | null {
  const keep = name.length - d.key.length;
  if (keep + target.length > MAX_NAME) return null;
  const data = new Uint8Array(keep + target.length);
  data.set(name.subarray(0, keep));
  data.set(target, keep);
  return { owner: name, key: name, type: TYPE.CNAME, ttl: d.ttl, data, section: 0 };
}
