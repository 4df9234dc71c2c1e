// Answers by which an upstream says it blocked a name itself (reference §8.1): the null address,
// the block-page addresses of Cisco Umbrella/OpenDNS, NXDOMAIN without RA, or EDE 15 "Blocked".
import { Status } from "../stats/enums.ts";
import { RA, RCODE, TYPE, type Message } from "./wire.ts";

const EDE = 15, EDE_BLOCKED = 15;

export function upstreamBlockStatus(a: Uint8Array, m: Message, qtype: number): number | null {
  if (m.rcode === RCODE.NXDOMAIN && !(m.flags & RA)) return Status.EXTERNAL_BLOCKED_NXRA;
  for (const r of m.records) {
    if (r.type === TYPE.OPT && hasBlockedEde(a, r.rdata, r.rdlen)) return Status.EXTERNAL_BLOCKED_EDE15;
  }
  if (m.rcode !== RCODE.NOERROR || (qtype !== TYPE.A && qtype !== TYPE.AAAA)) return null;
  const first = m.records.find((r) => r.section === 0 && r.type === qtype);
  if (!first) return null;
  const d = a.subarray(first.rdata, first.rdata + first.rdlen);
  if (d.every((b) => b === 0)) return Status.EXTERNAL_BLOCKED_NULL;
  const v4 = d.length === 4 ? d : d.length === 16 && isMapped(d) ? d.subarray(12) : null;
  if (v4 && v4[0] === 146 && v4[1] === 112 && v4[2] === 61 && v4[3]! >= 104 && v4[3]! <= 110) return Status.EXTERNAL_BLOCKED_IP;
  return null;
}

function isMapped(d: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (d[i] !== 0) return false;
  return d[10] === 0xff && d[11] === 0xff;
}

function hasBlockedEde(a: Uint8Array, at: number, len: number): boolean {
  for (let o = at; o + 4 <= at + len; ) {
    const code = (a[o]! << 8) | a[o + 1]!;
    const l = (a[o + 2]! << 8) | a[o + 3]!;
    if (code === EDE && l >= 2 && ((a[o + 4]! << 8) | a[o + 5]!) === EDE_BLOCKED) return true;
    o += 4 + l;
  }
  return false;
}
