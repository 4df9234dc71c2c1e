// GET /api/padd: everything the PADD console dashboard reads, in one call.
import { Elysia, t } from "elysia";
import type { Runtime } from "../../core/runtime.ts";
import { gateways, interfaces } from "../../stats/network.ts";
import { hostInfo, processUsage, sensorsInfo, systemInfo } from "../../stats/system.ts";
import { topN } from "../../stats/window.ts";
import { boolParam, liveStats } from "../stats/params.ts";
import { gravityCount } from "../stats/routes.ts";
import { dnsCounters } from "../../stats/dns-view.ts";

/** Bytes → PADD's {value, unit} with binary prefixes. */
function human(bytes: number | null): { value: number; unit: string } | null {
  if (bytes === null) return null;
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return { value: Math.round(v * 10) / 10, unit: units[i]! };
}

function ifaceSummary(family: "inet" | "inet6") {
  const gw = gateways().find((g) => g.family === family);
  const ifs = interfaces();
  const it = ifs.find((i) => i.name === gw?.interface) ?? ifs.find((i) => i.type !== "loopback" && i.addresses.some((a) => a.family === family));
  const addrs = it?.addresses.filter((a) => a.family === family) ?? [];
  return {
    addr: addrs[0]?.address ?? null,
    num_addrs: addrs.length,
    name: it?.name ?? null,
    gw_addr: gw?.address ?? null,
    rx_bytes: human(it?.stats.rx_bytes ?? null),
    tx_bytes: human(it?.stats.tx_bytes ?? null),
  };
}

export function paddRoutes(rt: Runtime) {
  return new Elysia({ name: "padd" }).get(
    "/padd",
    ({ query }) => {
      const w = liveStats(rt).window;
      const full = boolParam(query.full, true);
      const cfg = rt.config.current;
      const sys = systemInfo();
      const use = processUsage();
      const topDomain = topN(w.domains, 1, (x) => x.count - x.blocked)[0]?.[0] ?? null;
      const topBlocked = topN(w.domains, 1, (x) => x.blocked)[0]?.[0] ?? null;
      const topClient = topN(w.clients, 1, (x) => x.count)[0]?.[0] ?? null;
      const cache = dnsCounters(rt)?.cache;
      const host = hostInfo();
      const sensors = sensorsInfo(cfg.webserver.api.temp.unit);
      const base = {
        recent_blocked: w.recentBlockedDomains(1)[0] ?? null,
        top_domain: topDomain,
        top_blocked: topBlocked,
        top_client: topClient,
        active_clients: w.clients.size,
        gravity_size: gravityCount(rt),
        blocking: rt.blocking.active ? "enabled" : "disabled",
        queries: { total: w.total, blocked: w.blocked, percent_blocked: w.total ? (100 * w.blocked) / w.total : 0 },
        cache: { size: cache?.size ?? null, inserted: cache?.inserted ?? null, evicted: cache?.evicted ?? null },
        "%cpu": use["%cpu"],
        "%mem": use["%mem"],
        pid: process.pid,
      };
      if (!full) return base;
      return {
        ...base,
        iface: { v4: ifaceSummary("inet"), v6: ifaceSummary("inet6") },
        node_name: host.uname.nodename,
        host_model: host.model,
        config: {
          dhcp_active: cfg.dhcp.active,
          dhcp_start: null,
          dhcp_end: null,
          dhcp_ipv6: false,
          dns_domain: cfg.dns.domain.name,
          dns_port: cfg.dns.port,
          dns_num_upstreams: cfg.dns.upstreams.length,
          dns_dnssec: cfg.dns.dnssec,
          dns_revServer_active: cfg.dns.revServers.length > 0,
        },
        sensors: { cpu_temp: sensors.cpu_temp, hot_limit: sensors.hot_limit, unit: sensors.unit },
        system: { uptime: sys.uptime, memory: { ram: sys.memory.ram, swap: sys.memory.swap }, cpu: sys.cpu },
        version: { core: { local: { version: rt.version.version, hash: rt.version.commit } }, web: { local: { version: rt.version.version, hash: rt.version.commit } }, ftl: { local: { version: rt.version.version, hash: rt.version.commit, date: rt.version.date } } },
      };
    },
    {
      query: t.Object({ full: t.Optional(t.String({ description: "false: only the fast-changing numbers" })) }),
      detail: { tags: ["PADD"], summary: "Everything the PADD dashboard shows, in one call" },
    },
  );
}
