// The DHCPv4 server (RFC 2131): one socket per served interface (bound to it, so a request is
// answered only on the interface it came in on, and only where the pool's network is), a worker that
// waits for requests, and the protocol itself on the main thread.
import { closeFd, sendTo, udpOnInterface } from "../net/libc.ts";
import { workerUrl } from "../core/worker-url.ts";
import { type Lease, type LeaseStore, nowSecs } from "./leases.ts";
import type { DhcpCounters } from "./counters.ts";
import { HeldAddresses, Pool } from "./pool.ts";
import type { Received, RecvStart } from "./recv-worker.ts";
import type { DhcpSettings, ServedInterface } from "./settings.ts";
import {
  buildReply,
  clientIdString,
  ips,
  MSG,
  numberToIp,
  OPT,
  optIp,
  optText,
  parseRequest,
  text,
  u32,
  type DhcpRequest,
  type ReplyOption,
} from "./packet.ts";

const SERVER_PORT = 67;
const CLIENT_PORT = 68;
const BROADCAST = 0xffffffff;
/** RFC 2131 §2 flags: the client cannot take unicast before it has its address */
const FLAG_BROADCAST = 0x8000;

/** Says whether an address answers on the network (the probe before an offer). */
export type Probe = (iface: ServedInterface, ip: number) => Promise<boolean>;

interface Served extends ServedInterface {
  fd: number;
  pool: Pool;
}

export class DhcpServer {
  private served = new Map<number, Served>();
  private worker: Worker | null = null;
  private stopFlag = new SharedArrayBuffer(4);
  private held = new HeldAddresses();
  /** transaction ids of our own probes for other servers: not requests to answer */
  readonly ownXids = new Set<number>();

  constructor(
    private readonly s: DhcpSettings,
    private readonly leases: LeaseStore,
    private readonly counters: DhcpCounters,
    private readonly log: (level: "info" | "warn", msg: string) => void,
    private readonly probe: Probe | null = null,
  ) {}

  get interfaces(): string[] {
    return [...this.served.values()].map((i) => i.name);
  }

  get servedInterfaces(): ServedInterface[] {
    return [...this.served.values()].map(({ name, address, netmask, mac }) => ({ name, address, netmask, mac }));
  }

  /** Opens the sockets (throws with the reason when one cannot be opened) and starts listening. */
  start(ifaces: ServedInterface[]): void {
    try {
      for (const i of ifaces) {
        const fd = udpOnInterface(i.name, SERVER_PORT);
        this.served.set(fd, { ...i, fd, pool: new Pool(this.s, this.leases, this.held, i.address) });
      }
    } catch (e) {
      this.closeSockets();
      throw e;
    }
    const w = new Worker(workerUrl("dhcp/recv-worker.ts"));
    w.onmessage = (e: MessageEvent<Received | "stopped">) => {
      if (e.data !== "stopped") void this.handle(e.data);
    };
    const start: RecvStart = { fds: [...this.served.keys()], stop: this.stopFlag };
    w.postMessage(start);
    this.worker = w;
  }

  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) {
      Atomics.store(new Int32Array(this.stopFlag), 0, 1);
      await new Promise<void>((res) => {
        const t = setTimeout(res, 1000);
        w.addEventListener("message", (e) => e.data === "stopped" && (clearTimeout(t), res()));
      });
      w.terminate();
    }
    this.closeSockets();
  }

  private closeSockets() {
    for (const fd of this.served.keys()) closeFd(fd);
    this.served.clear();
  }

  /** One request; anything malformed, or not for us, gets no answer and changes nothing. */
  async handle(m: Received): Promise<void> {
    const iface = this.served.get(m.fd);
    if (!iface || m.port !== CLIENT_PORT) return;
    const req = parseRequest(m.data);
    if (!req || this.ownXids.has(req.xid)) return;
    try {
      switch (req.type) {
        case MSG.DISCOVER:
          this.counters.discover++;
          return await this.discover(iface, req);
        case MSG.REQUEST:
          this.counters.request++;
          return await this.request(iface, req);
        case MSG.DECLINE:
          this.counters.decline++;
          return this.decline(iface, req);
        case MSG.RELEASE:
          this.counters.release++;
          return this.release(req);
        case MSG.INFORM:
          this.counters.inform++;
          return this.inform(iface, req);
      }
    } catch (e) {
      this.log("warn", `DHCP: ${(e as Error).message}`);
    }
  }

  private event(msg: string) {
    if (this.s.logging) this.log("info", `DHCP: ${msg}`);
  }

  private async discover(iface: Served, req: DhcpRequest) {
    const clientId = clientIdString(req);
    const requested = optIp(req, OPT.REQUESTED_IP);
    const tried = new Set<number>();
    for (let attempt = 0; attempt < 4; attempt++) {
      const ip = iface.pool.choose(req.mac, clientId, requested, tried);
      if (ip === null) break;
      const current = this.leases.findClient(req.mac, clientId);
      // a client's own current address is not probed: it is the one answering
      if (this.probe && current?.ip !== ip && (await this.probe(iface, ip))) {
        this.held.conflict(ip);
        this.log("warn", `DHCP: ${numberToIp(ip)} is in use on ${iface.name} but not leased; not offering it`);
        tried.add(ip);
        continue;
      }
      if (this.s.rapidCommit && req.options.has(OPT.RAPID_COMMIT)) {
        await this.grant(iface, req, ip);
        return this.send(iface, req, MSG.ACK, ip, [
          ...this.leaseOptions(iface, req),
          [OPT.RAPID_COMMIT, new Uint8Array(0)],
        ]);
      }
      this.held.offer(ip, req.mac);
      this.counters.offer++;
      this.event(`DHCPOFFER(${iface.name}) ${numberToIp(ip)} ${req.mac}`);
      return this.send(iface, req, MSG.OFFER, ip, this.leaseOptions(iface, req));
    }
    this.counters.noanswer++;
    this.log("warn", `DHCP: no address available on ${iface.name} for ${req.mac}`);
  }

  private async request(iface: Served, req: DhcpRequest) {
    const clientId = clientIdString(req);
    const serverId = optIp(req, OPT.SERVER_ID);
    const requested = optIp(req, OPT.REQUESTED_IP);
    if (serverId !== null && serverId !== iface.address) {
      // the client took another server's offer
      if (requested !== null) this.held.dropOffer(requested);
      return;
    }
    const ip = requested ?? req.ciaddr;
    if (!ip) return;
    if (!iface.pool.acceptable(ip, req.mac, clientId)) {
      this.counters.nak++;
      this.event(`DHCPNAK(${iface.name}) ${numberToIp(ip)} ${req.mac}`);
      return this.send(iface, req, MSG.NAK, 0, [[OPT.MESSAGE, text("address not available")]]);
    }
    await this.grant(iface, req, ip);
    this.send(iface, req, MSG.ACK, ip, this.leaseOptions(iface, req));
  }

  /** Records the lease; resolves once it is on disk. */
  private grant(iface: Served, req: DhcpRequest, ip: number): Promise<void> {
    const reserved = iface.pool.reservationFor(req.mac);
    const seconds = reserved?.leaseTime ?? this.s.leaseTime;
    const lease: Lease = {
      ip,
      mac: req.mac,
      hostname: reserved?.name ?? cleanHostname(optText(req, OPT.HOSTNAME)) ?? "*",
      clientId: clientIdString(req),
      expires: seconds === 0 ? 0 : nowSecs() + seconds,
    };
    const had = this.leases.get(ip);
    if (!had || had.mac !== lease.mac) this.counters.leases.allocated_4++;
    this.held.dropOffer(ip);
    this.leases.put(lease);
    this.counters.ack++;
    this.event(`DHCPACK(${iface.name}) ${numberToIp(ip)} ${req.mac} ${lease.hostname}`);
    return this.leases.committed();
  }

  private decline(iface: Served, req: DhcpRequest) {
    const ip = optIp(req, OPT.REQUESTED_IP);
    if (ip === null || optIp(req, OPT.SERVER_ID) !== iface.address) return;
    const l = this.leases.get(ip);
    if (l && l.mac !== req.mac) return;
    this.held.conflict(ip);
    if (l) this.leases.remove(ip);
    this.log("warn", `DHCP: ${req.mac} declined ${numberToIp(ip)} (in use by another device)`);
  }

  private release(req: DhcpRequest) {
    const l = this.leases.get(req.ciaddr);
    if (!l || l.mac !== req.mac) return;
    this.leases.remove(req.ciaddr);
    this.event(`DHCPRELEASE ${numberToIp(req.ciaddr)} ${req.mac}`);
  }

  private inform(iface: Served, req: DhcpRequest) {
    if (!req.ciaddr) return;
    this.counters.ack++;
    this.send(iface, req, MSG.ACK, 0, this.networkOptions(iface));
  }

  private networkOptions(iface: Served): ReplyOption[] {
    const mask = this.s.netmask ?? iface.netmask;
    const dns = this.s.multiDNS ? [iface.address, iface.address, iface.address] : [iface.address];
    const opts: ReplyOption[] = [
      [OPT.SUBNET_MASK, u32(mask)],
      [OPT.ROUTER, u32(this.s.router ?? iface.address)],
      [OPT.DNS, ips(dns)],
      [OPT.BROADCAST, u32((iface.address | ~mask) >>> 0)],
    ];
    if (this.s.domain) opts.push([OPT.DOMAIN, text(this.s.domain)]);
    return opts;
  }

  private leaseOptions(iface: Served, req: DhcpRequest): ReplyOption[] {
    const seconds = iface.pool.reservationFor(req.mac)?.leaseTime ?? this.s.leaseTime;
    const times: ReplyOption[] =
      seconds === 0
        ? [[OPT.LEASE_TIME, u32(0xffffffff)]]
        : [
            [OPT.LEASE_TIME, u32(seconds)],
            [OPT.RENEWAL, u32(Math.floor(seconds / 2))],
            [OPT.REBINDING, u32(Math.floor((seconds * 7) / 8))],
          ];
    const name = iface.pool.reservationFor(req.mac)?.name;
    const opts = [...times, ...this.networkOptions(iface)];
    if (name) opts.push([OPT.HOSTNAME, text(name)]);
    return opts;
  }

  /** RFC 2131 §4.1: to the relay, else to the client's address when it has one, else broadcast. */
  private send(iface: Served, req: DhcpRequest, type: number, yiaddr: number, opts: ReplyOption[]) {
    const reply = buildReply(req, type, yiaddr, iface.address, opts);
    let dest = BROADCAST;
    let port = CLIENT_PORT;
    if (req.giaddr) (dest = req.giaddr), (port = SERVER_PORT);
    else if (type !== MSG.NAK && req.ciaddr && !(req.flags & FLAG_BROADCAST)) dest = req.ciaddr;
    // a client without an address cannot take unicast until we could fill the ARP table: broadcast
    if (!sendTo(iface.fd, reply, dest, port))
      this.log("warn", `DHCP: sending to ${numberToIp(dest)} on ${iface.name} failed`);
  }
}

/** The first label of a client's host name, as DNS allows it; null when nothing usable is left. */
function cleanHostname(name: string | null): string | null {
  if (!name) return null;
  const label = name
    .split(".")[0]!
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63);
  return label || null;
}
