// The realistic mix's data: block lists (70% hosts-format, 30% ABP `||x^`) and a dnsperf query file
// (55% popular names on a Zipf curve, 22% names on the hosts list, 8% subdomains of ABP entries, 5%
// names never seen before, 10% AAAA of popular names). Deterministic: the same flags give the same files.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface MixSizes {
  /** list entries, hosts and ABP together */
  list: number;
  /** lines in the query file */
  queries: number;
  /** popular (forwarded, then cached) names the Zipf curve draws from */
  popular: number;
  /** hosts entries and ABP entries the queries draw from (a busy network asks a part of a list) */
  hostsPool: number;
  abpPool: number;
}

export interface MixFiles {
  hostsFile: string;
  abpFile: string;
  queryFile: string;
  /** a blocked name, to wait for the lists to be in force */
  probeBlocked: string;
  /** a forwarded name, to wait for the server to answer */
  probeForwarded: string;
  hostsNames: string[];
  abpNames: string[];
  distinct: number;
}

let seed = 42;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
const word = (min: number, max: number) => {
  const n = min + Math.floor(rand() * (max - min + 1));
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(rand() * 26));
  return s;
};
const TLDS = ["com", "net", "org", "io", "de", "info", "co.uk", "xyz"];

/** Zipf(s = 1) sampler over ranks 0..n-1 by inverse CDF on a precomputed table. */
function zipf(n: number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1);
  return () => {
    const x = rand() * sum;
    let lo = 0,
      hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export function makeMix(dir: string, s: MixSizes): MixFiles {
  const seen = new Set<string>();
  const names: string[] = [];
  while (names.length < s.list) {
    const n = `${rand() < 0.4 ? `${word(2, 8)}.` : ""}${word(4, 14)}.${TLDS[Math.floor(rand() * TLDS.length)]}`;
    if (!seen.has(n)) {
      seen.add(n);
      names.push(n);
    }
  }
  seen.clear();
  const nHosts = Math.round(s.list * 0.7);
  const hostsNames = names.slice(0, nHosts),
    abpNames = names.slice(nHosts);
  const hostsFile = join(dir, "hosts.txt"),
    abpFile = join(dir, "abp.txt"),
    queryFile = join(dir, "mix.txt");
  writeFileSync(hostsFile, `${hostsNames.map((n) => `0.0.0.0 ${n}`).join("\n")}\n`);
  writeFileSync(abpFile, `${abpNames.map((n) => `||${n}^`).join("\n")}\n`);

  const popular = Array.from({ length: s.popular }, (_, i) => `${word(3, 10)}${i}.${TLDS[i % TLDS.length]}.pop.test`);
  const rank = zipf(s.popular);
  const hostsPool = hostsNames.slice(0, Math.min(s.hostsPool, hostsNames.length));
  const abpPool = abpNames.slice(0, Math.min(s.abpPool, abpNames.length));
  const subs = ["www", "ads", "cdn", "track", "pixel", "img", "api", "m"];
  const lines: string[] = new Array(s.queries);
  let fresh = 0;
  for (let i = 0; i < s.queries; i++) {
    const x = rand();
    if (x < 0.55) lines[i] = `${popular[rank()]} A`;
    else if (x < 0.77) lines[i] = `${hostsPool[Math.floor(rand() * hostsPool.length)]} A`;
    else if (x < 0.85)
      lines[i] = `${subs[Math.floor(rand() * subs.length)]}.${abpPool[Math.floor(rand() * abpPool.length)]} A`;
    else if (x < 0.9) lines[i] = `new${fresh++}-${word(3, 6)}.fresh.test A`;
    else lines[i] = `${popular[rank()]} AAAA`;
  }
  const distinct = new Set(lines.map((l) => l.slice(0, l.indexOf(" ")))).size;
  writeFileSync(queryFile, `${lines.join("\n")}\n`);
  return {
    hostsFile,
    abpFile,
    queryFile,
    probeBlocked: abpNames[0] ?? hostsNames[0]!,
    probeForwarded: popular[0]!,
    hostsNames,
    abpNames,
    distinct,
  };
}
