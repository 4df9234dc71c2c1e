// What a reader of a Pi-hole or AdGuard Home install hands to apply.ts: the settings, the lists (a
// Pi-hole gravity.db file, or rows made by ListsBuilder), the DHCP leases and the query history, with
// the lines of the report so far. Nothing here touches the target.
import { LEAVES, coerce } from "../config/index.ts";
import type { ImportedQuery } from "../querylog/import.ts";
import type { ListsBuilder } from "./lists-builder.ts";

interface NotCarried {
  item: string;
  why: string;
}

/** Where stored queries come from: a Pi-hole pihole-FTL.db, or rows read from AdGuard Home's query log. */
type HistorySource = { kind: "pihole"; file: string } | { kind: "rows"; rows: ImportedQuery[] };

export interface Plan {
  source: string;
  /** config leaves and their values, each already checked against its leaf */
  settings: Map<string, unknown>;
  /** a Pi-hole gravity.db (any schema Pi-hole's Teleporter takes), and/or rows built here */
  gravityDb?: string;
  rows?: ListsBuilder;
  /** a PEM file of the key and certificate chain, written into the data directory as webserver.tls.cert */
  tlsPem?: string;
  /** AdGuard Home's user rules, as Moat's custom rules (src/lists/custom-rules.ts) */
  customRules?: string[];
  /** dnsmasq's dhcp.leases text */
  leases?: string;
  history?: HistorySource;
  carried: string[];
  notCarried: NotCarried[];
}

export function newPlan(source: string): Plan {
  return { source, settings: new Map(), carried: [], notCarried: [] };
}

const LEAF = new Map(LEAVES.map((e) => [e.path, e.leaf]));

/**
 * Sets a config leaf in the plan when the value fits it; otherwise the report names it with the reason.
 * `from` is what the source called it (e.g. "setupVars.conf PIHOLE_DNS_1").
 */
export function setSetting(plan: Plan, path: string, raw: unknown, from: string): boolean {
  const leaf = LEAF.get(path);
  if (!leaf) throw new Error(`no setting ${path}`);
  const c = coerce(leaf, raw);
  if (!c.ok) {
    plan.notCarried.push({ item: `${from} = ${JSON.stringify(raw)}`, why: `${path}: ${c.reason}` });
    return false;
  }
  plan.settings.set(path, c.value);
  return true;
}

/** Adds entries to a list setting (dns.hosts, dns.cnameRecords, dhcp.hosts, ...), each checked on its own. */
export function addToList(plan: Plan, path: string, items: readonly string[], from: string): number {
  let n = 0;
  for (const item of items) {
    const before = (plan.settings.get(path) as string[] | undefined) ?? [];
    if (before.includes(item)) continue;
    if (setSetting(plan, path, [...before, item], `${from}: ${item}`)) n++;
    else plan.settings.set(path, before);
  }
  return n;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
