// What the memory budget's shedding holds the DNS thread for: a QueryWindow filled with --queries of
// the realistic mix (bench/mix/data.ts, 308k distinct names), then shed() of one second's queries at
// --qps (what keepWithinBudget() sheds each second, down to 98% of the budget) and of a tenth of the
// window at once (down to 90%, as it shed before), each a few times, with new queries in between.
// Usage: bun bench/stats/shed.ts [--queries 1500000] [--qps 20000] [--rounds 4]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Reply, Status, dbQueryType } from "../../src/query/enums.ts";
import { QueryWindow } from "../../src/stats/window.ts";
import { makeMix } from "../mix/data.ts";

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
  const mix = makeMix(dir, {
    list: 1_000_000,
    queries: 1_000_000,
    popular: 100_000,
    hostsPool: 150_000,
    abpPool: 60_000,
  });
  const lines = readFileSync(mix.queryFile, "utf8").trimEnd().split("\n");
  // strings of their own, as the DNS engine makes them
  const names = lines.map((l) => l.slice(0, l.indexOf(" ")).split("").join(""));
  const types = lines.map((l) => dbQueryType(l.endsWith("AAAA") ? 28 : 1));
  const statuses = [Status.FORWARDED, Status.CACHE, Status.GRAVITY, Status.CACHE, Status.FORWARDED];
  const startMs = Date.now() - 86_000_000;
  const stepMs = Math.max(1, Math.floor(86_000_000 / N));
  const w = new QueryWindow(
    () => Date.now() / 1000,
    () => 86_400,
  );
  let i = 0;
  const add = (count: number) => {
    for (const end = i + count; i < end; i++) {
      const k = i % lines.length;
      const status = statuses[i % statuses.length]!;
      w.add(
        {
          time: Math.min(Date.now(), startMs + i * stepMs) / 1000,
          type: types[k]!,
          domain: names[k]!,
          client: `192.168.1.${10 + ((i * 7) % 20)}`,
          status,
          reply: Reply.IP,
          replyTime: status === Status.FORWARDED ? 2 : 0.05,
          upstream: status === Status.FORWARDED ? "127.0.0.1#53" : null,
          dnssec: 0,
          listId: status === Status.GRAVITY ? 1 : null,
          ede: -1,
          cname: null,
        },
        i + 1,
      );
    }
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
