// The check before an offer (RFC 2131 §2.2: a server SHOULD probe an address before allocating
// it): an ICMP echo request to the address, through the interface the pool is on. Any echo reply
// within the wait means a device already uses the address (a static one, or another server's lease).
import { closeFd, icmpSocket, pollReadable, recvFrom, sendTo } from "../net/libc.ts";
import type { ServedInterface } from "./settings.ts";

const WAIT_MS = 500;
let sequence = 0;

function checksum(b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < b.length; i += 2) sum += (b[i]! << 8) | (b[i + 1] ?? 0);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return ~sum & 0xffff;
}

function echoRequest(id: number, seq: number): Uint8Array {
  const b = new Uint8Array(16);
  const v = new DataView(b.buffer);
  b[0] = 8; // echo request
  v.setUint16(4, id, false);
  v.setUint16(6, seq, false);
  b.set([0x6d, 0x6f, 0x61, 0x74], 8); // "moat"
  v.setUint16(2, checksum(b), false);
  return b;
}

/** Whether `ip` answers an echo request on the interface within half a second. */
export async function pingProbe(iface: ServedInterface, ip: number): Promise<boolean> {
  let fd: number;
  try {
    fd = icmpSocket(iface.name);
  } catch {
    return false; // no raw sockets here (no CAP_NET_RAW): offer without the check
  }
  try {
    const id = (process.pid ^ 0x4d4f) & 0xffff;
    const seq = (sequence = (sequence + 1) & 0xffff);
    if (!sendTo(fd, echoRequest(id, seq), ip, 0)) return false;
    const buf = new Uint8Array(1500);
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      // a raw socket sees every ICMP packet: look for our reply among them
      for (let got = recvFrom(fd, buf); got; got = recvFrom(fd, buf)) {
        const ihl = (buf[0]! & 0x0f) * 4;
        if (got.addr !== ip || got.length < ihl + 8 || buf[ihl] !== 0) continue;
        const v = new DataView(buf.buffer, ihl);
        if (v.getUint16(4, false) === id && v.getUint16(6, false) === seq) return true;
      }
      if (!pollReadable([fd], 0).length) await Bun.sleep(20);
    }
    return false;
  } finally {
    closeFd(fd);
  }
}
