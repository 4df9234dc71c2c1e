// A domain name in the wire form of RFC 1035 §3.1 (length-prefixed labels, a zero byte at the end): how
// the DNS engine matches names and how the filter stores them, so both read it from here.

/** The lowercase wire form of a dotted name ("a.b" → 1 a 1 b 0); null when it is not a valid name. */
export function nameToWire(name: string): Uint8Array | null {
  const n = name.endsWith(".") ? name.slice(0, -1) : name;
  if (n === "") return new Uint8Array([0]);
  const parts = n.toLowerCase().split(".");
  const out = new Uint8Array(n.length + 2);
  let o = 0;
  for (const p of parts) {
    if (p.length === 0 || p.length > 63) return null;
    out[o++] = p.length;
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i);
      if (c > 255) return null;
      out[o++] = c;
    }
  }
  out[o++] = 0;
  return o > 255 ? null : out;
}
