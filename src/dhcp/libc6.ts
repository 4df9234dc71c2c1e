// The IPv6 socket calls of router advertisements (RFC 4861): a raw ICMPv6 socket on one interface
// with hop limit 255 (receivers drop neighbour discovery with any other), joined to all-routers
// (ff02::2) to hear router solicitations. Constants are Linux's (ipv6(7), icmp6(7)).
import { dlopen, FFIType, ptr } from "bun:ffi";

const AF_INET6 = 10;
const SOCK_RAW = 3;
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

const { symbols: c } = dlopen("libc.so.6", {
  socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  setsockopt: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
  sendto: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i64 },
  if_nametoindex: { args: [FFIType.ptr], returns: FFIType.u32 },
  close: { args: [FFIType.i32], returns: FFIType.i32 },
});

export function ifIndex(name: string): number {
  return c.if_nametoindex(ptr(new TextEncoder().encode(name + "\0")));
}

function setInt(fd: number, level: number, name: number, value: number, what: string) {
  if (c.setsockopt(fd, level, name, ptr(new Int32Array([value])), 4) !== 0) throw new Error(`${what} failed`);
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

/** A raw ICMPv6 socket on `ifname` for neighbour discovery; joined to ff02::2. */
export function ndSocket(ifname: string): { fd: number; ifindex: number } {
  const ifindex = ifIndex(ifname);
  if (!ifindex) throw new Error(`no interface ${ifname}`);
  const fd = c.socket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMPV6);
  if (fd < 0) throw new Error("ICMPv6 socket failed (needs root or CAP_NET_RAW)");
  try {
    const name = new TextEncoder().encode(ifname + "\0");
    if (c.setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ptr(name), name.length) !== 0) throw new Error(`binding to ${ifname} failed`);
    setInt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 255, "IPV6_MULTICAST_HOPS");
    setInt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 255, "IPV6_UNICAST_HOPS");
    setInt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, ifindex, "IPV6_MULTICAST_IF");
    setInt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 0, "IPV6_MULTICAST_LOOP");
    const mreq = new Uint8Array(20);
    mreq.set(ipv6Bytes("ff02::2"));
    new DataView(mreq.buffer).setUint32(16, ifindex, true);
    if (c.setsockopt(fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, ptr(mreq), 20) !== 0) throw new Error("joining ff02::2 failed");
  } catch (e) {
    c.close(fd);
    throw e;
  }
  return { fd, ifindex };
}

/** Sends an ICMPv6 message (the kernel fills in the checksum) to `dest` on the interface. */
export function sendIcmp6(fd: number, data: Uint8Array, dest: string, ifindex: number): boolean {
  const sa = new Uint8Array(28);
  const v = new DataView(sa.buffer);
  v.setUint16(0, AF_INET6, true);
  sa.set(ipv6Bytes(dest), 8);
  v.setUint32(24, ifindex, true);
  return Number(c.sendto(fd, ptr(data), data.length, 0, ptr(sa), 28)) === data.length;
}
