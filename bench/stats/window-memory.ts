// What the 24 h window costs in memory per kept query, without a server around it: the mix's queries
// (bench/mix/data.ts: 308k distinct names in its default 1M lines) go into a QueryWindow until
// --queries are kept, spread over less than a day so none ages out. RSS and the JavaScript heap are
// read after a full collection, and against a run that did the same but kept no query, so the figure
// is what the window holds, not what the collector has yet to free (which moves a server's RSS by
// ±30 MiB from one run to the next).
// Each revision runs in a process of its own; with --against REV the same fill goes through REV's
// src/stats (read with `git archive`), and the runs take turns.
// Usage: bun bench/stats/window-memory.ts [--queries 1500000,10000000] [--against REV] [--rounds 2]
import { heapStats } from "bun:jsc";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { benchMix, mixRecords } from "./mix-records.ts";

const { values: opt } = parseArgs({
  options: {
    queries: { type: "string", default: "1500000,10000000" },
    against: { type: "string" },
    rounds: { type: "string", default: "2" },
    // a run of its own: the fill's size, the mix's query file and the tree whose src/stats it uses
    child: { type: "string" },
    mix: { type: "string" },
    tree: { type: "string" },
  },
});
const ROOT = resolve(import.meta.dir, "../..");
const MiB = 1048576;

interface Result {
  kept: number;
  rss: number;
  /** the JavaScript heap: its cells and the typed arrays' bytes as allocated (extra memory) */
  heap: number;
  /** what QueryWindow.bytes() accounts for (the memory budget's figure) */
  accounted: number;
}

async function child(n: number, mixFile: string, tree: string): Promise<Result> {
  const { QueryWindow } = (await import(
    join(tree, "src/stats/window.ts")
  )) as typeof import("../../src/stats/window.ts");
  const mix = mixRecords(mixFile, n);
  // reachable until measured in every run alike (the optimised loop would let them go early in a
  // run that fills, and not in the empty one)
  (globalThis as { mixData?: unknown }).mixData = mix.data;
  const w = new QueryWindow(
    () => mix.end,
    () => 86_400,
  );
  for (let i = 0; i < n; i++) w.add(mix.record(i), i + 1);
  // a full collection, then time for the allocator to hand freed pages back (RSS fell by ~40 MiB
  // over the first seconds after 1.5M queries), then another collection
  Bun.gc(true);
  await Bun.sleep(3000);
  Bun.gc(true);
  const kept = w.size; // keeps the window alive to here
  return { kept, rss: process.memoryUsage().rss, heap: heapStats().heapSize, accounted: w.bytes() };
}

if (opt.child) {
  console.log(JSON.stringify(await child(Number(opt.child), opt.mix!, opt.tree!)));
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "moat-bench-window-"));
try {
  const mix = benchMix(dir);
  const trees: Array<[string, string]> = [["this tree", ROOT]];
  if (opt.against) {
    const tree = join(dir, "against");
    execFileSync("sh", ["-c", `mkdir -p '${tree}' && git archive '${opt.against}' src | tar -x -C '${tree}'`]);
    trees.push([opt.against, tree]);
  }
  const rows: string[] = [];
  const empty = new Map<string, Result[]>();
  for (const n of [0, ...opt.queries.split(",").map(Number)]) {
    const got = new Map<string, Result[]>();
    for (let r = 0; r < (n === 0 ? 1 : Number(opt.rounds)); r++) {
      const order = r % 2 ? [...trees].reverse() : trees;
      for (const [label, tree] of order) {
        const out = execFileSync(
          process.execPath,
          [import.meta.path, "--child", String(n), "--mix", mix.queryFile, "--tree", tree],
          { encoding: "utf8", maxBuffer: 1 << 20 },
        );
        got.set(label, [...(got.get(label) ?? []), JSON.parse(out.trim().split("\n").at(-1)!) as Result]);
      }
    }
    if (n === 0) {
      for (const [label, results] of got) empty.set(label, results);
      continue;
    }
    for (const [label, results] of got) {
      // against the smallest of the empty runs: what the window adds
      const base = (f: (x: Result) => number) => Math.min(...empty.get(label)!.map(f));
      const per = (f: (x: Result) => number) => results.map((x) => ((f(x) - base(f)) / x.kept).toFixed(1)).join(", ");
      rows.push(
        `${String(n).padStart(9)}  ${label.padEnd(10)}  kept ${results[0]!.kept}  RSS B/query ${per((x) => x.rss)}  heap B/query ${per((x) => x.heap)}  window.bytes() B/query ${per((x) => x.accounted)}  (RSS ${((results[0]!.rss - base((x) => x.rss)) / MiB).toFixed(0)} MiB)`,
      );
    }
  }
  console.log(
    `window memory, ${mix.distinct} distinct names in the mix's ${1_000_000} lines, after a full collection:`,
  );
  for (const r of rows) console.log(r);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
