// The UDP sockets of one DNS thread on dns.port: one per local address, kept in step as addresses
// come and go, beside the wildcard. A client takes an answer only from the address it asked (RFC 5452
// section 3; dig: "reply from unexpected source"), but a socket bound to the wildcard answers from
// the address routing picks: on a host with two IPv4 addresses, or a ULA beside a global IPv6
// address, the other one's clients got nothing. A socket bound to one address answers from it, and
// one bound to a link-local address with its %scope keeps the interface. The kernel hands a datagram
// to the socket bound to its destination before the wildcard one, so the wildcard only answers
// addresses that appeared since the last scan. Every socket takes SO_REUSEPORT, which is what lets
// an address's socket bind beside the wildcard's, and every DNS thread bind the same set.
// Nothing here is on the per-query path: the sockets hand datagrams straight to the resolver.
import { networkInterfaces } from "node:os";
import type { Pending } from "./context.ts";
import { PktinfoWildcard } from "./pktinfo-wildcard.ts";
import { bindUdp, type UdpSocket } from "./udp-socket.ts";

/** How often the addresses are read again: a renumbered prefix or a new alias answers from its own address within this time. */
const RESCAN_MS = 2000;

type Log = (level: "info" | "warn" | "error", message: string) => void;
type Handle = (buf: Uint8Array, client: string) => Pending;

const inUse = (e: unknown) => /EADDRINUSE/.test(`${(e as Error).message} ${(e as { code?: string }).code}`);

/**
 * The unicast addresses of every interface (`iface` null) or of one, as Bun binds them: an IPv6
 * link-local one with its interface (`fe80::1%eth0`), as it means nothing without it.
 */
function bindableAddresses(iface: string | null): string[] {
  const out: string[] = [];
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    if (iface !== null && name !== iface) continue;
    for (const a of addrs ?? []) out.push(a.family === "IPv6" && a.scopeid ? `${a.address}%${name}` : a.address);
  }
  return out;
}

export class UdpListeners {
  /** bound socket by address ("::" or "0.0.0.0" for a wildcard of Bun's own) */
  private readonly sockets = new Map<string, UdpSocket>();
  /** the wildcard that answers from the address asked (main thread) */
  private pktinfo: PktinfoWildcard | null = null;
  /** addresses that would not bind (an IPv6 one still tentative, RFC 4862): tried again at each scan, reported once */
  private readonly failed = new Set<string>();
  /** the wildcard's address: "::" (dual-stack) or "0.0.0.0" (no IPv6 on this host) */
  private wildcard: string | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private scanning = false;
  private closed = false;

  /**
   * `iface` null: the wildcard and every local address (listeningMode LOCAL/ALL); else only the
   * addresses of that interface and loopback (SINGLE/BIND), as dnsmasq adds lo. `main`: the
   * wildcard is this thread's alone; an extra DNS thread binds only the addresses, or the
   * wildcard's answers would be spread over threads that cannot tell where a datagram was sent.
   * `addresses` false (the main thread while worker threads answer): the wildcard alone.
   */
  constructor(
    private readonly port: number,
    private readonly iface: string | null,
    private readonly main: boolean,
    private readonly handle: Handle,
    private readonly log: Log,
    private readonly addresses = true,
  ) {}

  /** Binds the first set; rejects with the bind's error (EADDRINUSE and the like) when the port cannot be had. */
  async start(): Promise<void> {
    try {
      await this.bindFirst();
    } catch (e) {
      await this.close();
      throw e;
    }
    this.timer = setInterval(() => void this.rescan(false), RESCAN_MS);
    this.timer.unref?.();
  }

  private async bindFirst(): Promise<void> {
    if (this.iface === null && this.main) await this.bindWildcard();
    await this.rescan(true);
    if (!this.sockets.size && !this.pktinfo)
      throw new Error(
        `cannot listen for DNS on port ${this.port}: no address of interface "${this.iface}" could be bound`,
      );
  }

  /**
   * The wildcard with IPV6_RECVPKTINFO (pktinfo-wildcard.ts), so what reaches it is answered from
   * the address asked too; where libc cannot be reached or IPv6 is off, Bun's own, which answers
   * from the address routing picks (as every answer did before the per-address sockets).
   */
  private async bindWildcard(): Promise<void> {
    try {
      this.pktinfo = new PktinfoWildcard(this.port, this.handle);
      this.wildcard = "::";
      return;
    } catch (e) {
      if (inUse(e)) throw e;
    }
    try {
      await this.bind("::");
      this.wildcard = "::";
    } catch (e) {
      if (inUse(e)) throw e;
      // no IPv6 on this host: IPv4 only
      await this.bind("0.0.0.0");
      this.wildcard = "0.0.0.0";
    }
  }

  /** The addresses the UDP sockets are bound to now (the wildcard first, where there is one). */
  hosts(): string[] {
    const bound = [...this.sockets.keys()].filter((h) => h !== this.wildcard);
    return this.wildcard ? [this.wildcard, ...bound] : bound;
  }

  /** Closes every socket; resolves once the port is free of them. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const s of this.sockets.values()) s.close();
    this.sockets.clear();
    await this.pktinfo?.close();
    this.pktinfo = null;
  }

  private wanted(): Set<string> {
    if (!this.addresses && this.iface === null) return new Set();
    const list = bindableAddresses(this.iface);
    // an IPv4-only host (wildcard 0.0.0.0) has no IPv6 sockets, so none of its addresses either
    const v4only = this.wildcard === "0.0.0.0";
    const want = new Set(v4only ? list.filter((a) => !a.includes(":")) : list);
    if (this.iface !== null) for (const lo of ["127.0.0.1", "::1"]) want.add(lo);
    return want;
  }

  /** Binds addresses that appeared and closes the sockets of those that went. */
  private async rescan(first: boolean): Promise<void> {
    if (this.scanning || this.closed) return;
    this.scanning = true;
    try {
      const want = this.wanted();
      for (const [host, sock] of this.sockets)
        if (host !== this.wildcard && !want.has(host)) {
          sock.close();
          this.sockets.delete(host);
        }
      for (const host of this.failed) if (!want.has(host)) this.failed.delete(host);
      for (const host of want) {
        if (this.sockets.has(host)) continue;
        try {
          await this.bind(host);
          this.failed.delete(host);
        } catch (e) {
          // SINGLE/BIND: the port taken on one of its own addresses is the port taken
          if (first && this.iface !== null && inUse(e)) throw e;
          // EADDRNOTAVAIL: an IPv6 address still in duplicate address detection, bound at a later scan
          if (
            !this.failed.has(host) &&
            !/EADDRNOTAVAIL/.test(`${(e as Error).message} ${(e as { code?: string }).code}`)
          )
            this.log("warn", `DNS: cannot listen on ${host}:${this.port}: ${(e as Error).message}`);
          this.failed.add(host);
        }
        if (this.closed) break;
      }
    } finally {
      this.scanning = false;
    }
  }

  private async bind(host: string): Promise<void> {
    const sock = await bindUdp(host, this.port, true, this.handle);
    // closed while the bind was under way
    if (this.closed) sock.close();
    else this.sockets.set(host, sock);
  }
}
