// Regex rule cost per lookup: JavaScript's backtracking RegExp (what Moat used) beside re2js, the
// linear-time RE2 port it uses now, on the same compiled Pi-hole patterns and names: rule by rule,
// and as Moat runs them (one pass over the union of the rules, rule by rule only after a hit).
// Prints ns per name checked against the whole list, the ratios, and the time of one
// pathological lookup (^(a+)+b$ against 40 letters) on each engine.
// Run: node_modules/.bin/bun bench/filter/regex.ts [names]   (default 200000)
import { RE2JS } from "re2js";
import { compileRegex, translatePosix, unionOf, type CompiledRegex } from "../../src/filter/regex.ts";

// patterns of the kind Pi-hole users keep (from the regex lists commonly shared for Pi-hole)
const PATTERNS = [
  "^ad([sxv]?[0-9]*|system)[_.-]([^.[:space:]]+\\.){1,}|[_.-]ad([sxv]?[0-9]*|system)[_.-]",
  "^(.+[_.-])?adse?rv(er?|ice)?s?[0-9]*[_.-]",
  "^(.+[_.-])?telemetry[_.-]",
  "^adim(age|g)s?[0-9]*[_.-]",
  "^adtrack(er|ing)?[0-9]*[_.-]",
  "^advert(s|is(ing|ements?))?[0-9]*[_.-]",
  "^aff(iliat(es?|ion))?[_.-]",
  "^analytics?[_.-]",
  "^banners?[_.-]",
  "^beacons?[0-9]*[_.-]",
  "^count(ers?)?[0-9]*[_.-]",
  "^mads\\.",
  "^pixels?[-.]",
  "^stat(s|istics)?[0-9]*[_.-]",
  "(^|\\.)doubleclick\\.(net|com)$",
  "^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+\\.in-addr\\.arpa$",
  "(\\.|^)tiktok\\.com$",
  "^(www[0-9]*\\.)?xn--",
  "^ssl-[a-z]+\\.[[:alnum:]]+\\.net$",
  "track(ing)?\\.[a-z]+\\.(com|net)$",
];

const count = Number(process.argv[2] ?? 200000);
const WORDS = [
  "mail",
  "www",
  "cdn",
  "api",
  "static",
  "img",
  "login",
  "portal",
  "news",
  "shop",
  "video",
  "edge",
  "cloud",
  "app",
  "media",
  "data",
  "tracker",
  "ads",
  "stats",
  "beacon",
];
const TLDS = ["com", "net", "org", "de", "io", "co.uk"];
let seed = 42;
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
const names = Array.from({ length: 5000 }, () => {
  const labels = Array.from(
    { length: 1 + rnd(3) },
    () => WORDS[rnd(WORDS.length)]! + (rnd(3) === 0 ? String(rnd(100)) : ""),
  );
  return `${labels.join(rnd(4) === 0 ? "-" : ".")}.example${rnd(50)}.${TLDS[rnd(TLDS.length)]}`;
});

const js = PATTERNS.map((p) => new RegExp(translatePosix(p), "i"));
const compiled = PATTERNS.map((p) => {
  const c = compileRegex(0, p);
  if (typeof c === "string") throw new Error(`${p}: ${c}`);
  return c;
});
const re2 = compiled.map((c) => c.re);
const union = unionOf(compiled as CompiledRegex[])!;
/** Moat's way: the union first, the rules one by one only when it hits */
const moatWay = [{ test: (s: string) => union.test(s) && re2.some((r) => r.test(s)) }];

function run(engines: Array<{ test(s: string): boolean }>): { nsPerName: number; hits: number } {
  let hits = 0;
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const name = names[i % names.length]!;
    for (let k = 0; k < engines.length; k++)
      if (engines[k]!.test(name)) {
        hits++;
        break;
      }
  }
  return { nsPerName: ((performance.now() - t0) * 1e6) / count, hits };
}

run(js);
run(re2);
run(moatWay); // warm up
const a = run(js),
  b = run(re2),
  c = run(moatWay);
if (a.hits !== b.hits || a.hits !== c.hits)
  throw new Error(`the engines disagree: ${a.hits} vs ${b.hits} vs ${c.hits} matches`);
console.log(`${PATTERNS.length} patterns, ${count} names (${((a.hits / count) * 100).toFixed(1)}% match)`);
console.log(`RegExp (backtracking): ${a.nsPerName.toFixed(0)} ns per name`);
console.log(
  `re2js rule by rule:    ${b.nsPerName.toFixed(0)} ns per name   ratio to RegExp ${(b.nsPerName / a.nsPerName).toFixed(2)}`,
);
console.log(
  `re2js union first:     ${c.nsPerName.toFixed(0)} ns per name   ratio to RegExp ${(c.nsPerName / a.nsPerName).toFixed(2)}   (what Moat runs)`,
);

const evil = "a".repeat(40);
const t1 = performance.now();
RE2JS.compile("^(a+)+b$", RE2JS.CASE_INSENSITIVE).test(evil);
const re2Ms = performance.now() - t1;
const t2 = performance.now();
/^(a+)+b$/i.test("a".repeat(26)); // 40 letters would take minutes; 26 shows the growth
const jsMs = performance.now() - t2;
console.log(
  `^(a+)+b$: re2js 40 letters ${re2Ms.toFixed(2)} ms; RegExp 26 letters ${jsMs.toFixed(0)} ms (doubling with each letter)`,
);
