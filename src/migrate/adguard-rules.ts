// AdGuard Home's user rules and rewrites. The user rules become Moat's custom rules as they are (Moat reads
// AdGuard's rule syntax: src/filter/rule-syntax.ts); a rule Moat does not apply is named in the report with why.
// A rewrite becomes a local record or CNAME.
import { isIP } from "node:net";
import { isHostname } from "../config/host-port.ts";
import { parseRule } from "../filter/rule-syntax.ts";
import { addToList, plural, type Plan } from "./plan.ts";

/** The user rules as the custom rules; the number Moat applies. */
export function userRules(plan: Plan, rules: readonly unknown[]): number {
  const lines = rules.map((r) => String(r));
  let applied = 0;
  for (const line of lines) {
    const p = parseRule(line);
    if (p === null) continue;
    if ("unsupported" in p) plan.notCarried.push({ item: `user rule ${line.trim()}`, why: p.unsupported });
    else applied++;
  }
  if (lines.length) {
    plan.customRules = lines;
    plan.carried.push(`${plural(applied, "user rule")} (as the custom rules, AdGuard's syntax)`);
  }
  return applied;
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
