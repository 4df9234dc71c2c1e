// A per-domain upstream (dnsmasq's `server=/corp.example/10.0.0.1`, AdGuard Home's
// `[/corp.example/]10.0.0.1`) as Moat's conditional forwarding: a dns.revServers entry whose domain is
// the name and whose server is the upstream. An entry needs a network too; the server's own address
// (a /32 or /128) is used, so the entry forwards no reverse lookup but the server's own.
import { isIP } from "node:net";
import { addToList, type Plan } from "./plan.ts";

/** null when carried, else why not. */
export function perDomainServer(plan: Plan, domains: string, server: string): string | null {
  const [ip, port] = server.split(/[#]/);
  // AdGuard writes a port as IP:port; an IPv6 address keeps its colons
  const v4port = /^(\d+\.\d+\.\d+\.\d+):(\d+)$/.exec(server);
  const addr = v4port ? v4port[1]! : ip!.replace(/^\[|\]$/g, "");
  const p = v4port ? v4port[2] : port;
  const fam = isIP(addr);
  if (!fam) return "Moat's conditional forwarding takes a plain DNS server (IP[#port]), not an encrypted one or a name";
  let ok = 0;
  const names = domains.split("/").filter(Boolean);
  for (const d of names) {
    const entry = `true,${addr}/${fam === 4 ? 32 : 128},${addr}${p ? `#${p}` : ""},${d.replace(/^\*\./, "")}`;
    ok += addToList(plan, "dns.revServers", [entry], `per-domain upstream [/${d}/]${server}`);
  }
  return ok === names.length ? null : "the entry was refused (see above)";
}
