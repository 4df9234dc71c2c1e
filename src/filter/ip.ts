// IP addresses as 16 bytes (IPv4 mapped into ::ffff:0:0/96) for prefix matching.
import { isIP } from "node:net";
import { ipv4Bytes, ipv6Bytes } from "../dns/reply.ts";

/** Strips the IPv4-mapped prefix a dual-stack socket reports ("::ffff:127.0.0.2" → "127.0.0.2"). */
export function normalizeIp(ip: string): string {
  return ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip;
}

export function ipTo16(ip: string): Uint8Array | null {
  const fam = isIP(ip);
  if (fam === 4) {
    const out = new Uint8Array(16);
    out[10] = 0xff;
    out[11] = 0xff;
    out.set(ipv4Bytes(ip), 12);
    return out;
  }
  if (fam === 6) return ipv6Bytes(ip);
  return null;
}

export interface Cidr {
  bytes: Uint8Array;
  /** prefix length in the 128-bit space */
  bits: number;
}

/** "a.b.c.d/n", "x::/n" or a plain address (a /32 or /128). */
export function parseCidr(s: string): Cidr | null {
  const [addr, pfx] = s.split("/") as [string, string | undefined];
  const fam = isIP(addr);
  if (!fam) return null;
  const max = fam === 4 ? 32 : 128;
  const n = pfx === undefined ? max : Number(pfx);
  if (!Number.isInteger(n) || n < 0 || n > max) return null;
  return { bytes: ipTo16(addr)!, bits: fam === 4 ? 96 + n : n };
}

export function inCidr(ip: Uint8Array, c: Cidr): boolean {
  const full = c.bits >>> 3;
  for (let i = 0; i < full; i++) if (ip[i] !== c.bytes[i]) return false;
  const rest = c.bits & 7;
  if (rest === 0) return true;
  const m = (0xff << (8 - rest)) & 0xff;
  return (ip[full]! & m) === (c.bytes[full]! & m);
}
