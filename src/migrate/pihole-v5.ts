// Pi-hole v5's settings files as Pi-hole v6 reads them when it upgrades (FTL's legacy reader of
// setupVars.conf and pihole-FTL.conf): each key Moat has a setting for is carried, the rest is named.
import { addToList, setSetting, type Plan } from "./plan.ts";

/** KEY=VALUE lines (quotes removed); later lines win, as when the shell sources the file. */
function keyValues(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    out.set(
      line.slice(0, eq).trim(),
      line
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .replace(/^'(.*)'$/, "$1"),
    );
  }
  return out;
}

const same = (v: string) => v;
const upper = (v: string) => v.toUpperCase();
const bool = (v: string) => v.toLowerCase() === "true" || v === "1" || v.toLowerCase() === "yes";

/** setupVars.conf key -> [setting, how its value becomes the setting's] */
const SETUPVARS: Record<string, [string, (v: string) => unknown]> = {
  BLOCKING_ENABLED: ["dns.blocking.active", bool],
  QUERY_LOGGING: ["dns.queryLogging", bool],
  DNS_FQDN_REQUIRED: ["dns.domainNeeded", bool],
  DNS_BOGUS_PRIV: ["dns.bogusPriv", bool],
  DNSSEC: ["dns.dnssec", bool],
  DNSMASQ_LISTENING: [
    "dns.listeningMode",
    (v) => (v === "single" ? "SINGLE" : v === "bind" ? "BIND" : v === "all" ? "ALL" : "LOCAL"),
  ],
  PIHOLE_INTERFACE: ["dns.interface", same],
  PIHOLE_DOMAIN: ["dns.domain.name", same],
  DHCP_ACTIVE: ["dhcp.active", bool],
  DHCP_START: ["dhcp.start", same],
  DHCP_END: ["dhcp.end", same],
  DHCP_ROUTER: ["dhcp.router", same],
  // hours in v5; 0 meant infinite
  DHCP_LEASETIME: ["dhcp.leaseTime", (v) => (v === "0" ? "infinite" : `${v}h`)],
  DHCP_IPv6: ["dhcp.ipv6", bool],
  DHCP_rapid_commit: ["dhcp.rapidCommit", bool],
  WEBPASSWORD: ["webserver.api.pwhash", same],
  WEBTHEME: ["webserver.interface.theme", same],
  WEBUIBOXEDLAYOUT: ["webserver.interface.boxed", (v) => v === "boxed"],
};
/** setupVars.conf keys that describe the old machine or installer, not a setting to carry */
const SETUPVARS_IGNORED = new Set([
  "IPV4_ADDRESS",
  "IPV6_ADDRESS",
  "INSTALL_WEB_SERVER",
  "INSTALL_WEB_INTERFACE",
  "LIGHTTPD_ENABLED",
  "CACHE_SIZE",
  "ADMIN_EMAIL",
  "API_EXCLUDE_DOMAINS",
  "API_EXCLUDE_CLIENTS",
  "API_QUERY_LOG_SHOW",
  "API_PRIVACY_MODE",
  "TEMPERATUREUNIT",
  "WEBUI_BOXED_LAYOUT",
]);

export function setupVars(plan: Plan, text: string): number {
  const kv = keyValues(text);
  let n = 0;
  const from = (k: string) => `setupVars.conf ${k}`;
  const upstreams: string[] = [];
  const revKeys = ["REV_SERVER", "REV_SERVER_CIDR", "REV_SERVER_TARGET", "REV_SERVER_DOMAIN"];
  const oldCf = [
    "CONDITIONAL_FORWARDING",
    "CONDITIONAL_FORWARDING_IP",
    "CONDITIONAL_FORWARDING_DOMAIN",
    "CONDITIONAL_FORWARDING_REVERSE",
  ];
  for (const [k, v] of kv) {
    const m = /^PIHOLE_DNS_(\d+)$/.exec(k);
    if (m) {
      if (v) upstreams[Number(m[1])] = v;
      continue;
    }
    const map = SETUPVARS[k];
    if (map) {
      if (k === "WEBPASSWORD" && v === "") continue;
      if (setSetting(plan, map[0], map[1](v), from(k))) n++;
    } else if (k === "CACHE_SIZE") {
      if (setSetting(plan, "dns.cache.size", Number(v), from(k))) n++;
    } else if (!revKeys.includes(k) && !oldCf.includes(k) && !SETUPVARS_IGNORED.has(k) && v !== "")
      plan.notCarried.push({ item: from(k), why: "Moat has no such setting" });
  }
  const ups = upstreams.filter(Boolean);
  if (ups.length && addToList(plan, "dns.upstreams", ups, "setupVars.conf PIHOLE_DNS_*") > 0) n++;
  // conditional forwarding, in its v5.3+ spelling and the older one
  if (bool(kv.get("REV_SERVER") ?? "") && kv.get("REV_SERVER_CIDR") && kv.get("REV_SERVER_TARGET")) {
    const d = kv.get("REV_SERVER_DOMAIN");
    n += addToList(
      plan,
      "dns.revServers",
      [`true,${kv.get("REV_SERVER_CIDR")},${kv.get("REV_SERVER_TARGET")}${d ? `,${d}` : ""}`],
      "setupVars.conf REV_SERVER",
    );
  } else if (bool(kv.get("CONDITIONAL_FORWARDING") ?? "") && kv.get("CONDITIONAL_FORWARDING_IP")) {
    const ip = kv.get("CONDITIONAL_FORWARDING_IP")!;
    // the old setting named no network: Pi-hole's upgrade took the router's /24
    const net = `${ip.split(".").slice(0, 3).join(".")}.0/24`;
    const d = kv.get("CONDITIONAL_FORWARDING_DOMAIN");
    n += addToList(
      plan,
      "dns.revServers",
      [`true,${net},${ip}${d ? `,${d}` : ""}`],
      "setupVars.conf CONDITIONAL_FORWARDING",
    );
  }
  return n;
}

/** pihole-FTL.conf key -> [setting, conversion] */
const FTLCONF: Record<string, [string, (v: string) => unknown]> = {
  BLOCKINGMODE: ["dns.blocking.mode", (v) => (v === "IP-NODATA-AAAA" ? "IP_NODATA_AAAA" : v)],
  MAXDBDAYS: ["database.maxDBdays", Number],
  DBINTERVAL: ["database.DBinterval", (v) => Math.round(Number(v) * 60)],
  DBIMPORT: ["database.DBimport", bool],
  LOCAL_IPV4: ["dns.reply.host.IPv4", same],
  LOCAL_IPV6: ["dns.reply.host.IPv6", same],
  BLOCK_IPV4: ["dns.reply.blocking.IPv4", same],
  BLOCK_IPV6: ["dns.reply.blocking.IPv6", same],
  CNAME_DEEP_INSPECT: ["dns.CNAMEdeepInspect", bool],
  BLOCK_ESNI: ["dns.blockESNI", bool],
  EDNS0_ECS: ["dns.EDNS0ECS", bool],
  IGNORE_LOCALHOST: ["dns.ignoreLocalhost", bool],
  SHOW_DNSSEC: ["dns.showDNSSEC", bool],
  ANALYZE_ONLY_A_AND_AAAA: ["dns.analyzeOnlyAandAAAA", bool],
  PIHOLE_PTR: ["dns.piholePTR", upper],
  REPLY_WHEN_BUSY: ["dns.replyWhenBusy", upper],
  BLOCK_TTL: ["dns.blockTTL", Number],
  MOZILLA_CANARY: ["dns.specialDomains.mozillaCanary", bool],
  BLOCK_ICLOUD_PR: ["dns.specialDomains.iCloudPrivateRelay", bool],
  RESOLVE_IPV4: ["resolver.resolveIPv4", bool],
  RESOLVE_IPV6: ["resolver.resolveIPv6", bool],
  REFRESH_HOSTNAMES: ["resolver.refreshNames", upper],
  PARSE_ARP_CACHE: ["database.network.parseARPcache", bool],
  MAXNETAGE: ["database.network.expire", Number],
};

export function ftlConf(plan: Plan, text: string): number {
  let n = 0;
  for (const [k, v] of keyValues(text)) {
    const from = `pihole-FTL.conf ${k}`;
    if (k === "RATE_LIMIT") {
      const [count, interval] = v.split("/");
      if (
        setSetting(plan, "dns.rateLimit.count", Number(count), from) &&
        setSetting(plan, "dns.rateLimit.interval", Number(interval), from)
      )
        n++;
      continue;
    }
    const map = FTLCONF[k];
    if (!map) {
      plan.notCarried.push({ item: from, why: "Moat has no such setting" });
      continue;
    }
    if (setSetting(plan, map[0], map[1](v), from)) n++;
    if (k === "LOCAL_IPV4" || k === "LOCAL_IPV6")
      plan.settings.set(`dns.reply.host.force${k.endsWith("4") ? 4 : 6}`, true);
    if (k === "BLOCK_IPV4" || k === "BLOCK_IPV6")
      plan.settings.set(`dns.reply.blocking.force${k.endsWith("4") ? 4 : 6}`, true);
  }
  return n;
}
