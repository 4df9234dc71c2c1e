// Answers by which an upstream says it blocked a name itself (Pi-hole's EXTERNAL_BLOCKED_* statuses): the null address,
// the block-page addresses of Cisco Umbrella/OpenDNS, NXDOMAIN without RA, or EDE 15 "Blocked".
import { Status } from "../query/enums.ts";
import { RA, RCODE, TYPE, type Message } from "./wire.ts";

const EDE = 15,
  EDE_BLOCKED = 15;

export function upstreamBlockStatus(a: Uint8Array, m: Message, qtype: number): number | null {
  if (m.rcode === RCODE.NXDOMAIN && !(m.flags & RA)) return Status.EXTERNAL_BLOCKED_NXRA;
  for (const r of m.records) {
    if (r.type === TYPE.OPT && hasBlockedEde(a, r.rdata, r.rdlen)) return Status.EXTERNAL_BLOCKED_EDE15;
  }
  if (m.rcode !== RCODE.NOERROR || (qtype !== TYPE.A && qtype !== TYPE.AAAA)) return null;
  let first = null;
  for (const r of m.records)
    if (r.section === 0 && r.type === qtype) {
      first = r;
      break;
    }
  if (!first) return null;
  // read in place: this runs for every forwarded answer
  const at = first.rdata,
    len = first.rdlen;
  let zero = true;
  for (let i = at; i < at + len; i++) if (a[i] !== 0) zero = false;
  if (zero) return Status.EXTERNAL_BLOCKED_NULL;
  const v4 = len === 4 ? at : len === 16 && isMapped(a, at) ? at + 12 : -1;
  if (v4 >= 0 && a[v4] === 146 && a[v4 + 1] === 112 && a[v4 + 2] === 61 && a[v4 + 3]! >= 104 && a[v4 + 3]! <= 110)
    return Status.EXTERNAL_BLOCKED_IP;
  return null;
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d) at `at`. */
function isMapped(a: Uint8Array, at: number): boolean {
  for (let i = 0; i < 10; i++) if (a[at + i] !== 0) return false;
  return a[at + 10] === 0xff && a[at + 11] === 0xff;
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
