// AdGuard Home's user rules and rewrites as Moat's entries and local records. The forms with an exact
// Moat equivalent are carried: `||name^` (the name and every name below it: a deny regex, as Pi-hole's
// "wildcard" entries are), `@@||name^` (the same, allowed), `/regex/` and `@@/regex/`, hosts lines
// (`0.0.0.0 name`: that name exactly) and bare names. Anything with a modifier ($...) or another
// pattern is named in the report: part 4 of the AdGuard support, rule syntax in lists, is not this.
import { isIP } from "node:net";
import { isHostname } from "../config/host-port.ts";
import type { DomainType, ListsBuilder } from "./lists-builder.ts";
import { addToList, type Plan } from "./plan.ts";

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const subtree = (name: string) => `(^|\\.)${escapeRegex(name)}$`;

/** Each rule as an entry of `b`, linked to `groups`; the numbers carried per Pi-hole type. */
export function userRules(plan: Plan, b: ListsBuilder, rules: readonly unknown[], groups: readonly number[]): number {
  let n = 0;
  const add = (type: DomainType, domain: string, rule: string) => {
    if (b.domain(type, domain, { comment: `AdGuard Home rule ${rule}`, groups })) n++;
  };
  for (const raw of rules) {
    const rule = String(raw).trim();
    if (!rule || rule.startsWith("!") || rule.startsWith("#")) continue;
    const allow = rule.startsWith("@@");
    const body = allow ? rule.slice(2) : rule;
    const anchored = /^\|\|([a-z0-9.-]+)\^$/i.exec(body);
    const regex = /^\/(.+)\/$/.exec(body);
    const hosts = /^(\S+)\s+([a-z0-9.-]+)$/i.exec(body);
    if (anchored && isHostname(anchored[1]!)) add(allow ? 2 : 3, subtree(anchored[1]!.toLowerCase()), rule);
    else if (regex && validRegex(regex[1]!)) add(allow ? 2 : 3, regex[1]!, rule);
    else if (!allow && hosts && isIP(hosts[1]!) && isHostname(hosts[2]!)) add(1, hosts[2]!.toLowerCase(), rule);
    else if (isHostname(body) && body.includes(".")) add(allow ? 0 : 1, body.toLowerCase(), rule);
    else
      plan.notCarried.push({
        item: `user rule ${rule}`,
        why: body.includes("$")
          ? "a rule with modifiers ($...) is not an entry Moat has"
          : "AdGuard rule syntax Moat's entries cannot express",
      });
  }
  return n;
}

function validRegex(s: string): boolean {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

/** DNS rewrites: a name to an address is a local record, a name to a name a CNAME; the rest is named. */
export function rewrites(plan: Plan, list: readonly unknown[]): { records: number; cnames: number } {
  const n = { records: 0, cnames: 0 };
  for (const r of list) {
    const { domain, answer, enabled } = (r ?? {}) as { domain?: string; answer?: string; enabled?: boolean };
    const item = `rewrite ${domain} -> ${answer}`;
    if (typeof domain !== "string" || typeof answer !== "string") {
      plan.notCarried.push({ item, why: "not a rewrite (no domain or answer)" });
      continue;
    }
    if (enabled === false) plan.notCarried.push({ item, why: "turned off in AdGuard Home" });
    else if (domain.includes("*") && !/^\*\.[^*]+$/.test(domain))
      plan.notCarried.push({ item, why: "Moat's wildcard local records take one leading *. only (*.wild.lan)" });
    else if (isIP(answer)) n.records += addToList(plan, "dns.hosts", [`${answer} ${domain}`], item);
    else if (answer === "A" || answer === "AAAA")
      plan.notCarried.push({ item, why: "keeping the upstream's answer for one type is not a local record" });
    else if (isHostname(answer)) n.cnames += addToList(plan, "dns.cnameRecords", [`${domain},${answer}`], item);
    else plan.notCarried.push({ item, why: "the answer is neither an address nor a name" });
  }
  return n;
}

/** AdGuard's upstream spellings as Moat's, or why not. */
export function upstreamOf(s: string): string | { why: string } {
  const u = s.trim();
  if (/^(tls|https):\/\//.test(u)) return u;
  if (/^(quic|h3|sdns|tcp):\/\//.test(u))
    return { why: `${u.split(":")[0]} upstreams are not supported by Moat (plain, DoT and DoH are)` };
  const plain = u.replace(/^udp:\/\//, "");
  const v4 = /^(\d+\.\d+\.\d+\.\d+)(?::(\d+))?$/.exec(plain);
  if (v4) return v4[2] ? `${v4[1]}#${v4[2]}` : v4[1]!;
  const v6 = /^\[([0-9a-f:.]+)\](?::(\d+))?$/i.exec(plain);
  if (v6) return v6[2] ? `${v6[1]}#${v6[2]}` : v6[1]!;
  if (isIP(plain)) return plain;
  return { why: "not an upstream Moat can use (an address, tls:// or https://)" };
}
