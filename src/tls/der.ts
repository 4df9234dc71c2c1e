// Just enough DER (ITU-T X.690) to write an X.509 certificate: lengths, the universal types a
// certificate uses, and context tags. Every function returns the complete encoded element.
import { concatBytes as join } from "../net/bytes.ts";

export type Der = Uint8Array;

function length(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

export function tlv(tag: number, body: Uint8Array): Der {
  const len = length(body.length);
  const out = new Uint8Array(1 + len.length + body.length);
  out[0] = tag;
  out.set(len, 1);
  out.set(body, 1 + len.length);
  return out;
}

export const seq = (...items: Der[]): Der => tlv(0x30, join(items));
export const set = (...items: Der[]): Der => tlv(0x31, join(items));
/** [n] EXPLICIT, constructed */
export const explicit = (n: number, inner: Der): Der => tlv(0xa0 | n, inner);
/** [n] IMPLICIT, primitive (GeneralName's dNSName is [2], iPAddress [7]) */
export const implicit = (n: number, body: Uint8Array): Der => tlv(0x80 | n, body);
export const octets = (body: Uint8Array): Der => tlv(0x04, body);
export const utf8 = (s: string): Der => tlv(0x0c, new TextEncoder().encode(s));
export const bool = (v: boolean): Der => tlv(0x01, Uint8Array.of(v ? 0xff : 0));
/** BIT STRING with no unused bits */
export const bits = (body: Uint8Array): Der => tlv(0x03, join([Uint8Array.of(0), body]));

/** A non-negative INTEGER from big-endian bytes (a leading zero keeps it positive). */
export function uint(bytes: Uint8Array): Der {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const b = bytes.subarray(i);
  return tlv(0x02, b[0]! & 0x80 ? join([Uint8Array.of(0), b]) : b);
}

export function oid(dotted: string): Der {
  const [a, b, ...rest] = dotted.split(".").map(Number) as [number, number, ...number[]];
  const out = [40 * a + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Uint8Array.from(out));
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
export function time(d: Date): Der {
  const iso = `${d.toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`; // YYYYMMDDHHMMSSZ
  return d.getUTCFullYear() < 2050
    ? tlv(0x17, new TextEncoder().encode(iso.slice(2)))
    : tlv(0x18, new TextEncoder().encode(iso));
}
