// The IPv6 socket calls of router advertisements (RFC 4861): a raw ICMPv6 socket on one interface
// with hop limit 255 (receivers drop neighbour discovery with any other), joined to all-routers
// (ff02::2) to hear router solicitations; and the UDP socket of stateless DHCPv6 (RFC 8415). Constants are Linux's (ipv6(7), icmp6(7)).
import { ptr } from "bun:ffi";
import { ipv6Bytes } from "../net/ip.ts";
import {
  AF_INET6,
  bindToDevice,
  IPPROTO_IPV6,
  libc as c,
  recvWithSender,
  setInt,
  SOCK_CLOEXEC,
  SOCK_DGRAM,
  SOCK_NONBLOCK,
  SOCK_RAW,
  SO_REUSEADDR,
  SOL_SOCKET,
  sockaddr6,
} from "../net/libc.ts";

const IPPROTO_ICMPV6 = 58;
const IPV6_UNICAST_HOPS = 16;
const IPV6_MULTICAST_IF = 17;
const IPV6_MULTICAST_HOPS = 18;
const IPV6_MULTICAST_LOOP = 19;
const IPV6_ADD_MEMBERSHIP = 20;

function ifIndex(name: string): number {
  return c().if_nametoindex(ptr(new TextEncoder().encode(`${name}\0`)));
}

/** A socket on `ifname` (bound to it), joined to `group`; for NDP (raw ICMPv6, hop limit 255) or DHCPv6 (UDP port). */
function socket6(ifname: string, group: string, udpPort: number | null): { fd: number; ifindex: number } {
  const ifindex = ifIndex(ifname);
  if (!ifindex) throw new Error(`no interface ${ifname}`);
  const fd =
    udpPort === null
      ? c().socket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMPV6)
      : c().socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new Error("IPv6 socket failed (needs root or CAP_NET_RAW)");
  try {
    bindToDevice(fd, ifname);
    if (udpPort === null) {
      setInt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 255, "IPV6_MULTICAST_HOPS");
      setInt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 255, "IPV6_UNICAST_HOPS");
    }
    setInt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, ifindex, "IPV6_MULTICAST_IF");
    setInt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 0, "IPV6_MULTICAST_LOOP");
    const mreq = new Uint8Array(20);
    mreq.set(ipv6Bytes(group));
    new DataView(mreq.buffer).setUint32(16, ifindex, true);
    if (c().setsockopt(fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, ptr(mreq), 20) !== 0)
      throw new Error(`joining ${group} failed`);
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
  const r = recvWithSender(fd, buf, 28);
  if (!r) return null;
  const groups: string[] = [];
  for (let i = 0; i < 8; i++) groups.push(r.sender.getUint16(8 + i * 2, false).toString(16));
  return { length: r.length, addr: groups.join(":"), port: r.sender.getUint16(2, false) };
}

export function sendTo6(fd: number, data: Uint8Array, dest: string, port: number, ifindex: number): boolean {
  const sa = sockaddr6(dest, port, ifindex);
  return Number(c().sendto(fd, ptr(data), data.length, 0, ptr(sa), 28)) === data.length;
}

/** Sends an ICMPv6 message (the kernel fills in the checksum) to `dest` on the interface. */
export function sendIcmp6(fd: number, data: Uint8Array, dest: string, ifindex: number): boolean {
  return sendTo6(fd, data, dest, 0, ifindex);
}
