// AdGuard-syntax rule cost per name (src/policies/rules/engine.ts): 2000 exceptions and 1000 $important rules
// as AdGuard's DNS filter has them, and N regex rules, judged for names no rule matches (most queries).
// Prints ns per name; the policy step asks it twice per question (before the allow list, after the deny list).
// Run: node_modules/.bin/bun bench/filter/rules.ts [regexes]   (default 20)
import { parseRule, type AdRule } from "../../src/filter/rule-syntax.ts";
import { RuleEngine, type Asker } from "../../src/policies/rules/engine.ts";

const regexes = Number(process.argv[2] ?? 20);
const lines: string[] = [];
for (let i = 0; i < 2000; i++) lines.push(`@@||ok${i}.example.com^`);
for (let i = 0; i < 1000; i++) lines.push(`||imp${i}.example.net^$important`);
for (let i = 0; i < regexes; i++) lines.push(`/^ad[0-9]+\\.site${i}\\.org$/`);
const rules = lines.flatMap((l) => (parseRule(l) as AdRule[]).map((rule) => ({ rule, listId: 1, groups: null })));
const e = new RuleEngine(rules);
const who: Asker = { ip: "192.0.2.1", id: null, hostname: () => null, groups: Uint32Array.of(1), groupNames: () => [] };
const names = Array.from({ length: 1000 }, (_, i) => `www.host${i}.cdn.example.org`);
for (let k = 0; k < 20000; k++) e.judge(names[k % 1000]!, 1, who);
const N = 500_000;
const t = performance.now();
for (let k = 0; k < N; k++) e.judge(names[k % 1000]!, 1, who);
console.log(`3000 rules and ${regexes} regexes: ${(((performance.now() - t) * 1e6) / N).toFixed(0)} ns per name`);
