// The system calls Bun itself cannot make, through libc (bun:ffi): a DHCP server must bind to
// one interface (SO_BINDTODEVICE), send to 255.255.255.255 (SO_BROADCAST) and share port 67 between
// interfaces (SO_REUSEADDR); DNS and NTP read where a datagram was sent (IPV6_RECVPKTINFO with
// recvmsg) and answer from there (sendmsg); a gravity child dies with its server (prctl). Constants are
// Linux's (socket(7), ip(7), prctl(2)). The one libc
// binding of Moat: src/dhcp/libc6.ts and src/dns/pktinfo.ts build their sockets on it.
import { dlopen, FFIType, ptr, read } from "bun:ffi";
import { ipv6Bytes } from "./ip.ts";

const AF_INET = 2;
export const AF_INET6 = 10;
export const IPPROTO_IPV6 = 41;
export const SOCK_DGRAM = 2;
export const SOCK_RAW = 3;
export const SOCK_NONBLOCK = 0o4000;
export const SOCK_CLOEXEC = 0o2000000;
export const SOL_SOCKET = 1;
export const SO_REUSEADDR = 2;
export const SO_REUSEPORT = 15;
const SO_BROADCAST = 6;
const SO_BINDTODEVICE = 25;
const IPPROTO_ICMP = 1;
export const MSG_DONTWAIT = 0x40;
const POLLIN = 1;

// opened on first use: a Moat without DHCP never needs it (and starts where there is no glibc)
function open() {
  return dlopen("libc.so.6", {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    setsockopt: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    sendto: {
      args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.u32],
      returns: FFIType.i64,
    },
    recvfrom: {
      args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.ptr],
      returns: FFIType.i64,
    },
    recvmsg: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i64 },
    sendmsg: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i64 },
    poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
    if_nametoindex: { args: [FFIType.ptr], returns: FFIType.u32 },
    // variadic in C; Linux's calling conventions pass these integer arguments as for a fixed list
    prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  }).symbols;
}
let lib: ReturnType<typeof open> | null = null;
/** libc's socket calls, loaded on first use */
export const libc = () => (lib ??= open());
const c = libc;

export function errno(): number {
  const p = c().__errno_location();
  return p ? read.i32(p, 0) : 0;
}

function fail(what: string): never {
  const code = errno();
  const names: Record<number, string> = {
    1: "EPERM",
    13: "EACCES",
    19: "ENODEV",
    98: "EADDRINUSE",
    99: "EADDRNOTAVAIL",
  };
  throw new Error(`${what} failed (${names[code] ?? `errno ${code}`})`);
}

/** struct sockaddr_in for an IPv4 address given as a 32-bit number */
function sockaddrIn(addr: number, port: number): Uint8Array {
  const b = new Uint8Array(16);
  const v = new DataView(b.buffer);
  v.setUint16(0, AF_INET, true);
  v.setUint16(2, port, false);
  v.setUint32(4, addr >>> 0, false);
  return b;
}

/** struct sockaddr_in6 for an IPv6 address, with the interface index of a link-local scope (0: none) */
export function sockaddr6(addr: string, port: number, scope: number): Uint8Array {
  const sa = new Uint8Array(28);
  const v = new DataView(sa.buffer);
  v.setUint16(0, AF_INET6, true);
  v.setUint16(2, port, false);
  sa.set(ipv6Bytes(addr), 8);
  v.setUint32(24, scope, true);
  return sa;
}

export function setInt(fd: number, level: number, name: number, value: number, what: string) {
  const one = new Int32Array([value]);
  if (c().setsockopt(fd, level, name, ptr(one), 4) !== 0) fail(what);
}

/** SO_BINDTODEVICE: the socket sees and sends through `ifname` only. */
export function bindToDevice(fd: number, ifname: string): void {
  const name = new TextEncoder().encode(`${ifname}\0`);
  if (c().setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ptr(name), name.length) !== 0)
    fail(`binding to interface ${ifname}`);
}

/** A non-blocking UDP socket on 0.0.0.0:port that only sees and sends through `ifname`. */
export function udpOnInterface(ifname: string, port: number): number {
  const fd = c().socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket");
  try {
    setInt(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
    setInt(fd, SOL_SOCKET, SO_BROADCAST, 1, "SO_BROADCAST");
    bindToDevice(fd, ifname);
    const sa = sockaddrIn(0, port);
    if (c().bind(fd, ptr(sa), sa.length) !== 0) fail(`bind to port ${port}`);
  } catch (e) {
    c().close(fd);
    throw e;
  }
  return fd;
}

/** A non-blocking raw ICMP socket (root or CAP_NET_RAW), for the echo probe before an offer. */
export function icmpSocket(ifname: string): number {
  const fd = c().socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMP);
  if (fd < 0) fail("ICMP socket");
  try {
    bindToDevice(fd, ifname);
  } catch (e) {
    c().close(fd);
    throw e;
  }
  return fd;
}

export function sendTo(fd: number, data: Uint8Array, addr: number, port: number): boolean {
  const sa = sockaddrIn(addr, port);
  return Number(c().sendto(fd, ptr(data), data.length, 0, ptr(sa), sa.length)) === data.length;
}

/** One datagram if one is waiting (never blocks): its length and the sender's sockaddr (`size` bytes: 16 for IPv4, 28 for IPv6). */
export function recvWithSender(fd: number, buf: Uint8Array, size: number): { length: number; sender: DataView } | null {
  const sa = new Uint8Array(size);
  const len = new Uint32Array([size]);
  const n = Number(c().recvfrom(fd, ptr(buf), buf.length, MSG_DONTWAIT, ptr(sa), ptr(len)));
  return n < 0 ? null : { length: n, sender: new DataView(sa.buffer) };
}

/** One datagram if one is waiting (never blocks), with the sender's IPv4 address and port. */
export function recvFrom(fd: number, buf: Uint8Array): { length: number; addr: number; port: number } | null {
  const r = recvWithSender(fd, buf, 16);
  return r && { length: r.length, addr: r.sender.getUint32(4, false), port: r.sender.getUint16(2, false) };
}

/** Waits up to timeoutMs for any of the fds to be readable; returns the readable ones. */
export function pollReadable(fds: number[], timeoutMs: number): number[] {
  if (!fds.length) return [];
  const pfd = new Int32Array(fds.length * 2);
  fds.forEach((fd, i) => {
    pfd[i * 2] = fd;
    pfd[i * 2 + 1] = POLLIN; // events (low 16 bits, little-endian), revents 0
  });
  const n = c().poll(ptr(pfd), fds.length, timeoutMs);
  if (n <= 0) return [];
  return fds.filter((_, i) => pfd[i * 2 + 1]! >>> 16 !== 0);
}

export function closeFd(fd: number): void {
  c().close(fd);
}

const PR_SET_PDEATHSIG = 1;
const SIGKILL = 9;

/**
 * Asks the kernel to SIGKILL this process as soon as its parent dies, even by kill -9 (prctl(2)
 * PR_SET_PDEATHSIG; "parent" is the thread that spawned it, which for Moat's children is the main
 * thread, living as long as the process). False where libc or the call is missing.
 */
export function dieWithParent(): boolean {
  try {
    return c().prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) === 0;
  } catch {
    return false;
  }
}
