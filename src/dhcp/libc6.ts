// The IPv6 socket calls of router advertisements (RFC 4861): a raw ICMPv6 socket on one interface
// with hop limit 255 (receivers drop neighbour discovery with any other), joined to all-routers
// (ff02::2) to hear router solicitations; and the UDP socket of stateless DHCPv6 (RFC 8415). Constants are Linux's (ipv6(7), icmp6(7)).
import { dlopen, FFIType, ptr } from "bun:ffi";

const AF_INET6 = 10;
const SOCK_DGRAM = 2;
const SOCK_RAW = 3;
const SO_REUSEADDR = 2;
const MSG_DONTWAIT = 0x40;
const SOCK_NONBLOCK = 0o4000;
const SOCK_CLOEXEC = 0o2000000;
const IPPROTO_IPV6 = 41;
const IPPROTO_ICMPV6 = 58;
const SOL_SOCKET = 1;
const SO_BINDTODEVICE = 25;
const IPV6_UNICAST_HOPS = 16;
const IPV6_MULTICAST_IF = 17;
const IPV6_MULTICAST_HOPS = 18;
const IPV6_MULTICAST_LOOP = 19;
const IPV6_ADD_MEMBERSHIP = 20;

// opened on first use: a Moat without DHCP never needs it (and starts where there is no glibc)
function open() {
  return dlopen("libc.so.6", {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    setsockopt: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    recvfrom: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i64 },
    sendto: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i64 },
    if_nametoindex: { args: [FFIType.ptr], returns: FFIType.u32 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
  }).symbols;
}
let lib: ReturnType<typeof open> | null = null;
const c = () => (lib ??= open());

export function ifIndex(name: string): number {
  return c().if_nametoindex(ptr(new TextEncoder().encode(name + "\0")));
}

function setInt(fd: number, level: number, name: number, value: number, what: string) {
  if (c().setsockopt(fd, level, name, ptr(new Int32Array([value])), 4) !== 0) throw new Error(`${what} failed`);
}

/** 16 bytes of an IPv6 address in text form */
export function ipv6Bytes(addr: string): Uint8Array {
  const [head, tail = ""] = addr.split("::") as [string, string?];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = addr.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = parseInt(g || "0", 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 255;
  });
  return out;
}

function sockaddr6(addr: string, port: number, scope: number): Uint8Array {
  const sa = new Uint8Array(28);
  const v = new DataView(sa.buffer);
  v.setUint16(0, AF_INET6, true);
  v.setUint16(2, port, false);
  sa.set(ipv6Bytes(addr), 8);
  v.setUint32(24, scope, true);
  return sa;
}

/** A socket on `ifname` (bound to it), joined to `group`; for NDP (raw ICMPv6, hop limit 255) or DHCPv6 (UDP port). */
function socket6(ifname: string, group: string, udpPort: number | null): { fd: number; ifindex: number } {
  const ifindex = ifIndex(ifname);
  if (!ifindex) throw new Error(`no interface ${ifname}`);
  const fd = udpPort === null ? c().socket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMPV6) : c().socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new Error("IPv6 socket failed (needs root or CAP_NET_RAW)");
  try {
    const name = new TextEncoder().encode(ifname + "\0");
    if (c().setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ptr(name), name.length) !== 0) throw new Error(`binding to ${ifname} failed`);
    if (udpPort === null) {
      setInt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 255, "IPV6_MULTICAST_HOPS");
      setInt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 255, "IPV6_UNICAST_HOPS");
    }
    setInt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, ifindex, "IPV6_MULTICAST_IF");
    setInt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 0, "IPV6_MULTICAST_LOOP");
    const mreq = new Uint8Array(20);
    mreq.set(ipv6Bytes(group));
    new DataView(mreq.buffer).setUint32(16, ifindex, true);
    if (c().setsockopt(fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, ptr(mreq), 20) !== 0) throw new Error(`joining ${group} failed`);
    if (udpPort !== null) {
      setInt(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
      const sa = sockaddr6("::", udpPort, 0);
      if (c().bind(fd, ptr(sa), 28) !== 0) throw new Error(`bind to port ${udpPort} failed`);
    }
  } catch (e) {
    c().close(fd);
    throw e;
  }
  return { fd, ifindex };
}

/** A raw ICMPv6 socket on `ifname` for neighbour discovery; joined to ff02::2 (all routers). */
export const ndSocket = (ifname: string) => socket6(ifname, "ff02::2", null);
/** A UDP socket on [::]:547 of `ifname`, joined to ff02::1:2 (all DHCP relay agents and servers). */
export const dhcp6Socket = (ifname: string) => socket6(ifname, "ff02::1:2", 547);

/** One datagram if one is waiting, with the sender's address (text, no scope) and port. */
export function recvFrom6(fd: number, buf: Uint8Array): { length: number; addr: string; port: number } | null {
  const sa = new Uint8Array(28);
  const len = new Uint32Array([28]);
  const n = Number(c().recvfrom(fd, ptr(buf), buf.length, MSG_DONTWAIT, ptr(sa), ptr(len)));
  if (n < 0) return null;
  const v = new DataView(sa.buffer);
  const groups: string[] = [];
  for (let i = 0; i < 8; i++) groups.push(v.getUint16(8 + i * 2, false).toString(16));
  return { length: n, addr: groups.join(":"), port: v.getUint16(2, false) };
}

export function sendTo6(fd: number, data: Uint8Array, dest: string, port: number, ifindex: number): boolean {
  const sa = sockaddr6(dest, port, ifindex);
  return Number(c().sendto(fd, ptr(data), data.length, 0, ptr(sa), 28)) === data.length;
}

/** Sends an ICMPv6 message (the kernel fills in the checksum) to `dest` on the interface. */
export function sendIcmp6(fd: number, data: Uint8Array, dest: string, ifindex: number): boolean {
  return sendTo6(fd, data, dest, 0, ifindex);
}
