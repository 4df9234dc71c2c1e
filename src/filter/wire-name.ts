// Domain names in DNS wire form (RFC 1035 section 3.1: length-prefixed labels, lowercased), as the
// domain sets store and look them up: from a string or from the lowercase ASCII bytes of a list entry,
// into a reused scratch buffer so that encoding a name allocates nothing.

/**
 * A scratch buffer for wire names with a view of every length made up front: creating a view per
 * name (subarray) costs more than hashing it.
 */
export class WireScratch {
  readonly buf = new Uint8Array(512);
  private readonly views = Array.from({ length: 257 }, (_, n) => this.buf.subarray(0, n));

  /** buf's first `n` bytes */
  view(n: number): Uint8Array {
    return this.views[n]!;
  }

  /** the name's wire form (a view reused by the next call), or null when it is not a name */
  encode(name: string): Uint8Array | null {
    const len = encodeWire(name, this.buf);
    return len === 0 ? null : this.views[len]!;
  }

  /** the same for the lowercase ASCII bytes [start, end) of `b` */
  encodeBytes(b: Uint8Array, start: number, end: number): Uint8Array | null {
    const len = encodeWireBytes(b, start, end, this.buf);
    return len === 0 ? null : this.views[len]!;
  }
}

/** encodeWire for a name given as lowercase ASCII bytes (the gravity parser's entries) */
function encodeWireBytes(b: Uint8Array, start: number, end: number, out: Uint8Array): number {
  let o = 1;
  let lenAt = 0;
  for (let i = start; i < end; i++) {
    const c = b[i]!;
    if (c === 46) {
      const len = o - lenAt - 1;
      if (len === 0 || len > 63) return 0;
      out[lenAt] = len;
      lenAt = o++;
      continue;
    }
    if (o >= 255) return 0;
    out[o++] = c;
  }
  const len = o - lenAt - 1;
  if (len > 63) return 0;
  if (len === 0) {
    if (lenAt === 0) return 0;
    out[lenAt] = 0;
    return o;
  }
  out[lenAt] = len;
  out[o++] = 0;
  return o;
}

/** The characters of a name, lowercased, for encodeWireBytes (a name longer than 255 is not one). */
const nameBytes = new Uint8Array(256);

/** Name to wire form into `out`; the length, or 0 when not a name. */
export function encodeWire(name: string, out: Uint8Array): number {
  if (name.length > 255) return 0;
  for (let i = 0; i < name.length; i++) {
    let c = name.charCodeAt(i);
    if (c > 255) return 0;
    if (c >= 65 && c <= 90) c += 32;
    nameBytes[i] = c;
  }
  return encodeWireBytes(nameBytes, 0, name.length, out);
}
