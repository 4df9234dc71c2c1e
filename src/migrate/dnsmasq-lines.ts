// The dnsmasq lines of a Pi-hole install Moat has a setting for: local records (custom.list,
// `address=`, `host-record=`), CNAMEs (`cname=`, 05-pihole-custom-cname.conf), static leases
// (`dhcp-host=`, 04-pihole-static-dhcp.conf) and per-domain servers (`server=/domain/ip`, which become
// conditional forwarding as Pi-hole's REV_SERVER does). Any other line is named in the report.
import { addToList, type Plan } from "./plan.ts";
import { perDomainServer } from "./per-domain.ts";

/** custom.list / a hosts file: "IP NAME [NAME...]" lines into dns.hosts; the number taken. */
export function hostsLines(plan: Plan, text: string, from: string): number {
  const lines = text
    .split("\n")
    .map((l) => l.replace(/#.*/, "").trim())
    .filter(Boolean)
    .map((l) => l.split(/\s+/).join(" "));
  return addToList(plan, "dns.hosts", lines, from);
}

export interface DnsmasqCounts {
  hosts: number;
  cnames: number;
  leases: number;
  servers: number;
}

/** Lines of a dnsmasq.d file; what Moat cannot express is reported, one line each. */
export function dnsmasqLines(plan: Plan, text: string, from: string): DnsmasqCounts {
  const n: DnsmasqCounts = { hosts: 0, cnames: 0, leases: 0, servers: 0 };
  for (const raw of text.split("\n")) {
    // only whole lines are comments: "#" also separates a server's port
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    const key = eq < 0 ? line : line.slice(0, eq).trim();
    const value = eq < 0 ? "" : line.slice(eq + 1).trim();
    if (key === "cname") {
      // cname=<alias>[,<alias>...],<target>[,<ttl>]: Moat's dns.cnameRecords entry is the same text
      n.cnames += addToList(plan, "dns.cnameRecords", [value], from);
    } else if (key === "dhcp-host") {
      n.leases += addToList(plan, "dhcp.hosts", [value], from);
    } else if (key === "address" || key === "host-record") {
      const rec = key === "address" ? /^\/([^/]+)\/([0-9a-fA-F:.]+)$/.exec(value) : null;
      const parts = key === "host-record" ? value.split(",") : [];
      if (rec) n.hosts += addToList(plan, "dns.hosts", [`${rec[2]} ${rec[1]}`], from);
      else if (parts.length >= 2 && /^[0-9a-fA-F:.]+$/.test(parts.at(-1)!))
        n.hosts += addToList(plan, "dns.hosts", [`${parts.at(-1)} ${parts.slice(0, -1).join(" ")}`], from);
      else
        plan.notCarried.push({
          item: `${from}: ${line}`,
          why: "only a single name to a single address is a local record in Moat",
        });
    } else if (key === "server") {
      const m = /^\/(.+)\/(.+)$/.exec(value);
      const why = m ? perDomainServer(plan, m[1]!, [m[2]!]) : "an upstream for every name: set it in dns.upstreams";
      if (why === null) n.servers++;
      else plan.notCarried.push({ item: `${from}: ${line}`, why });
    } else plan.notCarried.push({ item: `${from}: ${line}`, why: "a dnsmasq option Moat has no setting for" });
  }
  return n;
}
