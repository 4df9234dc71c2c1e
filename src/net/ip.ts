// IP addresses as bytes: 4 or 16 for DNS records and DHCPv6/RA packets, 16 for prefix matching (IPv4
// mapped into ::ffff:0:0/96), and their reverse-lookup names.
import { isIP } from "node:net";

export function ipv4Bytes(ip: string): Uint8Array {
  return new Uint8Array(ip.split(".").map(Number));
}

/** IPv6 text → 16 bytes (accepts :: and embedded IPv4). */
export function ipv6Bytes(ip: string): Uint8Array {
  const out = new Uint8Array(16);
  let s = ip;
  let tail: number[] = [];
  const v4 = s.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    tail = v4[1]!.split(".").map(Number);
    s = `${s.slice(0, -v4[1]!.length)}0:0`;
  }
  const [head, rest] = s.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const r = rest !== undefined && rest !== "" ? rest.split(":") : [];
  const groups = rest === undefined ? h : [...h, ...Array(8 - h.length - r.length).fill("0"), ...r];
  groups.forEach((g, i) => {
    const v = parseInt(g || "0", 16);
    out[i * 2] = (v >>> 8) & 0xff;
    out[i * 2 + 1] = v & 0xff;
  });
  if (tail.length) out.set(tail, 12);
  return out;
}

/** Recent results of normalizeIp: a network has few clients, and a new string per query is garbage. */
const normalized = new Map<string, string>();

/** Strips the IPv4-mapped prefix a dual-stack socket reports ("::ffff:127.0.0.2" → "127.0.0.2"). */
export function normalizeIp(ip: string): string {
  if (!ip.startsWith("::ffff:")) return ip;
  let v = normalized.get(ip);
  if (v === undefined) {
    if (normalized.size >= 4096) normalized.clear();
    normalized.set(ip, (v = ip.includes(".") ? ip.slice(7) : ip));
  }
  return v;
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

/** Eight hex groups ("2001","db8","0",…) → the usual short form, the longest run of zero groups as "::". */
export function compressV6(groups: string[]): string {
  let best = -1,
    bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLen && j - i > 1) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return groups.join(":");
  return `${groups.slice(0, best).join(":")}::${groups.slice(best + bestLen).join(":")}`;
}

/** "4.3.2.1.in-addr.arpa" → "1.2.3.4"; nibble form for ip6.arpa. */
export function ptrToIp(name: string): string | null {
  if (name.endsWith(".in-addr.arpa")) {
    const parts = name.slice(0, -13).split(".");
    if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return null;
    return parts.reverse().join(".");
  }
  if (name.endsWith(".ip6.arpa")) {
    const nibbles = name.slice(0, -9).split(".");
    if (nibbles.length !== 32 || nibbles.some((n) => !/^[0-9a-f]$/.test(n))) return null;
    const hex = nibbles.reverse().join("");
    const groups = hex.match(/.{4}/g)!.map((g) => g.replace(/^0+(?=.)/, ""));
    return compressV6(groups);
  }
  return null;
}

/** "1.2.3.4" → "4.3.2.1.in-addr.arpa"; IPv6 in nibble form under ip6.arpa. */
export function ipToPtr(ip: string): string | null {
  const fam = isIP(ip);
  if (fam === 4) return `${ip.split(".").reverse().join(".")}.in-addr.arpa`;
  if (fam !== 6) return null;
  const b = ipv6Bytes(ip);
  const nibbles: string[] = [];
  for (let i = 15; i >= 0; i--) nibbles.push((b[i]! & 0xf).toString(16), (b[i]! >> 4).toString(16));
  return `${nibbles.join(".")}.ip6.arpa`;
}
