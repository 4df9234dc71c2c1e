// The wildcard UDP socket that knows where each datagram was sent: IPV6_RECVPKTINFO on a
// dual-stack socket gives every datagram's destination address and interface (IPv4 ones as
// ::ffff:a.b.c.d), and an IPV6_PKTINFO control message on sendmsg makes the answer leave from that
// address on that interface (ipv6(7), RFC 3542 section 6; Linux takes the IPv4-mapped form for an
// IPv4 answer too). Bun's own sockets give neither, so this goes through libc (bun:ffi), as DHCP's
// sockets do (src/net/libc.ts). Only the addresses no socket of udp-listeners.ts is bound to arrive
// here: those outside 127.0.0.1 in 127.0.0.0/8 and any that appeared since the last scan. Constants
// and struct layouts are Linux's on 64-bit machines (socket(7), cmsg(3)).
import { ptr } from "bun:ffi";
import { compressV6 } from "../net/ip.ts";
import {
  AF_INET6,
  errno,
  IPPROTO_IPV6,
  libc as c,
  MSG_DONTWAIT,
  SO_REUSEADDR,
  SO_REUSEPORT,
  SOCK_CLOEXEC,
  SOCK_DGRAM,
  SOCK_NONBLOCK,
  SOL_SOCKET,
  sockaddr6,
} from "../net/libc.ts";

const IPV6_V6ONLY = 26;
const IPV6_RECVPKTINFO = 49;
const IPV6_PKTINFO = 50;
const EADDRINUSE = 98;

export interface PktinfoOptions {
  /** IPv6 only (IPV6_V6ONLY); else dual-stack */
  v6only?: boolean;
  /** SO_REUSEADDR as well, for a service that lets other sockets share its port (NTP) */
  reuseAddr?: boolean;
}

/**
 * A non-blocking UDP socket on [::]:port with SO_REUSEPORT (beside the per-address sockets, which
 * take it too) that reports each datagram's destination. Throws with `code` EADDRINUSE when the
 * port is taken, and when libc cannot be reached (no glibc).
 */
export function openPktinfoSocket(port: number, opts: PktinfoOptions = {}): number {
  const fd = c().socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new Error(`socket failed (errno ${errno()})`);
  const one = new Int32Array([1]);
  const v6only = new Int32Array([opts.v6only ? 1 : 0]);
  const sa = sockaddr6("::", port, 0);
  if (
    c().setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, ptr(one), 4) !== 0 ||
    (opts.reuseAddr && c().setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, ptr(one), 4) !== 0) ||
    c().setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, ptr(v6only), 4) !== 0 ||
    c().setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, ptr(one), 4) !== 0 ||
    c().bind(fd, ptr(sa), 28) !== 0
  ) {
    const code = errno();
    c().close(fd);
    const e = new Error(`bind [::]:${port} failed (${code === EADDRINUSE ? "EADDRINUSE" : `errno ${code}`})`);
    if (code === EADDRINUSE) (e as { code?: string }).code = "EADDRINUSE";
    throw e;
  }
  return fd;
}

export function closePktinfoSocket(fd: number): void {
  c().close(fd);
}

/** One datagram: the sender's sockaddr_in6 (as it is, to answer to) and where it was sent. */
export interface Datagram {
  data: Uint8Array;
  /** the sender: 28 bytes of sockaddr_in6, scope included */
  from: Uint8Array;
  /** the destination address, 16 bytes (IPv4 mapped) */
  dest: Uint8Array;
  ifindex: number;
}

// one set of buffers per thread: msghdr (56 bytes), iovec (16), sockaddr_in6 (28), control (64)
const msg = new Uint8Array(56);
const msgView = new DataView(msg.buffer);
const iov = new Uint8Array(16);
const iovView = new DataView(iov.buffer);
const name = new Uint8Array(28);
const control = new Uint8Array(64);
const controlView = new DataView(control.buffer);

function setMsg(data: Uint8Array, length: number, controlLength: number): void {
  iovView.setBigUint64(0, BigInt(ptr(data)), true);
  iovView.setBigUint64(8, BigInt(length), true);
  msg.fill(0);
  msgView.setBigUint64(0, BigInt(ptr(name)), true);
  msgView.setUint32(8, 28, true);
  msgView.setBigUint64(16, BigInt(ptr(iov)), true);
  msgView.setBigUint64(24, 1n, true);
  msgView.setBigUint64(32, BigInt(ptr(control)), true);
  msgView.setBigUint64(40, BigInt(controlLength), true);
}

/** One datagram if one is waiting (never blocks), read into `buf`. */
export function receive(fd: number, buf: Uint8Array): Datagram | null {
  setMsg(buf, buf.length, control.length);
  const n = Number(c().recvmsg(fd, ptr(msg), MSG_DONTWAIT));
  if (n < 0) return null;
  const controlLength = Number(msgView.getBigUint64(40, true));
  // cmsghdr: cmsg_len (8), level (4), type (4), data
  for (let at = 0; at + 16 <= controlLength; ) {
    const len = Number(controlView.getBigUint64(at, true));
    if (len < 16) break;
    if (controlView.getInt32(at + 8, true) === IPPROTO_IPV6 && controlView.getInt32(at + 12, true) === IPV6_PKTINFO)
      return {
        data: buf.slice(0, n),
        from: name.slice(),
        dest: control.slice(at + 16, at + 32),
        ifindex: controlView.getUint32(at + 32, true),
      };
    at += (len + 7) & ~7;
  }
  return null;
}

/** Sends `data` to the sender of a datagram from the address and interface it was sent to. */
export function answer(fd: number, data: Uint8Array, to: Datagram): boolean {
  name.set(to.from);
  control.fill(0);
  // one cmsghdr of in6_pktinfo: CMSG_LEN(20) = 36, CMSG_SPACE(20) = 40
  controlView.setBigUint64(0, 36n, true);
  controlView.setInt32(8, IPPROTO_IPV6, true);
  controlView.setInt32(12, IPV6_PKTINFO, true);
  control.set(to.dest, 16);
  controlView.setUint32(32, to.ifindex, true);
  setMsg(data, data.length, 40);
  return Number(c().sendmsg(fd, ptr(msg), MSG_DONTWAIT)) === data.length;
}

/** The sender's address as the engine names clients: IPv4 without its ::ffff: prefix, IPv6 compressed. */
export function senderText(from: Uint8Array): string {
  const v = new DataView(from.buffer, from.byteOffset, from.byteLength);
  const mapped = v.getUint32(8) === 0 && v.getUint32(12) === 0 && v.getUint32(16) === 0xffff;
  if (mapped) return `${from[20]}.${from[21]}.${from[22]}.${from[23]}`;
  const groups: string[] = [];
  for (let i = 0; i < 8; i++) groups.push(v.getUint16(8 + i * 2).toString(16));
  return compressV6(groups);
}
