// Per-domain upstreams (dns.upstreams entries `[/corp.example/]10.0.0.1`, src/config/upstream-syntax.ts):
// which entry covers a query name. The longest matching domain wins, as in AdGuard Home and dnsmasq,
// so `[/example/]A` with `[/corp.example/]B` sends corp.example's names to B and the rest to A; an
// entry whose server is `#` covers its names with the general upstreams. Looked up per forwarded
// query: one Map probe per label of the name, no allocation beyond the suffix strings.
import { parsePerDomain } from "../config/upstream-syntax.ts";

export interface DomainRule<U> {
  /** the servers, null for `#` (the general upstreams) */
  ups: U[] | null;
}

export class PerDomainRoutes<U> {
  /** exact domain → rule (covers the domain and its subdomains) */
  private readonly under = new Map<string, DomainRule<U>>();
  /** `*.domain` entries: only names below the domain */
  private readonly below = new Map<string, DomainRule<U>>();

  get size(): number {
    return this.under.size + this.below.size;
  }

  add(domain: string, rule: DomainRule<U>): void {
    if (domain.startsWith("*.")) this.below.set(domain.slice(2), rule);
    else this.under.set(domain, rule);
  }

  /** The rule of the longest domain that covers `name` (lowercase, no final dot), or null. */
  find(name: string): DomainRule<U> | null {
    if (this.size === 0) return null;
    let suffix = name;
    let own = true;
    for (;;) {
      const exact = this.under.get(suffix);
      if (exact) return exact;
      if (!own) {
        const wild = this.below.get(suffix);
        if (wild) return wild;
      }
      const dot = suffix.indexOf(".");
      if (dot < 0) return null;
      suffix = suffix.slice(dot + 1);
      own = false;
    }
  }
}

let memo: { list: readonly string[]; routes: PerDomainRoutes<string> } | null = null;

/** Whether a per-domain entry of `list` (dns.upstreams) sends `name` to servers of its own (parsed once per list). */
export function perDomainServes(list: readonly string[], name: string): boolean {
  if (memo?.list !== list) {
    const routes = new PerDomainRoutes<string>();
    for (const s of list) {
      const pd = parsePerDomain(s);
      if (pd && typeof pd !== "string")
        for (const d of pd.domains) routes.add(d, { ups: pd.servers.length ? pd.servers : null });
    }
    memo = { list, routes };
  }
  return !!memo.routes.find(name)?.ups;
}
