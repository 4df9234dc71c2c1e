// The query log's `*` wildcards (src/querylog/read.ts `wildcard()`: the whole name, `*` for any run
// of characters, case-insensitive) judged on a name's UTF-8 bytes where they lie in the window's name
// table (names.ts), so that a filter over a day's million names makes no string per name: decoding
// each took 250-460 ms of the thread that answers DNS and 130-170 MiB for a day of 1M names
// (bench/api/long-calls.ts --only queries).

export interface ByteGlob {
  /** the pattern's runs between `*`s, lower-case ASCII bytes */
  readonly parts: readonly Uint8Array[];
  /** false when the pattern has no `*` (the name must equal the one part) */
  readonly starred: boolean;
}

/**
 * The pattern for byte matching, or null when it is not printable ASCII (its case rules are then
 * JavaScript's, which the caller's RegExp applies).
 */
export function compileGlob(pattern: string): ByteGlob | null {
  if (!/^[\x20-\x7e]*$/.test(pattern)) return null;
  const parts = pattern
    .toLowerCase()
    .split("*")
    .map((p) => Uint8Array.from(p, (c) => c.charCodeAt(0)));
  return { parts, starred: parts.length > 1 };
}

const lower = (c: number) => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c);

/** Whether `part` lies at b[at…] (case-insensitive). */
function partAt(b: Uint8Array, at: number, part: Uint8Array): boolean {
  for (let k = 0; k < part.length; k++) if (lower(b[at + k]!) !== part[k]) return false;
  return true;
}

/**
 * Whether the name in b[off, off+len) matches, or null when the name has a byte outside printable
 * ASCII: the RegExp decides those (a `.` of it does not cross a line break, and its case folding
 * reaches past ASCII).
 */
export function globMatches(g: ByteGlob, b: Uint8Array, off: number, len: number): boolean | null {
  for (let i = off; i < off + len; i++) if (b[i]! < 0x20 || b[i]! > 0x7e) return null;
  const parts = g.parts;
  const first = parts[0]!;
  if (!g.starred) return len === first.length && partAt(b, off, first);
  const last = parts[parts.length - 1]!;
  if (len < first.length + last.length) return false;
  if (!partAt(b, off, first) || !partAt(b, off + len - last.length, last)) return false;
  // the parts between, each at its leftmost place after the one before (enough for `*` alone)
  let at = off + first.length;
  const end = off + len - last.length;
  for (let p = 1; p < parts.length - 1; p++) {
    const part = parts[p]!;
    let found = -1;
    for (let i = at; i + part.length <= end; i++)
      if (partAt(b, i, part)) {
        found = i;
        break;
      }
    if (found < 0) return false;
    at = found + part.length;
  }
  return true;
}
