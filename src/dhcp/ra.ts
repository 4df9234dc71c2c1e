// Router advertisements for `dhcp.ipv6` (RFC 4861 §4.2): they tell the network's IPv6 devices to use
// Moat as their DNS server (RDNSS, RFC 8106; DNSSL with the local domain) and the on-link prefixes
// for SLAAC, with router lifetime 0: Moat is not the router, and says so. Sent to all nodes when
// started, a few times in the first minute, then every 200 s, and in answer to router solicitations.
// Beside them, stateless DHCPv6 (dhcp6.ts) gives the same DNS server to clients that ask by DHCPv6;
// the advertisement's O flag says so.
import { networkInterfaces } from "node:os";
import { closeFd, pollReadable, recvFrom } from "../net/libc.ts";
import { ipv6Bytes } from "../net/ip.ts";
import { dhcp6Socket, ndSocket, recvFrom6, sendIcmp6, sendTo6 } from "./libc6.ts";
import { dhcp6Reply, duidLL } from "./dhcp6.ts";

const ALL_NODES = "ff02::1";
const INTERVAL_MS = 200_000;
const INITIAL_MS = [0, 4_000, 16_000];
/** RFC 8106 §5.1: at least 3 x the maximum interval */
const RDNSS_LIFETIME = 1800;
const TYPE_RS = 133;
const TYPE_RA = 134;

export interface RaSettings {
  /** the interface the DHCPv4 pool is on */
  ifname: string;
  mac: string;
  domain: string;
  multiDNS: boolean;
}

/** Moat's IPv6 addresses on the interface: the DNS server address (global or ULA first) and /64 prefixes. */
function addressesOf(ifname: string): { dns: string[]; prefixes: Uint8Array[] } {
  const list = (networkInterfaces()[ifname] ?? []).filter((a) => a.family === "IPv6" && !a.internal);
  const routable = list.filter((a) => !/^fe80:/i.test(a.address));
  const dns = (routable.length ? routable : list).map((a) => a.address.replace(/%.*$/, "")).slice(0, 1);
  const prefixes = routable
    .filter((a) => a.cidr?.endsWith("/64"))
    .map((a) => {
      const b = ipv6Bytes(a.address);
      b.fill(0, 8);
      return b;
    });
  return { dns, prefixes };
}

function encodeDomain(domain: string): Uint8Array {
  const parts = domain.split(".").filter(Boolean);
  const bytes: number[] = [];
  for (const p of parts) bytes.push(p.length, ...new TextEncoder().encode(p));
  bytes.push(0);
  while ((bytes.length + 8) % 8) bytes.push(0);
  return Uint8Array.from(bytes);
}

function buildRa(s: RaSettings, dns: string[], prefixes: Uint8Array[]): Uint8Array {
  const servers = s.multiDNS && dns.length ? [dns[0]!, dns[0]!, dns[0]!] : dns;
  const opts: Uint8Array[] = [];
  const mac = Uint8Array.from(s.mac.split(":").map((h) => parseInt(h, 16)));
  opts.push(Uint8Array.of(1, 1, ...mac)); // source link-layer address
  for (const p of prefixes) {
    const o = new Uint8Array(32);
    const v = new DataView(o.buffer);
    o[0] = 3;
    o[1] = 4;
    o[2] = 64;
    o[3] = 0xc0; // on-link, autonomous (SLAAC)
    v.setUint32(4, 86400, false);
    v.setUint32(8, 14400, false);
    o.set(p, 16);
    opts.push(o);
  }
  if (servers.length) {
    const o = new Uint8Array(8 + 16 * servers.length);
    o[0] = 25;
    o[1] = 1 + 2 * servers.length;
    new DataView(o.buffer).setUint32(4, RDNSS_LIFETIME, false);
    servers.forEach((a, i) => o.set(ipv6Bytes(a), 8 + 16 * i));
    opts.push(o);
  }
  if (s.domain) {
    const name = encodeDomain(s.domain);
    const o = new Uint8Array(8 + name.length);
    o[0] = 31;
    o[1] = o.length / 8;
    new DataView(o.buffer).setUint32(4, RDNSS_LIFETIME, false);
    o.set(name, 8);
    opts.push(o);
  }
  const size = 16 + opts.reduce((n, o) => n + o.length, 0);
  const out = new Uint8Array(size);
  out[0] = TYPE_RA;
  out[4] = 64; // current hop limit
  out[5] = 0x40; // O: other settings (DNS) also by DHCPv6; no M: addresses come from SLAAC, not DHCPv6
  // router lifetime (bytes 6-7), reachable time and retransmission timer stay 0
  let at = 16;
  for (const o of opts) out.set(o, at), (at += o.length);
  return out;
}

export class RouterAdvertiser {
  private fd = -1;
  private ifindex = 0;
  private fd6 = -1;
  private timers: Array<ReturnType<typeof setTimeout>> = [];
  private poller: ReturnType<typeof setInterval> | null = null;
  private lastSent = 0;

  constructor(
    private readonly s: RaSettings,
    private readonly log: (level: "info" | "warn", msg: string) => void,
  ) {}

  start(): void {
    ({ fd: this.fd, ifindex: this.ifindex } = ndSocket(this.s.ifname));
    for (const ms of INITIAL_MS) this.timers.push(setTimeout(() => this.advertise(), ms));
    this.timers.push(setInterval(() => this.advertise(), INTERVAL_MS) as unknown as ReturnType<typeof setTimeout>);
    try {
      this.fd6 = dhcp6Socket(this.s.ifname).fd;
    } catch (e) {
      this.log("warn", `DHCPv6: not serving on ${this.s.ifname}: ${(e as Error).message}`);
    }
    // solicitations and DHCPv6 requests are rare: a short non-blocking check is cheaper than a thread
    const buf = new Uint8Array(1500);
    this.poller = setInterval(() => {
      const ready = pollReadable(this.fd6 >= 0 ? [this.fd, this.fd6] : [this.fd], 0);
      if (ready.includes(this.fd6)) this.answerDhcp6(buf);
      if (!ready.includes(this.fd)) return;
      let solicited = false;
      for (let got = recvFrom(this.fd, buf); got; got = recvFrom(this.fd, buf))
        if (got.length >= 8 && buf[0] === TYPE_RS && buf[1] === 0) solicited = true;
      if (solicited) this.advertise();
    }, 100);
  }

  private answerDhcp6(buf: Uint8Array): void {
    const duid = duidLL(this.s.mac);
    for (let got = recvFrom6(this.fd6, buf); got; got = recvFrom6(this.fd6, buf)) {
      if (got.port !== 546) continue;
      const { dns } = addressesOf(this.s.ifname);
      const servers = this.s.multiDNS && dns.length ? [dns[0]!, dns[0]!, dns[0]!] : dns;
      const reply = dhcp6Reply(buf.subarray(0, got.length), duid, servers, this.s.domain);
      if (reply) sendTo6(this.fd6, reply, got.addr, 546, this.ifindex);
    }
  }

  private advertise(): void {
    const now = Date.now();
    if (now - this.lastSent < 300) return; // RFC 4861 §6.2.6 rate limit (relaxed from 3 s for quick answers)
    const { dns, prefixes } = addressesOf(this.s.ifname);
    if (!dns.length) return;
    if (sendIcmp6(this.fd, buildRa(this.s, dns, prefixes), ALL_NODES, this.ifindex)) this.lastSent = now;
    else this.log("warn", `IPv6 RA: sending on ${this.s.ifname} failed`);
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    if (this.poller) clearInterval(this.poller);
    if (this.fd >= 0) closeFd(this.fd);
    if (this.fd6 >= 0) closeFd(this.fd6);
    this.fd = this.fd6 = -1;
  }
}
