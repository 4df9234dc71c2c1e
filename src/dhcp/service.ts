// The DHCP service as `moat serve` runs it: the lease database (always, so the API and DNS see the
// leases), and the DHCPv4 server while `dhcp.active` is on, restarted when a dhcp.* setting
// changes. An interface that holds the pool's network may come up late: it is looked for again.
import type { Runtime } from "../core/runtime.ts";
import { Messages } from "../messages/messages.ts";
import { newCounters, type DhcpCounters } from "./counters.ts";
import { LeaseStore, leasesFile, type Lease } from "./leases.ts";
import { ipToNumber, numberToIp } from "./packet.ts";
import { DhcpServer, type Probe } from "./server.ts";
import { dhcpSettings, interfacesForPool } from "./settings.ts";
import { pingProbe } from "./probe.ts";
import { otherDhcpServers } from "./detect.ts";
import { RouterAdvertiser } from "./ra.ts";

/** What the API and the statistics read. */
export interface DhcpHandle {
  leases(): Lease[];
  /** removes the lease of an IPv4 address (resolves once the file says so); false when there is none */
  remove(ip: string): Promise<boolean>;
  counters: DhcpCounters;
  /** the interfaces served right now (empty while DHCP is off) */
  interfaces(): string[];
  /**
   * Asks the network of a range (default: the saved dhcp.start-dhcp.end) now, also while DHCP is off,
   * whether another DHCP server answers; takes about five seconds. A string: why it cannot ask.
   */
  detect(range?: { start: string; end: string }): Promise<DetectResult | string>;
}

interface DetectResult {
  /** the interfaces asked (those whose IPv4 network holds the range) */
  interfaces: string[];
  servers: Array<{ interface: string; address: string }>;
}

const rivalText = (ifname: string, others: string[]) =>
  `Another DHCP server answers on ${ifname}: ${others.join(", ")}. Two DHCP servers on one network hand out conflicting addresses: switch one of them off.`;

const RETRY_MS = 10_000;
const PRUNE_MS = 60_000;

export function startDhcpService(
  rt: Pick<Runtime, "config" | "paths" | "queryDb" | "events" | "log">,
  probe: Probe | null = pingProbe,
): { handle: DhcpHandle; stop(): Promise<void> } {
  const store = new LeaseStore(leasesFile(rt.paths.dataDir));
  // DNS answers the clients' names; a name changes only with a lease, so tell it on each change
  let lastNames = "";
  store.onChange = () => {
    const names = store
      .all()
      .filter((l) => l.hostname !== "*")
      .map((l) => ({ ip: numberToIp(l.ip), name: l.hostname }));
    const key = JSON.stringify(names);
    if (key !== lastNames) void rt.events.emit("dhcp-names-changed", { names });
    lastNames = key;
  };
  store.load();
  const counters = newCounters();
  let server: DhcpServer | null = null;
  let advertisers: RouterAdvertiser[] = [];
  let retry: ReturnType<typeof setTimeout> | null = null;
  let lastProblem = "";
  let chain = Promise.resolve();

  const problem = (msg: string) => {
    if (msg !== lastProblem) rt.log("warn", `DHCP: ${msg}`);
    lastProblem = msg;
  };

  const open = () => {
    retry = null;
    const c = rt.config.current;
    if (!c.dhcp.active) return;
    const s = dhcpSettings(c, (m) => rt.log("warn", m));
    if (typeof s === "string") return problem(`not serving: ${s}`);
    const ifaces = interfacesForPool(s);
    if (!ifaces.length) {
      problem(`not serving yet: no interface has an IPv4 network holding ${c.dhcp.start}-${c.dhcp.end}`);
      retry = setTimeout(open, RETRY_MS);
      return;
    }
    const srv = new DhcpServer(s, store, counters, rt.log, probe);
    try {
      srv.start(ifaces);
    } catch (e) {
      problem(`not serving: ${(e as Error).message}`);
      retry = setTimeout(open, RETRY_MS);
      return;
    }
    server = srv;
    lastProblem = "";
    rt.log("info", `DHCP: serving ${c.dhcp.start}-${c.dhcp.end} on ${srv.interfaces.join(", ")}`);
    void lookForRivals(srv);
    if (c.dhcp.ipv6) startAdvertising(srv, c.dns.domain.name, c.dhcp.multiDNS);
  };

  /** dhcp.ipv6: router advertisements naming Moat as the DNS server, on the same interfaces */
  const startAdvertising = (srv: DhcpServer, domain: string, multiDNS: boolean) => {
    for (const iface of srv.servedInterfaces) {
      const ra = new RouterAdvertiser({ ifname: iface.name, mac: iface.mac, domain, multiDNS }, rt.log);
      try {
        ra.start();
        advertisers.push(ra);
      } catch (e) {
        rt.log("warn", `IPv6 RA: not advertising on ${iface.name}: ${(e as Error).message}`);
      }
    }
  };

  const messages = new Messages(rt.queryDb);
  /** Pi-hole warns when it is not the only DHCP server: so do we, in the log and the API's messages. */
  const lookForRivals = async (srv: DhcpServer) => {
    for (const iface of srv.servedInterfaces) {
      const others = await otherDhcpServers(iface, srv.ownXids);
      if (!others?.length || server !== srv) continue;
      reportRivals(iface.name, others);
    }
  };
  const reportRivals = (ifname: string, others: string[]) => {
    const text = rivalText(ifname, others);
    rt.log("warn", `DHCP: ${text}`);
    try {
      // one message per finding, with the time of the newest check
      messages.clear("DNSMASQ_WARN", text);
      messages.raise("DNSMASQ_WARN", text, ifname, others.join(","));
    } catch {
      // the log line stays
    }
  };

  let probing: { key: string; result: Promise<DetectResult | string> } | null = null;
  const detect = async (range?: { start: string; end: string }): Promise<DetectResult | string> => {
    const c = rt.config.current;
    const s = dhcpSettings(range ? { ...c, dhcp: { ...c.dhcp, ...range } } : c, () => {});
    if (typeof s === "string") return s;
    const ifaces = interfacesForPool(s);
    if (!ifaces.length) return `no interface has an IPv4 network holding ${numberToIp(s.start)}-${numberToIp(s.end)}`;
    const result: DetectResult = { interfaces: [], servers: [] };
    for (const iface of ifaces) {
      // with our server running, its own transaction ids keep it from answering the probe
      const others = await otherDhcpServers(iface, server?.ownXids ?? new Set());
      if (others === null) continue;
      result.interfaces.push(iface.name);
      for (const address of others) result.servers.push({ interface: iface.name, address });
      if (others.length) reportRivals(iface.name, others);
    }
    return result.interfaces.length ? result : "port 68 is in use on every interface of the range";
  };

  const close = async () => {
    if (retry) clearTimeout(retry), (retry = null);
    for (const ra of advertisers) ra.stop();
    advertisers = [];
    const s = server;
    server = null;
    if (s) await s.stop();
  };

  /** restarts are queued so two quick changes never open the sockets twice */
  const restart = () => (chain = chain.then(close).then(open));

  const unsubscribe = rt.config.subscribe((_next, _prev, changed) => {
    if (changed.some((p) => p.startsWith("dhcp.") || p === "dns.domain.name")) void restart();
  });
  const offEvent = rt.events.on("dhcp-leases-changed", () => store.load());
  const pruner = setInterval(() => (counters.leases.pruned_4 += store.prune()), PRUNE_MS);
  open();

  const handle: DhcpHandle = {
    leases: () => store.all(),
    remove: async (ip) => {
      const removed = store.remove(ipToNumber(ip));
      await store.committed();
      return removed;
    },
    counters,
    interfaces: () => server?.interfaces ?? [],
    // one probe at a time (each holds port 68 for five seconds); a second ask for the same range shares it
    detect: (range) => {
      const key = JSON.stringify(range ?? null);
      if (probing?.key === key) return probing.result;
      const result: Promise<DetectResult | string> = (probing?.result ?? Promise.resolve(""))
        .catch(() => "")
        .then(() => detect(range))
        .finally(() => {
          if (probing?.result === result) probing = null;
        });
      probing = { key, result };
      return result;
    },
  };
  return {
    handle,
    async stop() {
      unsubscribe();
      offEvent();
      clearInterval(pruner);
      await chain;
      await close();
      await store.committed();
    },
  };
}
