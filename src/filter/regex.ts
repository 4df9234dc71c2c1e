// Pi-hole regex entries: a POSIX extended regex, case-insensitive, with the
// extensions ;querytype=, ;invert and ;reply= after the pattern. POSIX bracket classes such as
// [[:digit:]] are translated to plain ranges. Patterns run on re2js, a port of RE2: its time is
// linear in the name's length whatever the pattern, where a backtracking engine (JavaScript's
// RegExp) takes exponential time on patterns like ^(a+)+b$ and would stall every query on the DNS
// thread. RE2 has no backreferences or lookaround (neither has POSIX ERE lookaround): such a
// pattern is reported as invalid. bench/filter/regex.ts measures the cost per lookup.
import { isIP } from "node:net";
import { RE2JS } from "re2js";

export const QTYPE_NUM: Readonly<Record<string, number>> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  HINFO: 13,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  NAPTR: 35,
  DS: 43,
  RRSIG: 46,
  DNSKEY: 48,
  SVCB: 64,
  HTTPS: 65,
  ANY: 255,
};

export type RegexReply =
  | { kind: "NXDOMAIN" | "NODATA" | "REFUSED" | "IP" | "NONE" }
  /** the addresses answered for A and for AAAA (a regex's `;reply=` gives one each; AdGuard rewrites may give several) */
  | { kind: "ADDR"; v4?: readonly string[]; v6?: readonly string[] }
  | { kind: "CNAME"; target: string };

/** A compiled pattern: does it match somewhere in the name. */
export interface NameMatcher {
  test(name: string): boolean;
}

export interface CompiledRegex {
  id: number;
  re: NameMatcher;
  /** the pattern as re2js reads it */
  source: string;
  invert: boolean;
  /** allowed query types, or null for all */
  types: Set<number> | null;
  typesNegated: boolean;
  reply: RegexReply | null;
}

const POSIX: Record<string, string> = {
  alpha: "a-zA-Z",
  digit: "0-9",
  alnum: "a-zA-Z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: "\\s",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
  word: "\\w",
  cntrl: "\\x00-\\x1f\\x7f",
  print: "\\x20-\\x7e",
  graph: "\\x21-\\x7e",
};

/** POSIX ERE → JavaScript source (bracket classes; everything else is shared syntax). */
export function translatePosix(pattern: string): string {
  return pattern.replace(/\[:([a-z]+):\]/g, (m, name: string) => POSIX[name] ?? m);
}

export function compileRegex(id: number, text: string): CompiledRegex | string {
  const [pattern = "", ...exts] = splitExtensions(text);
  const source = translatePosix(pattern);
  let re: NameMatcher;
  try {
    re = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
  } catch (e) {
    return (e as Error).message;
  }
  const out: CompiledRegex = { id, re, source, invert: false, types: null, typesNegated: false, reply: null };
  for (const ext of exts) {
    const [key, value = ""] = ext.split(/=(.*)/s) as [string, string?];
    if (key === "invert") out.invert = true;
    else if (key === "querytype") {
      const neg = value.startsWith("!");
      const nums = (neg ? value.slice(1) : value)
        .split(",")
        .map(
          (t) => QTYPE_NUM[t.trim().toUpperCase()] ?? (/^TYPE\d+$/i.test(t.trim()) ? Number(t.trim().slice(4)) : NaN),
        );
      if (nums.some(Number.isNaN)) return `unknown query type in "${value}"`;
      out.types = new Set(nums);
      out.typesNegated = neg;
    } else if (key === "reply") {
      const r = parseReply(value, out.reply);
      if (typeof r === "string") return r;
      out.reply = r;
    } else return `unknown regex extension "${key}"`;
  }
  return out;
}

function splitExtensions(text: string): string[] {
  // extensions start at the first ';' followed by a known key
  const m = /;(querytype|invert|reply)(=|;|$)/.exec(text);
  if (!m) return [text];
  return [
    text.slice(0, m.index),
    ...text
      .slice(m.index + 1)
      .split(";")
      .filter((s) => s !== ""),
  ];
}

function parseReply(v: string, prev: RegexReply | null): RegexReply | string {
  const up = v.toUpperCase();
  if (up === "NXDOMAIN" || up === "NODATA" || up === "REFUSED" || up === "IP" || up === "NONE") return { kind: up };
  if (up.startsWith("CNAME,")) return { kind: "CNAME", target: v.slice(6).trim().toLowerCase() };
  const fam = isIP(v);
  if (!fam) return `invalid reply "${v}"`;
  const base = prev?.kind === "ADDR" ? prev : { kind: "ADDR" as const };
  return fam === 4 ? { ...base, v4: [v] } : { ...base, v6: [v] };
}

/**
 * One matcher for the union of the rules that match by a hit (not the inverted ones): most names
 * match no rule, and one pass of RE2's DFA over the union costs about what one rule costs, so the
 * rules are tried one by one only after it hits (bench/filter/regex.ts). Null when there is no
 * such rule or the union is too large for RE2.
 */
export function unionOf(rules: readonly CompiledRegex[]): NameMatcher | null {
  const parts = rules.filter((r) => !r.invert).map((r) => `(?:${r.source})`);
  if (parts.length < 2) return null;
  try {
    return RE2JS.compile(parts.join("|"), RE2JS.CASE_INSENSITIVE);
  } catch {
    return null;
  }
}

/** Whether the regex decides this query. */
export function regexMatches(r: CompiledRegex, name: string, qtype: number): boolean {
  if (r.types) {
    const listed = r.types.has(qtype);
    if (listed === r.typesNegated) return false;
  }
  return r.re.test(name) !== r.invert;
}
