// Sums up a log of Moat run with BUN_JSC_logGC=1 and lag-probe.ts (bench/mix/tail.ts --lag --log FILE)
// between two wall-clock times: the main heap's collections (the heap that grew largest), and each stall
// of the main thread over the probe's limit, put down to
//   gc:     a collection of the main heap ended since the previous probe line and its pause is half the stall or more,
//   waited: the thread waited for a core longer than it ran (another thread or process had it),
//   slow X: a timer callback or UDP handler X (lag-probe.ts's SLOW lines) took half the stall or more,
//   ran:    the thread ran: JavaScript or native work of Moat's own (a timer, a batch, the loop).
import { readFileSync } from "node:fs";

export interface TailReport {
  collections: Record<string, { count: number; pauseMs: number; maxMs: number }>;
  stalls: Record<string, { count: number; ms: number; over5: number }>;
  /** every stall's ms, largest first, with its class */
  worst: string[];
}

export function tailReport(log: string, fromMs: number, toMs: number): TailReport {
  const lines = log.split("\n");
  // the main heap: the one whose collections started at the largest size
  const size = new Map<string, number>();
  for (const l of lines) {
    const m = /^\[GC<(0x[0-9a-f]+)>: START M (\d+)kb/.exec(l);
    if (m) size.set(m[1]!, Math.max(size.get(m[1]!) ?? 0, Number(m[2])));
  }
  const main = [...size].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
  const rep: TailReport = { collections: {}, stalls: {}, worst: [] };
  let now = 0,
    kind = "",
    pause = 0,
    gcSinceProbe = 0,
    slow = "",
    slowMs = 0;
  for (const l of lines) {
    const sl = /^SLOW ([\d.]+) (.*)$/.exec(l);
    if (sl) {
      if (Number(sl[1]) > slowMs) [slowMs, slow] = [Number(sl[1]), sl[2]!.split(" ").slice(0, 3).join(" ")];
      continue;
    }
    const mark = /^MARK (\d+)/.exec(l);
    if (mark) {
      now = Number(mark[1]);
      continue;
    }
    const inWindow = now >= fromMs && now <= toMs;
    if (l.startsWith(`[GC<${main}>: `)) {
      const start = /START M \d+kb => (\w+)Collection/.exec(l);
      if (start) {
        kind = start[1]!;
        pause = 0;
      }
      for (const m of l.matchAll(/p=([\d.]+)ms/g)) pause += Number(m[1]);
      if (/\bEND\b/.test(l) && inWindow) {
        const c = (rep.collections[kind] ??= { count: 0, pauseMs: 0, maxMs: 0 });
        c.count++;
        c.pauseMs += pause;
        c.maxMs = Math.max(c.maxMs, pause);
        gcSinceProbe += pause;
      }
      continue;
    }
    const lag = /^LAG ([\d.]+) ran ([\d.]+) waited ([\d.]+)/.exec(l);
    if (!lag) continue;
    const [gap, ran, waited] = [Number(lag[1]), Number(lag[2]), Number(lag[3])];
    if (inWindow) {
      const cls = gcSinceProbe >= gap / 2 ? "gc" : slowMs >= gap / 2 ? `slow ${slow}` : waited > ran ? "waited" : "ran";
      const s = (rep.stalls[cls] ??= { count: 0, ms: 0, over5: 0 });
      s.count++;
      s.ms += gap;
      if (gap > 5) s.over5++;
      rep.worst.push(
        `${gap.toFixed(1)} ${cls} (ran ${ran.toFixed(1)}, waited ${waited.toFixed(1)}, gc ${gcSinceProbe.toFixed(1)})`,
      );
    }
    gcSinceProbe = slowMs = 0;
  }
  rep.worst.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  rep.worst = rep.worst.slice(0, 8);
  return rep;
}

if (import.meta.main) {
  const [file, from, to] = process.argv.slice(2);
  if (!file) throw new Error("usage: bun bench/mix/tail-report.ts FILE [FROM_MS TO_MS]");
  console.log(
    JSON.stringify(tailReport(readFileSync(file, "utf8"), Number(from ?? 0), Number(to ?? Infinity)), null, 1),
  );
}
