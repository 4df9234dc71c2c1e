// AdGuard Home's rule syntax as two group policies over one compiled rule set (engine.ts): the lists' rules that
// are more than a name (src/filter/gravity/ keeps them per list at each run) and the custom rules.
// `rules` is judged before the allow list: a $dnsrewrite answers, an exception (@@) allows past every block
// list and $important blocks past the allow list, as AdGuard Home ranks them. `rules-block` is judged after the
// exact deny list, for every name of the CNAME chain too: an ordinary rule (with $client, $dnstype, $denyallow, a
// regex or a hosts line) blocks as a list entry does, so Moat's own allow entries still win over it.
import type { Database } from "bun:sqlite";
import type { GroupPolicy, PolicyVerdict } from "../../filter/policy.ts";
import type { ClientResolverOptions } from "../../filter/clients.ts";
import { parseRule } from "../../filter/rule-syntax.ts";
import { appliedListRules } from "../../filter/gravity/tables.ts";
import { enabledAdlistIds, groupLinks, groupNames, customRules } from "../../lists/filter-input.ts";
import { nameToWire } from "../../net/dns-name.ts";
import { Status } from "../../query/enums.ts";
import { RuleEngine, withoutBadfiltered, type Asker, type Outcome, type SourcedRule } from "./engine.ts";

interface RulesData {
  rules: SourcedRule[];
  /** group bit → name, for $client rules that name a group */
  groupNames: Array<[number, string]>;
}

interface RulesState {
  engine: RuleEngine;
  who: Asker;
  verdicts: Map<SourcedRule, PolicyVerdict>;
  /** the verdicts of several address rewrites answering together, by their rules' texts (a few names have them) */
  together: Map<string, PolicyVerdict>;
}

/** Verdicts of several rewrites kept at most: a $client rule could make a set per client. */
const MAX_TOGETHER = 4096;

/** Every rule Moat applies: the enabled lists' (with their groups' bits) and then the custom rules (all groups). */
function compileRules(db: Database, bitOf: ReadonlyMap<number, number>): RulesData {
  const enabled = enabledAdlistIds(db);
  const bits = new Map<number, number[]>();
  for (const { k, g } of groupLinks(db, "adlist_by_group")) {
    const bit = bitOf.get(g);
    if (bit === undefined) continue;
    const l = bits.get(k);
    if (l) l.push(bit);
    else bits.set(k, [bit]);
  }
  const rules: SourcedRule[] = [];
  for (const { id, rule } of appliedListRules(db)) {
    const groups = bits.get(id);
    if (!enabled.has(id) || !groups) continue;
    const p = parseRule(rule);
    if (p && !("unsupported" in p)) for (const r of p) rules.push({ rule: r, listId: id, groups });
  }
  for (const line of customRules(db).rules.split("\n")) {
    const p = parseRule(line);
    if (p && !("unsupported" in p)) for (const r of p) rules.push({ rule: r, listId: 0, groups: null });
  }
  return {
    rules: withoutBadfiltered(rules),
    groupNames: groupNames(db).flatMap((g) => {
      const bit = bitOf.get(g.id);
      return bit === undefined ? [] : [[bit, g.name] as [number, string]];
    }),
  };
}

function load(d: RulesData, opts: ClientResolverOptions): RulesState | null {
  if (d.rules.length === 0) return null;
  const names = d.groupNames;
  const who: Asker = {
    ip: "",
    id: null,
    groups: new Uint32Array(1),
    hostname: () => opts.hostnameOf?.(who.ip) ?? null,
    groupNames: (groups) =>
      names.filter(([bit]) => ((groups[bit >>> 5] ?? 0) & (1 << (bit & 31))) !== 0).map(([, n]) => n),
  };
  return { engine: new RuleEngine(d.rules), who, verdicts: new Map(), together: new Map() };
}

const ALLOW: PolicyVerdict = { status: Status.UNKNOWN, reason: "", listId: 0, cnameTo: null, allow: true };

/** The verdict of one rule, made once per rule and snapshot (never per query). */
function verdictOf(s: RulesState, o: Outcome): PolicyVerdict {
  if (o.kind === "allow") return ALLOW;
  if (o.kind === "rewrite" && o.all) return togetherVerdict(s, o.all);
  let v = s.verdicts.get(o.r);
  if (v) return v;
  const { listId } = o.r;
  const rw = o.r.rule.rewrite;
  // blocked by a list's rule: the list's id, as gravity; by a custom rule: as a deny entry
  const status = listId > 0 ? Status.GRAVITY : Status.DENYLIST;
  const reason = `AdGuard rule ${o.r.rule.text}`;
  if (o.kind === "block" || rw === null) v = { status, reason, listId, cnameTo: null };
  else if (rw.type === "CNAME") v = { status, reason, listId, cnameTo: nameToWire(rw.value) };
  else if (rw.type === null) {
    const kind = rw.rcode === "NOERROR" ? "NODATA" : rw.rcode;
    v = { status, reason, listId, cnameTo: null, reply: { kind } };
  } else
    v = {
      status: Status.CACHE,
      reason,
      listId,
      cnameTo: null,
      rewrite: true,
      reply: { kind: "ADDR", ...(rw.type === "A" ? { v4: [rw.value] } : { v6: [rw.value] }) },
    };
  s.verdicts.set(o.r, v);
  return v;
}

/** The answer of several address rewrites of one family (two or more), made once per set of rules and snapshot. */
function togetherVerdict(s: RulesState, all: readonly SourcedRule[]): PolicyVerdict {
  const key = all.map((r) => r.rule.text).join("\n");
  let v = s.together.get(key);
  if (v) return v;
  const first = all[0]!;
  const values = all.map((r) => r.rule.rewrite!.value);
  v = {
    status: Status.CACHE,
    reason: `AdGuard rule ${first.rule.text}`,
    listId: first.listId,
    cnameTo: null,
    rewrite: true,
    reply: { kind: "ADDR", ...(first.rule.rewrite!.type === "A" ? { v4: values } : { v6: values }) },
  };
  if (s.together.size >= MAX_TOGETHER) s.together.clear();
  s.together.set(key, v);
  return v;
}

function outcome(
  s: RulesState,
  q: { client: string; clientId: string | null },
  name: string,
  qtype: number,
  groups: Uint32Array,
): Outcome | null {
  const who = s.who;
  who.ip = q.client;
  who.id = q.clientId;
  who.groups = groups;
  return s.engine.judge(name, qtype, who);
}

const shared = {
  compile: (b: { db: Database; bitOf: ReadonlyMap<number, number> }) => compileRules(b.db, b.bitOf),
  empty: (): RulesData => ({ rules: [], groupNames: [] }),
  buffers: () => [],
  load,
};

export const rulesPolicy: GroupPolicy<RulesData, RulesState> = {
  name: "rules",
  point: "beforeAllow",
  ...shared,
  judge(s, q, n) {
    const o = outcome(s, q, n.name, n.qtype, n.groups);
    if (o === null || (o.kind === "block" && !o.important) || (o.kind === "rewrite" && o.r.rule.hosts)) return null;
    return verdictOf(s, o);
  },
};

export const rulesBlockPolicy: GroupPolicy<RulesData, RulesState> = {
  name: "rules-block",
  point: "afterDeny",
  everyName: true,
  ...shared,
  judge(s, q, n) {
    const o = outcome(s, q, n.name, n.qtype, n.groups);
    if (o === null) return null;
    // the question's exceptions, rewrites and important blocks were the other stage's
    if (n.question) return (o.kind === "block" && !o.important) || o.r.rule.hosts ? verdictOf(s, o) : null;
    // a name of the CNAME chain: allowed or blocked by any rule, never rewritten
    return o.kind === "rewrite" && !o.r.rule.hosts ? null : verdictOf(s, o);
  },
};
