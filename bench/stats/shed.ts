// What the memory budget's shedding holds the DNS thread for: a QueryWindow filled with --queries of
// the realistic mix (bench/mix/data.ts, 308k distinct names), then shed() of one second's queries at
// --qps (what keepWithinBudget() sheds each second, down to 98% of the budget) and of a tenth of the
// window at once (down to 90%, as it shed before), each a few times, with new queries in between.
// Usage: bun bench/stats/shed.ts [--queries 1500000] [--qps 20000] [--rounds 4]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { QueryWindow } from "../../src/stats/window.ts";
import { benchMix, mixRecords } from "./mix-records.ts";

const { values: opt } = parseArgs({
  options: {
    queries: { type: "string", default: "1500000" },
    qps: { type: "string", default: "20000" },
    rounds: { type: "string", default: "4" },
  },
});
const N = Number(opt.queries);
const dir = mkdtempSync(join(tmpdir(), "moat-bench-shed-"));
try {
  const mix = mixRecords(benchMix(dir).queryFile, N);
  const w = new QueryWindow(
    () => mix.end,
    () => 86_400,
  );
  let i = 0;
  const add = (count: number) => {
    for (const end = i + count; i < end; i++) w.add(mix.record(i), i + 1);
  };
  add(N);
  const time = (gone: number) => {
    const t = performance.now();
    w.shed(w.size - gone);
    return performance.now() - t;
  };
  const second = Number(opt.qps);
  const tenth = Math.floor(N / 10);
  for (let r = 1; r <= Number(opt.rounds); r++) {
    const a = time(second);
    add(second);
    const b = time(tenth);
    add(tenth);
    console.log(
      `round ${r}: ${N} kept; a second's ${second} shed in ${a.toFixed(1)} ms, a tenth (${tenth}) in ${b.toFixed(1)} ms`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
