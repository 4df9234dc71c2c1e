// Is another DHCP server on the network? Asked each time the server starts on an interface: one
// broadcast DISCOVER from port 68 (as a client would send it), then
// every OFFER from a server other than ourselves within five seconds names a rival. The DISCOVER
// carries the interface's own MAC address: servers send offers to the client's MAC, and the host
// takes in only frames for its own (or broadcast). Two servers
// handing out addresses on one network is the classic way to break a home network.
import { closeFd, pollReadable, recvFrom, sendTo, udpOnInterface } from "../net/libc.ts";
import { MSG, numberToIp, OPT } from "./packet.ts";
import type { ServedInterface } from "./settings.ts";

/** servers check an address (ARP or ping) before offering it: dnsmasq and udhcpd take up to 3 s */
const WAIT_MS = 5000;
const COOKIE = 0x63825363;

function discover(xid: number, mac: string): Uint8Array {
  const b = new Uint8Array(300);
  const v = new DataView(b.buffer);
  b[0] = 1;
  b[1] = 1;
  b[2] = 6;
  v.setUint32(4, xid, false);
  v.setUint16(10, 0x8000, false); // broadcast the answer: we have no address for this MAC
  b.set(
    mac.split(":").map((h) => parseInt(h, 16)),
    28,
  );
  v.setUint32(236, COOKIE, false);
  b.set([OPT.MSG_TYPE, 1, MSG.DISCOVER, OPT.PARAM_LIST, 3, 1, 3, 6, OPT.END], 240);
  return b;
}

/** The server id of an OFFER answering `xid`, or null. */
function offerFrom(b: Uint8Array, xid: number): number | null {
  if (b.length < 244 || b[0] !== 2) return null;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (v.getUint32(4, false) !== xid || v.getUint32(236, false) !== COOKIE) return null;
  let type = 0;
  let server: number | null = null;
  for (let i = 240; i + 1 < b.length && b[i] !== OPT.END; ) {
    if (b[i] === OPT.PAD) {
      i++;
      continue;
    }
    const len = b[i + 1]!;
    if (b[i] === OPT.MSG_TYPE && len === 1) type = b[i + 2]!;
    if (b[i] === OPT.SERVER_ID && len === 4 && i + 6 <= b.length) server = v.getUint32(i + 2, false);
    i += 2 + len;
  }
  return type === MSG.OFFER ? server : null;
}

/**
 * The addresses of the other DHCP servers that answer on `iface`; null when it cannot ask (port 68
 * is not ours to use). `ownXids` receives the probe's transaction id first, so our own server leaves
 * the probe alone.
 */
export async function otherDhcpServers(iface: ServedInterface, ownXids: Set<number>): Promise<string[] | null> {
  let fd: number;
  try {
    fd = udpOnInterface(iface.name, 68);
  } catch {
    return null;
  }
  const xid = (Math.random() * 0xffffffff) >>> 0;
  ownXids.add(xid);
  const found = new Set<number>();
  try {
    if (!sendTo(fd, discover(xid, iface.mac), 0xffffffff, 67)) return null;
    const buf = new Uint8Array(1500);
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      for (let got = recvFrom(fd, buf); got; got = recvFrom(fd, buf)) {
        const server = offerFrom(buf.subarray(0, got.length), xid);
        if (server !== null && server !== iface.address) found.add(server);
      }
      if (!pollReadable([fd], 0).length) await Bun.sleep(50);
    }
  } finally {
    closeFd(fd);
    ownXids.delete(xid);
  }
  return [...found].map(numberToIp);
}
