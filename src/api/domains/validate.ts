// Checking what users type as domain-list entries, with Pi-hole's messages: exact names become lowercase
// punycode, regexes are compiled with Pi-hole's `;querytype=`, `;invert` and `;reply=` extensions.
import { compileRegex } from "../../filter/regex.ts";
import { domainToASCII, domainToUnicode } from "node:url";
import { isIP } from "node:net";
import { QUERY_TYPES } from "../../query/enums.ts";
import { ApiError, Errors } from "../core/errors.ts";
import { validDomain } from "../../filter/gravity/domain.ts";

/**
 * A host name's rules on top of Pi-hole's valid_domain (which lets a label other than the last start
 * with `-`, and takes 255 characters): no label starts with `-` (RFC 952, RFC 1123 §2.1) and the name
 * has at most 253 characters (255 octets on the wire, RFC 1035 §2.3.4). `ftlRuleOnly` (Pi-hole
 * compatibility mode, and searches, which look for what gravity may hold) keeps FTL's rule alone.
 */
function hostNameProblem(ascii: string): string | null {
  if (ascii.length > 253) return `longer than 253 characters (${ascii.length})`;
  if (/(^|\.)-/.test(ascii)) return "a label starts with a hyphen";
  return null;
}

/** Unicode or ASCII input → the stored form (lowercase punycode), or Pi-hole's error. */
export function normaliseExact(item: string, ftlRuleOnly = false): string {
  let ascii = item;
  // Pure ASCII skips IDNA so that already-punycoded names stay as typed (FTL#2837).
  if (/[^\x00-\x7f]/.test(item)) {
    ascii = domainToASCII(item);
    if (ascii === "")
      throw Errors.badRequest("Invalid request: Invalid domain name", "string contains a disallowed character");
  }
  ascii = ascii.toLowerCase();
  if (!validDomain(ascii)) throw Errors.badRequest("Invalid domain", item);
  const problem = ftlRuleOnly ? null : hostNameProblem(ascii);
  if (problem) throw Errors.badRequest(`Invalid domain: ${problem}`, item);
  return ascii;
}

export function unicodeOf(domain: string): string {
  if (!/(^|\.)xn--/i.test(domain)) return domain;
  const u = domainToUnicode(domain);
  return u === "" ? domain : u;
}

const regexError = (hint: string) => new ApiError(400, "regex_error", "Regex validation failed", hint);

// JavaScript's messages, worded like the POSIX/TRE ones Pi-hole users see.
function treMessage(msg: string): string {
  if (/Unterminated character class|missing \/|\]/i.test(msg)) return "Missing ']'";
  if (/Unterminated group|Unmatched '\)'|missing \)/i.test(msg)) return "Missing ')'";
  if (/numbers out of order|Incomplete quantifier|quantifier/i.test(msg)) return "Invalid contents of {}";
  if (/Nothing to repeat/i.test(msg)) return "Invalid use of repetition operators";
  if (/\\ at end of pattern/i.test(msg)) return "Trailing backslash";
  return msg.replace(/^Invalid regular expression: /, "");
}

/**
 * Names of every shape a query may ask for. A regex that matches all of them (`.*`, `.`, `^`, `[a-z0-9]`
 * won't: no digits-only label needs a letter, but `.` will) is taken to match every domain.
 */
const PROBE_NAMES = [
  "a",
  "example.com",
  "www.moat-probe-7f3k2.test",
  "_dmarc.example.org",
  "xn--5o8h.lan",
  "1.2.0.192.in-addr.arpa",
  "b.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa",
  "localhost",
  "x--y.local",
  "9",
];

/**
 * Why a regex entry may not be what was meant: it matches every domain, so a deny entry blocks all
 * queries (and an allow entry lets everything through). Pi-hole takes it, and so does Moat, with
 * this warning; null for an ordinary entry. The entry has been validated (validateRegex).
 */
export function matchesEverything(entry: string, type: "allow" | "deny"): string | null {
  const [pattern, ...exts] = entry.split(";");
  const re = new RegExp(pattern!, "i");
  const inverted = exts.includes("invert");
  if (!PROBE_NAMES.every((n) => re.test(n) !== inverted)) return null;
  return type === "deny"
    ? `"${entry}" matches every domain: it blocks all queries of the clients in its groups`
    : `"${entry}" matches every domain: it lets every query of the clients in its groups through unblocked`;
}

const REPLY_WORDS = new Set(["NXDOMAIN", "NODATA", "REFUSED", "IP", "NONE"]);

/** Compiles a regex entry with its extensions; throws 400 regex_error with a hint on the first problem. */
export function validateRegex(entry: string): void {
  const [pattern, ...exts] = entry.split(";");
  try {
    new RegExp(pattern!, "i");
  } catch (e) {
    throw regexError(treMessage((e as Error).message));
  }
  // the DNS side runs rules on RE2 (linear time), which has no backreferences or lookaround
  const compiled = compileRegex(0, pattern!);
  if (typeof compiled === "string") throw regexError(`Not supported by the linear-time regex engine: ${compiled}`);
  for (const ext of exts) {
    if (ext === "invert") continue;
    const [key, value = ""] = ext.split(/=(.*)/s) as [string, string?];
    if (key === "querytype") {
      const list = value.replace(/^!/, "").split(",");
      for (const q of list)
        if (!(QUERY_TYPES as readonly string[]).includes(q.toUpperCase()) && !/^TYPE\d+$/i.test(q))
          throw regexError(`Unknown querytype "${q}"`);
    } else if (key === "reply") {
      const up = value.toUpperCase();
      if (REPLY_WORDS.has(up) || isIP(value) !== 0) continue;
      if (up.startsWith("CNAME,") && validDomain(value.slice(6))) continue;
      throw regexError(`Unknown reply type "${value}"`);
    } else {
      throw regexError(`Unknown option "${ext}"`);
    }
  }
}
