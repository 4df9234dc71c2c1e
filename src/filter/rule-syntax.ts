// AdGuard Home's DNS rule syntax (the urlfilter rules AdGuard Home applies to its lists and "Custom filtering
// rules"): `||name^`, `@@` exceptions, `/regex/`, hosts lines, `!`/`#` comments and the modifiers Moat applies
// ($important, $badfilter, $client, $dnstype, $denyallow, $dnsrewrite). A rule with any other modifier is
// refused with the modifier named (AdGuard's own documentation: a rule with a modifier the filter does not
// know must be ignored as a whole), never guessed. Pure: the gravity run, the rules policy and the API share it.
// Reference: https://adguard-dns.io/kb/general/dns-filtering-syntax/
import { isIP } from "node:net";
import { RE2JS } from "re2js";
import { QTYPE_NUM } from "./regex.ts";
import { validDomain } from "./gravity/domain.ts";

/** What a $dnsrewrite answers: an rcode, and for NOERROR an A, AAAA or CNAME record (or none). */
interface Rewrite {
  rcode: "NOERROR" | "NXDOMAIN" | "REFUSED";
  type: "A" | "AAAA" | "CNAME" | null;
  value: string;
}

/** How a rule matches a name: the name and every name below it, the name alone, or a pattern (RE2 source). */
type NameMatch =
  | { kind: "subtree"; name: string }
  | { kind: "exact"; name: string }
  | { kind: "regex"; source: string };

export interface AdRule {
  /** the rule as written (what $badfilter names, and what the API shows) */
  text: string;
  allow: boolean;
  important: boolean;
  badfilter: boolean;
  match: NameMatch;
  /** $client: addresses, subnets, client IDs or names; `~` ones excluded */
  clients: { include: string[]; exclude: string[] } | null;
  /** $dnstype as query-type numbers */
  dnstype: { include: number[]; exclude: number[] } | null;
  /** $denyallow: names (and the names below them) the rule never applies to */
  denyallow: string[] | null;
  /** $dnsrewrite's answer; on an exception, null with `rewriteAll` disables every rewrite */
  rewrite: Rewrite | null;
  /** `@@…$dnsrewrite` with no value: an exception for all rewrites of the name */
  rewriteAll: boolean;
  /** a hosts line (`address name`): weaker than every adblock-style rule, as in AdGuard Home */
  hosts: boolean;
}

/** One line: null for a comment or blank line, the rules it holds (a hosts line may name several), or why not. */
export type Parsed = null | AdRule[] | { unsupported: string };

const SUPPORTED = new Set(["important", "badfilter", "client", "dnstype", "denyallow", "dnsrewrite"]);

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const isName = (s: string) => validDomain(s, false);

/** `$a,b=c` → [name, value] pairs; commas inside quotes (a $client name) and escaped ones do not split */
function splitOptions(s: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let cur = "";
  let quote = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && i + 1 < s.length) {
      cur += c + s[++i];
      continue;
    }
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ",") {
      out.push(pair(cur));
      cur = "";
      continue;
    }
    cur += c;
  }
  out.push(pair(cur));
  return out;
}

function pair(o: string): [string, string] {
  const eq = o.indexOf("=");
  return eq < 0 ? [o.trim().toLowerCase(), ""] : [o.slice(0, eq).trim().toLowerCase(), o.slice(eq + 1).trim()];
}

/** `a|~b|'c d'` → include and exclude lists (quotes and escapes removed) */
function valueList(v: string): { include: string[]; exclude: string[] } {
  const include: string[] = [];
  const exclude: string[] = [];
  for (let part of v.split(/(?<!\\)\|/)) {
    part = part.trim();
    const neg = part.startsWith("~");
    if (neg) part = part.slice(1).trim();
    if (/^(['"]).*\1$/.test(part)) part = part.slice(1, -1);
    part = part.replace(/\\(.)/g, "$1");
    if (part) (neg ? exclude : include).push(part);
  }
  return { include, exclude };
}

/** The name pattern (without modifiers) as a match, or null when it is not one. */
function nameMatch(p: string): NameMatch | null {
  if (p.length > 2 && p.startsWith("/") && p.endsWith("/")) return { kind: "regex", source: p.slice(1, -1) };
  const lower = p.toLowerCase();
  const sub = /^\|\|([^|^*/]+)\^?\|?$/.exec(lower);
  if (sub && isName(sub[1]!) && (lower.endsWith("^") || lower.endsWith("^|")))
    return { kind: "subtree", name: sub[1]! };
  const exact = /^\|([^|^*/]+)(\^|\|)\|?$/.exec(lower);
  if (exact && isName(exact[1]!)) return { kind: "exact", name: exact[1]! };
  if (!/^[a-z0-9._\-*|^]+$/.test(lower) || lower.replace(/[|^*]/g, "") === "")
    return lower === "*" ? everyName() : null;
  // the adblock pattern on the host name: || a name's start (or after a dot), | the ends, ^ the end, * anything
  let src = "";
  let s = lower;
  if (s.startsWith("||")) {
    src = "(?:^|\\.)";
    s = s.slice(2);
  } else if (s.startsWith("|")) {
    src = "^";
    s = s.slice(1);
  }
  let tail = "";
  if (s.endsWith("|")) {
    tail = "$";
    s = s.slice(0, -1);
  }
  for (const c of s) src += c === "*" ? ".*" : c === "^" ? "$" : c === "|" ? "" : escapeRegex(c);
  return { kind: "regex", source: src + tail };
}

const everyName = (): NameMatch => ({ kind: "regex", source: "" });

function parseRewrite(v: string): Rewrite | string {
  if (v === "") return "an empty $dnsrewrite is only an exception (@@)";
  const parts = v.split(";");
  if (parts.length === 1) {
    const up = v.toUpperCase();
    if (up === "NXDOMAIN" || up === "REFUSED" || up === "NOERROR") return { rcode: up, type: null, value: "" };
    const fam = isIP(v);
    if (fam) return { rcode: "NOERROR", type: fam === 4 ? "A" : "AAAA", value: v };
    if (isName(v)) return { rcode: "NOERROR", type: "CNAME", value: v.toLowerCase() };
    return `$dnsrewrite=${v}: neither an address, a name nor NOERROR, NXDOMAIN or REFUSED`;
  }
  const [rc = "", type = "", value = ""] = parts.map((x) => x.trim());
  const rcode = rc.toUpperCase();
  if (rcode !== "NOERROR" && rcode !== "NXDOMAIN" && rcode !== "REFUSED")
    return `$dnsrewrite rcode ${rc}: Moat answers NOERROR, NXDOMAIN and REFUSED`;
  const t = type.toUpperCase();
  if (t === "" && value === "") return { rcode, type: null, value: "" };
  if (rcode !== "NOERROR") return `$dnsrewrite=${v}: records go with NOERROR only`;
  if (t === "A" && isIP(value) === 4) return { rcode, type: "A", value };
  if (t === "AAAA" && isIP(value) === 6) return { rcode, type: "AAAA", value };
  if (t === "CNAME" && isName(value)) return { rcode, type: "CNAME", value: value.toLowerCase() };
  return `$dnsrewrite record ${type} ${value}: Moat rewrites to A, AAAA and CNAME records`;
}

/** One line of a list or of the custom rules. */
export function parseRule(line: string): Parsed {
  const text = line.trim();
  if (text === "" || text.startsWith("!") || text.startsWith("#")) return null;
  if (/##|#@#|#\$#|#\?#|#%#/.test(text)) return { unsupported: "a cosmetic (element hiding) rule, not DNS" };
  // hosts lines: an address, then names
  const hosts = /^(\S+)\s+(.+)$/.exec(text);
  if (hosts && isIP(hosts[1]!)) {
    const addr = hosts[1]!;
    const names = hosts[2]!
      .replace(/\s#.*$/, "")
      .trim()
      .split(/\s+/);
    if (!names.every(isName)) return { unsupported: "a hosts line with a name that is not a host name" };
    const blocks = addr === "0.0.0.0" || addr === "::";
    return names.map((n) =>
      base(
        `${addr} ${n}`,
        { kind: "exact", name: n.toLowerCase() },
        {
          hosts: true,
          // the unspecified address blocks (with the blocking mode); any other is the answer, as AdGuard Home gives it
          rewrite: blocks ? null : { rcode: "NOERROR", type: isIP(addr) === 4 ? "A" : "AAAA", value: addr },
        },
      ),
    );
  }
  let body = text;
  const allow = body.startsWith("@@");
  if (allow) body = body.slice(2);
  // modifiers follow the last '$' (a regex rule's own '$' sits before its closing '/')
  let pattern = body;
  let options = "";
  const dollar = body.lastIndexOf("$");
  const closing = body.startsWith("/") ? body.lastIndexOf("/") : -1;
  if (dollar > 0 && dollar > closing) {
    pattern = body.slice(0, dollar);
    options = body.slice(dollar + 1);
  } else if (dollar === 0) {
    pattern = "*";
    options = body.slice(1);
  }
  const match = nameMatch(pattern);
  if (!match) return { unsupported: "a pattern that is not a host name rule (a URL path or other characters)" };
  if (match.kind === "regex" && match.source !== "") {
    try {
      RE2JS.compile(match.source, RE2JS.CASE_INSENSITIVE);
    } catch (e) {
      // RE2 has no backreferences or lookaround (linear time on the DNS thread, as regex.ts)
      return { unsupported: `a regular expression RE2 cannot run: ${(e as Error).message}` };
    }
  }
  const rule = base(text, match, { allow });
  if (options !== "") {
    for (const [name, value] of splitOptions(options)) {
      if (!SUPPORTED.has(name)) return { unsupported: `the modifier $${name || "(empty)"} is not supported` };
      const why = applyOption(rule, name, value);
      if (why) return { unsupported: why };
    }
  }
  if (rule.denyallow && pattern.startsWith("/")) return { unsupported: "$denyallow on a regular expression rule" };
  if (rule.match.kind === "regex" && rule.match.source === "" && !rule.denyallow && !rule.dnstype && !rule.clients)
    return { unsupported: "a rule that matches every name without $denyallow, $dnstype or $client" };
  return [rule];
}

function applyOption(rule: AdRule, name: string, value: string): string | null {
  switch (name) {
    case "important":
      rule.important = true;
      return null;
    case "badfilter":
      rule.badfilter = true;
      return null;
    case "client": {
      const l = valueList(value);
      if (l.include.length + l.exclude.length === 0) return "$client without a client";
      rule.clients = l;
      return null;
    }
    case "dnstype": {
      const l = valueList(value.toUpperCase());
      const num = (t: string) => QTYPE_NUM[t] ?? (/^TYPE\d+$/.test(t) ? Number(t.slice(4)) : Number.NaN);
      const include = l.include.map(num);
      const exclude = l.exclude.map(num);
      if ([...include, ...exclude].some(Number.isNaN) || include.length + exclude.length === 0)
        return `$dnstype=${value}: an unknown query type`;
      rule.dnstype = { include, exclude };
      return null;
    }
    case "denyallow": {
      const l = valueList(value.toLowerCase());
      if (l.exclude.length || !l.include.length || !l.include.every(isName))
        return `$denyallow=${value}: a list of host names is expected`;
      rule.denyallow = l.include;
      return null;
    }
    default: {
      if (value === "" && rule.allow) {
        rule.rewriteAll = true;
        return null;
      }
      const r = parseRewrite(value);
      if (typeof r === "string") return r;
      rule.rewrite = r;
      return null;
    }
  }
}

function base(text: string, match: NameMatch, over: Partial<AdRule>): AdRule {
  return {
    text,
    allow: false,
    important: false,
    badfilter: false,
    match,
    clients: null,
    dnstype: null,
    denyallow: null,
    rewrite: null,
    rewriteAll: false,
    hosts: false,
    ...over,
  };
}

/** The text a `$badfilter` rule disables: itself without that modifier. */
export function badfilterTarget(text: string): string {
  const dollar = text.lastIndexOf("$");
  if (dollar < 0) return text;
  const opts = text
    .slice(dollar + 1)
    .split(",")
    .filter((o) => o.trim().toLowerCase() !== "badfilter");
  return opts.length ? `${text.slice(0, dollar)}$${opts.join(",")}` : text.slice(0, dollar);
}

/**
 * Whether a list line is for the rule parser rather than the plain-name path: anything with a modifier,
 * an exception in a block list, a regex, a wildcard or an anchor other than `||name^`.
 */
export function isRuleLine(line: string): boolean {
  const c = line.charCodeAt(0);
  if (c === 64 || c === 47) return true;
  if (line.includes("$") || line.includes("*")) return true;
  if (c === 124) return !(line.charCodeAt(1) === 124 && line.endsWith("^") && !line.slice(2, -1).includes("|"));
  return false;
}
