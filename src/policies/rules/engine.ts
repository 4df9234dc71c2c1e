// The AdGuard-syntax rules of the lists and the custom rules, compiled for the DNS threads and judged as AdGuard
// Home's filter (urlfilter) decides a name: $badfilter removes the rules it names before anything; then a
// $dnsrewrite that applies answers (CNAME first, then an rcode, then the addresses, every one of the asked
// family; `@@…$dnsrewrite` disables them); then @@…$important allows, $important blocks, @@ allows, a rule
// blocks; a hosts line comes last (with every hosts line's address of the asked family for the name).
// Reference: https://adguard-dns.io/kb/general/dns-filtering-syntax/ (rule priorities).
import { RE2JS } from "re2js";
import { isIP } from "node:net";
import { inCidr, ipTo16, parseCidr, type Cidr } from "../../net/ip.ts";
import { badfilterTarget, type AdRule } from "../../filter/rule-syntax.ts";

/** A rule with where it came from: its list (0: the custom rules) and the groups it applies to (null: all). */
export interface SourcedRule {
  rule: AdRule;
  listId: number;
  groups: number[] | null;
}

/** Who asks: the address, the DoT/DoH client ID, the host name when known, and the client's groups. */
export interface Asker {
  ip: string;
  id: string | null;
  hostname: () => string | null;
  groups: Uint32Array;
  /** the group names of `groups` (a persistent client migrated from AdGuard Home is a group of its own) */
  groupNames: (groups: Uint32Array) => readonly string[];
}

export type Outcome =
  /** `all`: the address rewrites that answer together (two or more of the asked family, `r` first), in rule order */
  | { kind: "rewrite"; r: SourcedRule; all?: readonly SourcedRule[] }
  | { kind: "allow"; r: SourcedRule }
  | { kind: "block"; r: SourcedRule; important: boolean };

interface Compiled {
  s: SourcedRule;
  re: { test(name: string): boolean } | null;
  clients: { include: ClientId[]; exclude: ClientId[] } | null;
}

type ClientId = { cidr: Cidr } | { text: string };

function clientIds(list: string[]): ClientId[] {
  return list.map((t) => {
    const c = isIP(t) || /\/\d+$/.test(t) ? parseCidr(t) : null;
    return c ? { cidr: c } : { text: t.toLowerCase() };
  });
}

/** Drops the rules a $badfilter names (in any list) and the $badfilter rules themselves. */
export function withoutBadfiltered(rules: readonly SourcedRule[]): SourcedRule[] {
  const bad = new Set(rules.filter((r) => r.rule.badfilter).map((r) => badfilterTarget(r.rule.text)));
  return rules.filter((r) => !r.rule.badfilter && !bad.has(r.rule.text));
}

export class RuleEngine {
  private readonly exact = new Map<string, Compiled[]>();
  private readonly subtree = new Map<string, Compiled[]>();
  private readonly patterns: Compiled[] = [];
  private readonly hit: Compiled[] = [];
  /** all patterns as one alternation, or null when RE2 cannot take them as one */
  private readonly union: { test(name: string): boolean } | null;

  constructor(rules: readonly SourcedRule[]) {
    for (const s of rules) {
      const m = s.rule.match;
      let re: Compiled["re"] = null;
      if (m.kind === "regex") {
        let compiled: RE2JS;
        try {
          compiled = RE2JS.compile(m.source, RE2JS.CASE_INSENSITIVE);
        } catch {
          // parseRule refused a pattern RE2 cannot compile: none gets here
          continue;
        }
        re = compiled;
      }
      const c: Compiled = {
        s,
        re,
        clients: s.rule.clients
          ? { include: clientIds(s.rule.clients.include), exclude: clientIds(s.rule.clients.exclude) }
          : null,
      };
      if (m.kind === "regex") this.patterns.push(c);
      else {
        const map = m.kind === "exact" ? this.exact : this.subtree;
        const l = map.get(m.name);
        if (l) l.push(c);
        else map.set(m.name, [c]);
      }
    }
    this.union = unionOf(this.patterns.map((c) => (c.s.rule.match as { source: string }).source));
  }

  get size(): number {
    return this.exact.size + this.subtree.size + this.patterns.length;
  }

  /** The rules that apply to this name, type and client, into `this.hit` (reused). */
  private collect(name: string, qtype: number, who: Asker): Compiled[] {
    const hit = this.hit;
    hit.length = 0;
    this.take(this.exact.get(name), name, qtype, who);
    // the name and each parent: `||example.org^` holds for example.org and every name below it
    if (this.subtree.size > 0)
      for (let i = 0; ; ) {
        this.take(this.subtree.get(i === 0 ? name : name.slice(i)), name, qtype, who);
        const dot = name.indexOf(".", i);
        if (dot < 0) break;
        i = dot + 1;
      }
    // the patterns one by one only when their union matches (most names match none: one RE2 pass)
    if (this.patterns.length > 0 && (this.union === null || this.union.test(name)))
      for (const c of this.patterns) if (c.re!.test(name) && this.applies(c, name, qtype, who)) hit.push(c);
    return hit;
  }

  private take(l: Compiled[] | undefined, name: string, qtype: number, who: Asker): void {
    if (l) for (const c of l) if (this.applies(c, name, qtype, who)) this.hit.push(c);
  }

  private applies(c: Compiled, name: string, qtype: number, who: Asker): boolean {
    const r = c.s.rule;
    if (c.s.groups) {
      let any = false;
      for (const bit of c.s.groups) if (((who.groups[bit >>> 5] ?? 0) & (1 << (bit & 31))) !== 0) any = true;
      if (!any) return false;
    }
    if (r.dnstype) {
      if (r.dnstype.include.length && !r.dnstype.include.includes(qtype)) return false;
      if (r.dnstype.exclude.includes(qtype)) return false;
    }
    if (r.denyallow) for (const d of r.denyallow) if (name === d || name.endsWith(`.${d}`)) return false;
    if (c.clients) {
      if (c.clients.include.length && !c.clients.include.some((id) => this.isClient(id, who))) return false;
      if (c.clients.exclude.some((id) => this.isClient(id, who))) return false;
    }
    return true;
  }

  private isClient(id: ClientId, who: Asker): boolean {
    if ("cidr" in id) {
      const ip = ipTo16(who.ip);
      return ip !== null && inCidr(ip, id.cidr);
    }
    const t = id.text;
    if (who.id !== null && who.id.toLowerCase() === t) return true;
    if (who.hostname()?.toLowerCase() === t) return true;
    return who.groupNames(who.groups).some((g) => g.toLowerCase() === t);
  }

  /** The decision for one name, or null when no rule applies. */
  judge(name: string, qtype: number, who: Asker): Outcome | null {
    const hit = this.collect(name, qtype, who);
    if (hit.length === 0) return null;
    // $dnsrewrite first: an exception `@@…$dnsrewrite` disables all of them, `@@…$dnsrewrite=x` that one
    let rewriteOff = false;
    for (const c of hit) if (c.s.rule.allow && c.s.rule.rewriteAll) rewriteOff = true;
    if (!rewriteOff) {
      let best: SourcedRule | null = null;
      let rank = 0;
      for (const c of hit) {
        const r = c.s.rule;
        if (r.allow || !r.rewrite || r.hosts) continue;
        if (hit.some((x) => x.s.rule.allow && sameRewrite(x.s.rule, r))) continue;
        // a CNAME first, then an rcode, then an address of the asked type before one of the other
        const t = r.rewrite.type;
        const k = t === "CNAME" ? 4 : t === null ? 3 : (t === "A" ? 1 : 28) === qtype ? 2 : 1;
        if (k > rank) {
          rank = k;
          best = c.s;
        }
      }
      if (best) return rank === 2 ? this.addressRewrites(hit, best, false) : { kind: "rewrite", r: best };
    }
    let importantAllow: SourcedRule | null = null;
    let importantBlock: SourcedRule | null = null;
    let allow: SourcedRule | null = null;
    let block: SourcedRule | null = null;
    let hosts: SourcedRule | null = null;
    for (const c of hit) {
      const r = c.s.rule;
      if (r.rewrite && !r.hosts) continue;
      if (r.rewriteAll || (r.allow && r.rewrite)) continue;
      // a hosts line of the asked family before one of the other (a name may have both)
      if (r.hosts) {
        if (hosts === null || (!ofFamily(hosts, qtype) && ofFamily(c.s, qtype))) hosts = c.s;
      } else if (r.allow && r.important) importantAllow ??= c.s;
      else if (r.important) importantBlock ??= c.s;
      else if (r.allow) allow ??= c.s;
      else block ??= c.s;
    }
    if (importantAllow) return { kind: "allow", r: importantAllow };
    if (importantBlock) return { kind: "block", r: importantBlock, important: true };
    if (allow) return { kind: "allow", r: allow };
    if (block) return { kind: "block", r: block, important: false };
    if (hosts)
      return hosts.rule.rewrite
        ? this.addressRewrites(hit, hosts, true)
        : { kind: "block", r: hosts, important: false };
    return null;
  }

  /**
   * `best` with the other address rewrites of its family that apply (hosts lines, or $dnsrewrite rules that no
   * exception disables): AdGuard Home answers each of them, as a hosts file with several lines for a name does.
   */
  private addressRewrites(hit: readonly Compiled[], best: SourcedRule, hosts: boolean): Outcome {
    let all: SourcedRule[] | undefined;
    const type = best.rule.rewrite!.type;
    for (const c of hit) {
      const r = c.s.rule;
      if (c.s === best || r.allow || r.hosts !== hosts || r.rewrite?.type !== type || r.rewrite.rcode !== "NOERROR")
        continue;
      if (!hosts && hit.some((x) => x.s.rule.allow && sameRewrite(x.s.rule, r))) continue;
      // the same address twice (two lists) answers once
      if (r.rewrite.value === best.rule.rewrite!.value || all?.some((x) => x.rule.rewrite!.value === r.rewrite!.value))
        continue;
      (all ??= [best]).push(c.s);
    }
    return all ? { kind: "rewrite", r: best, all } : { kind: "rewrite", r: best };
  }
}

function unionOf(sources: string[]): { test(name: string): boolean } | null {
  if (sources.length < 2 || sources.includes("")) return null;
  try {
    const re = RE2JS.compile(sources.map((x) => `(?:${x})`).join("|"), RE2JS.CASE_INSENSITIVE);
    return re;
  } catch {
    return null;
  }
}

/** Whether a rule rewrites to an address of the asked type's family. */
const ofFamily = (s: SourcedRule, qtype: number) => s.rule.rewrite?.type === (qtype === 28 ? "AAAA" : "A");

const sameRewrite = (ex: AdRule, r: AdRule) =>
  ex.rewrite !== null &&
  ex.rewrite.rcode === r.rewrite!.rcode &&
  ex.rewrite.type === r.rewrite!.type &&
  ex.rewrite.value === r.rewrite!.value;
