// dns.EDNS0ECS: a query that carries an EDNS client subnet naming one host (a /32 or /128, as a
// forwarding router or a DNS proxy in front of Moat sends it) is counted and filtered as that host.
import { compressV6 } from "../filter/ip.ts";
import { findOption, type Question } from "./wire.ts";

const ECS = 8;

export function ecsClient(buf: Uint8Array, q: Question): string | null {
  if (!q.edns) return null;
  const opt = findOption(buf, q, ECS);
  if (!opt) return null;
  const [o, len] = opt;
  if (len < 4) return null;
  const family = (buf[o]! << 8) | buf[o + 1]!;
  const prefix = buf[o + 2]!;
  const addr = buf.subarray(o + 4, o + len);
  if (family === 1 && prefix === 32 && addr.length === 4) return addr.join(".");
  if (family === 2 && prefix === 128 && addr.length === 16) {
    const parts: string[] = [];
    for (let i = 0; i < 16; i += 2) parts.push(((addr[i]! << 8) | addr[i + 1]!).toString(16));
    return compressV6(parts);
  }
  return null;
}
