// Turns a downloaded list into domains, as Pi-hole's gravity.sh does: hosts files, plain lists and ABP-style
// `||x^` (block lists) / `@@||x^` (allow lists); comments, BOM, CRLF, inline `# …` tails.
// Lists are parsed from their bytes: a million-line list would otherwise be a decoded copy of
// itself plus several short-lived strings per line, which set gravity's peak memory (bench/gravity/gravity.bench.ts).
// An entry is handed on as a byte range (lowercased into a scratch buffer); a line with any
// non-ASCII byte takes the string path, so Unicode whitespace is trimmed exactly as before.
import { closeSync, openSync, readSync } from "node:fs";
import { validDomain } from "./domain.ts";
import { isRuleLine } from "../rule-syntax.ts";

export interface ParseCounts {
  valid: number;
  invalid: number;
  abp: number;
  /** up to 5 invalid lines, for the progress output */
  samples: string[];
}

/** An entry to store: bytes [start, end) of `buf` (lowercase ASCII; ABP entries verbatim, `abp` set). */
export type Emit = (buf: Uint8Array, start: number, end: number, abp: boolean) => void;

/** A line in AdGuard's rule syntax beyond `||name^` (src/filter/rule-syntax.ts's isRuleLine), trimmed. */
export type EmitRule = (line: string) => void;

const FALSE_POSITIVES = new Set([
  "localhost",
  "localhost.localdomain",
  "local",
  "broadcasthost",
  "ip6-localhost",
  "ip6-loopback",
  "lo0",
  "ip6-localnet",
  "ip6-mcastprefix",
  "ip6-allnodes",
  "ip6-allrouters",
  "ip6-allhosts",
]);
/** first letters and lengths of the false positives: other tokens need no string made to ask */
const FP_FIRST = new Set([...FALSE_POSITIVES].map((s) => s.charCodeAt(0)));
const FP_LENGTHS = new Set([...FALSE_POSITIVES].map((s) => s.length));
const COSMETIC = /##|#\$#|#@#|#\?#|#%#/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const SKIP_FIRST = new Set(["!", "#", ";", "["]);
const SPACE = /[ \t]+/;
const latin1 = new TextDecoder("latin1");
// BOMs inside the text are kept, as decoding the whole list at once keeps them
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

// the regex only for tokens that start with a digit (a name rarely does)
const isAddress = (tok: string) => tok.includes(":") || (tok.charCodeAt(0) <= 57 && IPV4.test(tok));

/** one token of a line: the decision shared by both paths, on a string */
function takeToken(tok: string, abpPrefix: string, counts: ParseCounts, scratch: Uint8Array, emit: Emit): void {
  if (tok.length === 0 || isAddress(tok)) return;
  tok = tok.toLowerCase();
  if (tok.endsWith(".")) tok = tok.slice(0, -1);
  if (FALSE_POSITIVES.has(tok)) return;
  let abp = false;
  if (validDomain(tok, true)) counts.valid++;
  else if (tok.startsWith(abpPrefix) && tok.endsWith("^") && validDomain(tok.slice(abpPrefix.length, -1), false)) {
    counts.abp++;
    abp = true;
  } else {
    counts.invalid++;
    if (counts.samples.length < 5) counts.samples.push(tok.length > 80 ? `${tok.slice(0, 80)}…` : tok);
    return;
  }
  // a valid entry is ASCII and at most 255 + 5 characters
  for (let i = 0; i < tok.length; i++) scratch[i] = tok.charCodeAt(i);
  emit(scratch, 0, tok.length, abp);
}

/** the string path for one line (not trimmed yet) */
function parseLine(
  line: string,
  abpPrefix: string,
  counts: ParseCounts,
  scratch: Uint8Array,
  emit: Emit,
  rule: EmitRule | null,
): void {
  line = line.trimEnd();
  if (line.length === 0 || SKIP_FIRST.has(line[0]!)) return;
  // every cosmetic marker contains '#', and the first character is not one (skipped above)
  const hash = line.indexOf("#");
  if (hash > 0 && COSMETIC.test(line.slice(1))) return;
  if (rule !== null && isRuleLine(line.trimStart())) {
    rule(line.trim());
    return;
  }
  if (hash > 0) line = line.slice(0, hash).trimEnd();
  line = line.trimStart();
  if (line.length === 0) return;
  const tokens = line.includes(" ") || line.includes("\t") ? line.split(SPACE) : [line];
  for (const tok of tokens) takeToken(tok, abpPrefix, counts, scratch, emit);
}

// ASCII whitespace as String.prototype.trim sees it: \t \n \v \f \r and space
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

/** Pi-hole's valid_domain() on lowercase bytes [s, e) (the same rules as domain.ts) */
function validBytes(b: Uint8Array, s: number, e: number, fqdnOnly: boolean): boolean {
  const n = e - s;
  if (n === 0 || n > 255) return false;
  let labelStart = s;
  let labels = 1;
  for (let i = s; i < e; i++) {
    const c = b[i]!;
    if (c === 46) {
      if (i === labelStart || i - labelStart > 63 || b[i - 1] === 45) return false;
      labelStart = i + 1;
      labels++;
    } else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95)) return false;
  }
  if (e === labelStart || e - labelStart > 63 || b[e - 1] === 45) return false;
  if (fqdnOnly && labels < 2) return false;
  return b[labelStart] !== 45;
}

/** IPV4 on bytes: four groups of 1-3 digits */
function isIpv4(b: Uint8Array, s: number, e: number): boolean {
  let groups = 0;
  let i = s;
  for (;;) {
    const g = i;
    while (i < e && i - g < 4 && b[i]! >= 48 && b[i]! <= 57) i++;
    if (i === g || i - g > 3) return false;
    if (++groups === 4) return i === e;
    if (i >= e || b[i] !== 46) return false;
    i++;
  }
}

/** The common token: a plain name or ABP entry, decided from the bytes without a string. */
/** `b` begins with `prefix` (a loop: a closure per ABP line was garbage the heap kept growing for) */
function startsWith(b: Uint8Array, prefix: Uint8Array): boolean {
  for (let i = 0; i < prefix.length; i++) if (b[i] !== prefix[i]) return false;
  return true;
}

function takeBytes(
  b: Uint8Array,
  s: number,
  e: number,
  prefix: Uint8Array,
  abpPrefix: string,
  counts: ParseCounts,
  scratch: Uint8Array,
  emit: Emit,
): void {
  if (e - s > 300) {
    takeToken(latin1.decode(b.subarray(s, e)), abpPrefix, counts, scratch, emit);
    return;
  }
  if (b[s]! <= 57 && isIpv4(b, s, e)) return;
  let n = 0;
  for (let i = s; i < e; i++) {
    const c = b[i]!;
    // an IPv6 address (isAddress: any ':')
    if (c === 58) return;
    scratch[n++] = c >= 65 && c <= 90 ? c + 32 : c;
  }
  if (scratch[n - 1] === 46) n--;
  if (FP_FIRST.has(scratch[0]!) && FP_LENGTHS.has(n) && FALSE_POSITIVES.has(latin1.decode(scratch.subarray(0, n))))
    return;
  if (validBytes(scratch, 0, n, true)) {
    counts.valid++;
    emit(scratch, 0, n, false);
    return;
  }
  const p = prefix.length;
  if (n > p && scratch[n - 1] === 94 && startsWith(scratch, prefix) && validBytes(scratch, p, n - 1, false)) {
    counts.abp++;
    emit(scratch, 0, n, true);
    return;
  }
  // invalid: rare, and wants its text for the samples
  takeToken(latin1.decode(b.subarray(s, e)), abpPrefix, counts, scratch, emit);
}

const CHUNK = 1 << 20;

/**
 * Calls `emit` for every entry to store (plain domains lowercased, ABP entries verbatim in lowercase) and
 * returns the counts; `kind` decides which ABP form is accepted. The file is read in 1 MiB chunks, whole lines at a time: a list never needs to be in
 * memory at once (at a million names it is ~8 MB, the largest share of gravity's peak after the sets).
 */
export function parseFile(
  path: string,
  kind: "block" | "allow",
  emit: Emit,
  rule: EmitRule | null = null,
): ParseCounts {
  const p = new Parser(kind, emit, rule);
  let first = true;
  eachLineChunk(path, (b, n) => {
    p.lines(b, first ? p.skipBom(b) : 0, n);
    first = false;
  });
  return p.counts;
}

/**
 * Lines in a file: its names, near enough (a hosts line may name several), and of them those that
 * begin with `abpPrefix` (`||`, or `@@||` in an allow list): the two kinds go to two sets, each sized once.
 */
export function countLines(path: string, abpPrefix: string): { lines: number; abp: number } {
  const p = Buffer.from(abpPrefix, "latin1");
  let lines = 1,
    abp = 0;
  const starts = (b: Uint8Array, at: number, n: number) => {
    if (at + p.length > n) return false;
    for (let k = 0; k < p.length; k++) if (b[at + k] !== p[k]) return false;
    return true;
  };
  // each chunk begins a line
  eachLineChunk(path, (b, n) => {
    if (starts(b, 0, n)) abp++;
    for (let i = b.indexOf(10); i >= 0 && i < n; i = b.indexOf(10, i + 1)) {
      lines++;
      if (i + 1 < n && starts(b, i + 1, n)) abp++;
    }
  });
  return { lines, abp };
}

/** calls `fn` with buffers whose first `n` bytes are whole lines (the last one maybe unterminated at the end) */
function eachLineChunk(path: string, fn: (b: Uint8Array, n: number) => void): void {
  let buf = new Uint8Array(CHUNK);
  let have = 0;
  const fd = openSync(path, "r");
  try {
    for (;;) {
      if (have === buf.length) {
        // a line longer than the buffer
        const bigger = new Uint8Array(buf.length * 2);
        bigger.set(buf);
        buf = bigger;
      }
      const got = readSync(fd, buf, have, buf.length - have, null);
      if (got === 0) break;
      have += got;
      const last = buf.lastIndexOf(10, have - 1);
      if (last < 0) continue;
      fn(buf, last + 1);
      buf.copyWithin(0, last + 1, have);
      have -= last + 1;
    }
    if (have > 0) fn(buf, have);
  } finally {
    closeSync(fd);
  }
}

class Parser {
  readonly counts: ParseCounts = { valid: 0, invalid: 0, abp: 0, samples: [] };
  private readonly abpPrefix: string;
  private readonly prefix: Uint8Array;
  private readonly scratch = new Uint8Array(320);
  constructor(
    kind: "block" | "allow",
    private readonly emit: Emit,
    /** a block list's AdGuard-syntax rules go here (null: an allow list, whose lines are names only) */
    private readonly rule: EmitRule | null,
  ) {
    this.abpPrefix = kind === "block" ? "||" : "@@||";
    this.prefix = new TextEncoder().encode(this.abpPrefix);
  }

  /** where the text starts: the decoder dropped one leading BOM and the string parser a second */
  skipBom(b: Uint8Array): number {
    const bom = (i: number) => b[i] === 0xef && b[i + 1] === 0xbb && b[i + 2] === 0xbf;
    return bom(0) ? (bom(3) ? 6 : 3) : 0;
  }

  /** the lines of b[start, n) */
  lines(b: Uint8Array, start: number, n: number): void {
    const { counts, abpPrefix, prefix, scratch, emit, rule } = this;
    while (start < n) {
      let end = b.indexOf(10, start);
      if (end < 0 || end > n) end = n;
      const lineStart = start;
      start = end + 1;
      // the line's extent, whether it is ASCII and where its first '#' is
      let ascii = true;
      let hash = -1;
      // '$' or '*' (a modifier, a wildcard) and the number of '|': what may make it a rule (isRuleLine)
      let marks = false;
      let pipes = 0;
      let e = end;
      while (e > lineStart && isSpace(b[e - 1]!)) e--;
      for (let i = lineStart; i < e; i++) {
        const c = b[i]!;
        if (c >= 128) {
          ascii = false;
          break;
        }
        if (c === 35 && hash < 0) hash = i;
        else if (c === 36 || c === 42) marks = true;
        else if (c === 124) pipes++;
      }
      if (!ascii) {
        parseLine(utf8.decode(b.subarray(lineStart, end)), abpPrefix, counts, scratch, emit, rule);
        continue;
      }
      if (e === lineStart) continue;
      const first = b[lineStart]!;
      if (first === 33 || first === 35 || first === 59 || first === 91) continue;
      if (hash > lineStart && COSMETIC.test(latin1.decode(b.subarray(lineStart + 1, e)))) continue;
      if (rule !== null) {
        let s = lineStart;
        while (s < e && isSpace(b[s]!)) s++;
        const f = b[s]!;
        // only `||name^` takes the plain path among the lines with '|'
        const abpLine = f === 124 && b[s + 1] === 124 && pipes === 2 && b[e - 1] === 94;
        if (marks || f === 64 || f === 47 || (pipes > 0 && !abpLine)) {
          const text = latin1.decode(b.subarray(s, e));
          if (isRuleLine(text)) {
            rule(text);
            continue;
          }
        }
      }
      if (hash > lineStart) {
        e = hash;
        while (e > lineStart && isSpace(b[e - 1]!)) e--;
      }
      let s = lineStart;
      while (s < e && isSpace(b[s]!)) s++;
      // tokens split on runs of spaces and tabs only (other whitespace stays inside a token)
      while (s < e) {
        let t = s;
        while (t < e && b[t] !== 32 && b[t] !== 9) t++;
        takeBytes(b, s, t, prefix, abpPrefix, counts, scratch, emit);
        s = t;
        while (s < e && (b[s] === 32 || b[s] === 9)) s++;
      }
    }
  }
}

const BADFILTER = new TextEncoder().encode("badfilter");

/** The lines of a file that hold "badfilter" (case as written), for the run's look ahead at every list's $badfilter rules. */
export function badfilterLines(path: string): string[] {
  const out: string[] = [];
  eachLineChunk(path, (b, n) => {
    const view = Buffer.from(b.buffer, b.byteOffset, n);
    for (let i = view.indexOf(BADFILTER); i >= 0; i = view.indexOf(BADFILTER, i + 1)) {
      const start = view.lastIndexOf(10, i) + 1;
      let end = view.indexOf(10, i);
      if (end < 0) end = n;
      out.push(utf8.decode(b.subarray(start, end)).trim());
      i = end;
    }
  });
  return out;
}
