// dns.EDNS0ECS: a query that carries an EDNS client subnet naming one host (a /32 or /128, as a
// forwarding router or a DNS proxy in front of Moat sends it) is counted and filtered as that host,
// but only when it comes from a sender listed in dns.ecs.trustedSources. From anyone else the
// option would let a client choose its own identity: leave its group's policy, walk around its
// rate limit and fill the statistics with clients that do not exist.
import { compressV6, inCidr, ipTo16, parseCidr, type Cidr } from "../net/ip.ts";
import { findOption, type Question } from "./wire.ts";

const ECS = 8;

/** Which senders may name the client; the verdict per sender is remembered (a network has few). */
export class EcsTrust {
  private list: readonly string[] | null = null;
  private nets: Cidr[] = [];
  private verdicts = new Map<string, boolean>();

  constructor(private readonly trusted: () => readonly string[]) {}

  trusts(sender: string): boolean {
    const list = this.trusted();
    if (list.length === 0) return false;
    if (list !== this.list) {
      this.list = list;
      this.nets = list.map(parseCidr).filter((c): c is Cidr => c !== null);
      this.verdicts.clear();
    }
    let v = this.verdicts.get(sender);
    if (v === undefined) {
      const ip = ipTo16(sender);
      v = ip !== null && this.nets.some((c) => inCidr(ip, c));
      if (this.verdicts.size >= 4096) this.verdicts.clear();
      this.verdicts.set(sender, v);
    }
    return v;
  }
}

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
