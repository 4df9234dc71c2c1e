// Turns a downloaded list into domains (reference §7.2): hosts files, plain lists and ABP-style
// `||x^` (block lists) / `@@||x^` (allow lists); comments, BOM, CRLF, inline `# …` tails.
import { validDomain } from "./domain.ts";

export interface ParseCounts {
  valid: number;
  invalid: number;
  abp: number;
  /** up to 5 invalid lines, for the progress output */
  samples: string[];
}

const FALSE_POSITIVES = new Set([
  "localhost", "localhost.localdomain", "local", "broadcasthost", "ip6-localhost", "ip6-loopback", "lo0",
  "ip6-localnet", "ip6-mcastprefix", "ip6-allnodes", "ip6-allrouters", "ip6-allhosts",
]);
const COSMETIC = /##|#\$#|#@#|#\?#|#%#/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const SKIP_FIRST = new Set(["!", "#", ";", "["]);
const SPACE = /[ \t]+/;

// the regex only for tokens that start with a digit (a name rarely does)
const isAddress = (tok: string) => tok.includes(":") || (tok.charCodeAt(0) <= 57 && IPV4.test(tok));

/**
 * Calls `emit` for every entry to store (plain domains lowercased, ABP entries verbatim in lowercase)
 * and returns the counts. `kind` decides which ABP form is accepted.
 */
export function parseList(text: string, kind: "block" | "allow", emit: (domain: string) => void): ParseCounts {
  const counts: ParseCounts = { valid: 0, invalid: 0, abp: 0, samples: [] };
  const abpPrefix = kind === "block" ? "||" : "@@||";
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let start = 0;
  const n = text.length;
  while (start < n) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = n;
    let line = text.slice(start, end);
    start = end + 1;
    if (line.length === 0) continue;
    line = line.trimEnd();
    if (line.length === 0 || SKIP_FIRST.has(line[0]!)) continue;
    // every cosmetic marker contains '#', and the first character is not one (skipped above)
    const hash = line.indexOf("#");
    if (hash > 0) {
      if (COSMETIC.test(line.slice(1))) continue;
      line = line.slice(0, hash).trimEnd();
    }
    line = line.trimStart();
    if (line.length === 0) continue;
    const tokens = line.includes(" ") || line.includes("\t") ? line.split(SPACE) : [line];
    for (let tok of tokens) {
      if (tok.length === 0 || isAddress(tok)) continue;
      tok = tok.toLowerCase();
      if (tok.endsWith(".")) tok = tok.slice(0, -1);
      if (FALSE_POSITIVES.has(tok)) continue;
      if (validDomain(tok, true)) {
        counts.valid++;
        emit(tok);
      } else if (tok.startsWith(abpPrefix) && tok.endsWith("^") && validDomain(tok.slice(abpPrefix.length, -1), false)) {
        counts.abp++;
        emit(tok);
      } else {
        counts.invalid++;
        if (counts.samples.length < 5) counts.samples.push(tok.length > 80 ? tok.slice(0, 80) + "…" : tok);
      }
    }
  }
  return counts;
}
