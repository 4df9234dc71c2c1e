// GET /api/padd: everything the PADD console dashboard reads, in one call. `?full=false` (PADD's
// refresh between full redraws) leaves out only the interfaces and the versions.
import { Ipv4, Ipv6 } from "../core/address.ts";
import { t, type Static } from "elysia";
import { queryReads } from "../core/query-reads.ts";
import type { ApiDeps } from "../deps.ts";
import { gateways, interfaces, siSize } from "../../host/interfaces.ts";
import { hostInfo, processUsage, sensorsInfo, systemInfo } from "../../host/system.ts";
import { TopList, topDomains, topN } from "../../stats/topn.ts";
import { boolParam, liveStats } from "../stats/params.ts";
import { gravityCount } from "../stats/routes.ts";
import { dnsCounters } from "../core/dns-counters.ts";
import { VersionReply, versionInfo } from "../info/routes.ts";
import { documented } from "../docs/meta.ts";
import { SensorsReply, SystemReply } from "../info/machine.ts";

const NullableString = t.Union([t.String(), t.Null()]);
const Size = t.Object({ value: t.Number(), unit: t.String({ description: 'SI prefix: "", "K", "M", "G", …' }) });
const iface = (ip: typeof Ipv4) => ({
  addr: t.Union([ip(), t.Null()], { description: "first address of the family, null when there is none" }),
  num_addrs: t.Integer(),
  name: t.String({
    description:
      "interface of the default route (else the first with an address of the family); empty when there is none",
  }),
  gw_addr: t.Union([ip(), t.Null()]),
});

const Fast = {
  recent_blocked: NullableString,
  top_domain: NullableString,
  top_blocked: NullableString,
  top_client: NullableString,
  active_clients: t.Integer(),
  gravity_size: t.Integer(),
  blocking: t.String({ description: '"enabled" or "disabled"' }),
  queries: t.Object({ total: t.Integer(), blocked: t.Integer(), percent_blocked: t.Number() }),
  cache: t.Object({ size: t.Integer(), inserted: t.Integer(), evicted: t.Integer() }),
  node_name: t.String(),
  host_model: NullableString,
  config: t.Object({
    dhcp_active: t.Boolean(),
    dhcp_start: t.String(),
    dhcp_end: t.String(),
    dhcp_ipv6: t.Boolean(),
    dns_domain: t.String(),
    dns_port: t.Integer(),
    dns_num_upstreams: t.Integer(),
    dns_dnssec: t.Boolean(),
    dns_revServer_active: t.Boolean(),
    privacy_level: t.Integer(),
  }),
  "%cpu": t.Number({ description: "CPU of this process over the last ten seconds" }),
  "%mem": t.Number(),
  pid: t.Integer(),
  sensors: t.Object({ cpu_temp: SensorsReply.properties.cpu_temp, hot_limit: t.Number(), unit: t.String() }),
  system: SystemReply,
};
const PaddReply = t.Object({
  ...Fast,
  iface: t.Optional(
    t.Object(
      { v4: t.Object({ ...iface(Ipv4), rx_bytes: Size, tx_bytes: Size }), v6: t.Object(iface(Ipv6)) },
      { description: "left out with full=false" },
    ),
  ),
  version: t.Optional(VersionReply),
});

function ifaceSummary(family: "inet" | "inet6") {
  const gw = gateways().find((g) => g.family === family);
  const ifs = interfaces();
  const it =
    ifs.find((i) => i.name === gw?.interface) ??
    ifs.find((i) => i.type !== "loopback" && i.addresses.some((a) => a.family === family));
  const addrs = it?.addresses.filter((a) => a.family === family) ?? [];
  return {
    addr: addrs[0]?.address ?? null,
    num_addrs: addrs.length,
    name: it?.name ?? "",
    gw_addr: gw?.address ?? null,
    stats: it?.stats,
  };
}

export function paddRoutes(rt: ApiDeps) {
  return queryReads(rt, "padd").get(
    "/padd",
    async ({ query }) => {
      const w = liveStats(rt).window;
      // both lists in one pass over the day's names, a few milliseconds at a time
      const [topDomain = [], topBlocked = []] = await topDomains(w.domains, [
        new TopList(1, (x) => x.count - x.blocked),
        new TopList(1, (x) => x.blocked),
      ]);
      const cfg = rt.config.current;
      const cache = dnsCounters(rt)?.cache;
      const host = hostInfo();
      const sensors = sensorsInfo(cfg.webserver.api.temp.unit, cfg.webserver.api.temp.limit);
      const reply: Static<typeof PaddReply> = {
        recent_blocked: w.recentBlockedDomains(1)[0] ?? null,
        top_domain: topDomain[0]?.[0] ?? null,
        top_blocked: topBlocked[0]?.[0] ?? null,
        top_client: topN(w.clients, 1, (x) => x.count)[0]?.[0] ?? null,
        active_clients: w.clients.size,
        gravity_size: gravityCount(rt),
        blocking: rt.blocking.active ? "enabled" : "disabled",
        queries: { total: w.total, blocked: w.blocked, percent_blocked: w.total ? (100 * w.blocked) / w.total : 0 },
        cache: {
          size: cache?.size ?? cfg.dns.cache.size,
          inserted: cache?.inserted ?? 0,
          evicted: cache?.evicted ?? 0,
        },
        node_name: host.uname.nodename,
        host_model: host.model,
        config: {
          dhcp_active: cfg.dhcp.active,
          dhcp_start: cfg.dhcp.start,
          dhcp_end: cfg.dhcp.end,
          dhcp_ipv6: cfg.dhcp.ipv6,
          dns_domain: cfg.dns.domain.name,
          dns_port: cfg.dns.port,
          dns_num_upstreams: cfg.dns.upstreams.length,
          dns_dnssec: cfg.dns.dnssec,
          dns_revServer_active: cfg.dns.revServers.some((r) => r.split(",")[0]?.trim() === "true"),
          privacy_level: cfg.misc.privacylevel,
        },
        ...processUsage(cfg.misc.normalizeCPU),
        pid: process.pid,
        sensors: { cpu_temp: sensors.cpu_temp, hot_limit: sensors.hot_limit, unit: sensors.unit },
        system: systemInfo(cfg.misc.normalizeCPU),
      };
      if (boolParam(query.full, true)) {
        const v4 = ifaceSummary("inet");
        const v6 = ifaceSummary("inet6");
        reply.iface = {
          v4: {
            addr: v4.addr,
            num_addrs: v4.num_addrs,
            name: v4.name,
            gw_addr: v4.gw_addr,
            rx_bytes: v4.stats?.rx_bytes ?? siSize(0),
            tx_bytes: v4.stats?.tx_bytes ?? siSize(0),
          },
          v6: { addr: v6.addr, num_addrs: v6.num_addrs, name: v6.name, gw_addr: v6.gw_addr },
        };
        reply.version = versionInfo(rt);
      }
      return reply;
    },
    {
      query: t.Object({
        full: t.Optional(t.String({ description: "false: leave out the interfaces and the versions" })),
      }),
      // "%mem": for the reference only (docs/meta.ts, RouteDocs.reply)
      detail: documented(
        { tags: ["PADD"], summary: "Everything the PADD dashboard shows, in one call" },
        { reply: PaddReply },
      ),
    },
  );
}
