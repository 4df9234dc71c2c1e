// The two pieces every address setting is made of, shared by the value checks (validators.ts) and the
// upstream parser (upstream-syntax.ts), which each need both.

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/i;

/** A host name: labels of letters, digits and inner `-` (RFC 1123 §2.1), `_` too (`_dmarc.example`); a final dot is allowed. */
export function isHostname(name: string): boolean {
  const n = name.endsWith(".") ? name.slice(0, -1) : name;
  if (n.length === 0 || n.length > 253) return false;
  return n.split(".").every((l) => LABEL.test(l));
}

/** A port number written in decimal, 1 to 65535. */
export function isPort(p: string): boolean {
  if (!/^\d{1,5}$/.test(p)) return false;
  const n = Number(p);
  return n >= 1 && n <= 65535;
}
