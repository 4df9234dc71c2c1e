// Domain names as DNSSEC compares them: uncompressed, lowercase wire form (RFC 4034 §6.2), ordered
// label by label from the right (§6.1). A name's map key is its wire bytes as a latin1 string.

/** The root name in wire form. */
const ROOT = Uint8Array.of(0);

/** The labels of a wire name, leftmost first, root excluded. */
export function labelsOf(name: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let o = 0; name[o]! !== 0; o += name[o]! + 1) out.push(name.subarray(o + 1, o + 1 + name[o]!));
  return out;
}

export function labelCount(name: Uint8Array): number {
  let n = 0;
  for (let o = 0; name[o]! !== 0; o += name[o]! + 1) n++;
  return n;
}

/** The name without its leftmost label (the root stays the root). */
export function parentOf(name: Uint8Array): Uint8Array {
  return name[0] === 0 ? name : name.subarray(name[0]! + 1);
}

/** The rightmost `n` labels of a name. */
export function suffix(name: Uint8Array, n: number): Uint8Array {
  let out = name;
  for (let c = labelCount(name); c > n; c--) out = parentOf(out);
  return out;
}

export function equalNames(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether `name` is `zone` or below it. */
export function isBelow(name: Uint8Array, zone: Uint8Array): boolean {
  return (
    name.length >= zone.length &&
    equalNames(name.subarray(name.length - zone.length), zone) &&
    atLabel(name, name.length - zone.length)
  );
}

function atLabel(name: Uint8Array, at: number): boolean {
  let o = 0;
  while (o < at) o += name[o]! + 1;
  return o === at;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Canonical order of two lowercase names (RFC 4034 §6.1): negative, zero or positive. */
export function compareNames(a: Uint8Array, b: Uint8Array): number {
  const la = labelsOf(a).reverse();
  const lb = labelsOf(b).reverse();
  for (let i = 0; i < Math.min(la.length, lb.length); i++) {
    const c = compareBytes(la[i]!, lb[i]!);
    if (c !== 0) return c;
  }
  return la.length - lb.length;
}

/** Buffer's latin1Slice, called on the name itself: Buffer.from(name) would copy it first (a Map key per label in a walk) */
const latin1 = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string })
  .latin1Slice;

export const nameKey = (name: Uint8Array): string => latin1.call(name, 0, name.length);

/** Dotted text ("example.com", "example.com.", "." or "") in lowercase wire form; null when not a name. */
export function nameFromText(text: string): Uint8Array | null {
  const t = text.endsWith(".") ? text.slice(0, -1) : text;
  if (t === "") return ROOT;
  const out: number[] = [];
  for (const label of t.toLowerCase().split(".")) {
    if (label.length === 0 || label.length > 63) return null;
    out.push(label.length, ...Buffer.from(label, "latin1"));
  }
  out.push(0);
  return out.length > 255 ? null : Uint8Array.from(out);
}

/** `*.` + name: the wildcard at a closest encloser. */
export function wildcardOf(name: Uint8Array): Uint8Array {
  const out = new Uint8Array(name.length + 2);
  out[0] = 1;
  out[1] = 42;
  out.set(name, 2);
  return out;
}
