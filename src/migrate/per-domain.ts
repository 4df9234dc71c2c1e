// A per-domain upstream (dnsmasq's `server=/corp.example/10.0.0.1`, AdGuard Home's
// `[/corp.example/]10.0.0.1`) as the same entry of dns.upstreams (`[/corp.example/]10.0.0.1`,
// src/config/upstream-syntax.ts): the names under the domains go to these servers alone.
import { addToList, type Plan } from "./plan.ts";

/** null when carried, else why not. `servers`: in Moat's spelling (IP[#port], tls://, https://), or `#`. */
export function perDomainServer(plan: Plan, domains: string, servers: readonly string[]): string | null {
  const names = domains.split("/").filter(Boolean);
  if (!names.length || !servers.length) return "no domain or no server";
  const entry = `[/${names.join("/")}/]${servers.join(" ")}`;
  const before = (plan.settings.get("dns.upstreams") as string[] | undefined) ?? [];
  if (before.includes(entry)) return null;
  return addToList(plan, "dns.upstreams", [entry], "per-domain upstream") ? null : "the entry was refused (see above)";
}
