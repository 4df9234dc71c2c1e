// Reads a log of JavaScriptCore's collections (Moat run with BUN_JSC_logGC=1, e.g. bench/mix/run.ts
// --moat-env BUN_JSC_logGC=1 --moat-log FILE) and sums it up per heap: each thread has its own (the
// main thread's is the one with the most collections), and per kind (Eden: the young objects; Full:
// everything). A collection stops its thread in several slices; its pause here is their sum.
// Usage: bun bench/mix/gclog.ts FILE
import { readFileSync } from "node:fs";

export interface Collection {
  heap: string;
  kind: string;
  /** ms the thread was stopped, all slices together */
  pauseMs: number;
  /** the heap's size when it began, KiB */
  startKb: number;
}

/** The collections of a BUN_JSC_logGC=1 log, in order. */
export function collections(log: string): Collection[] {
  const out: Collection[] = [];
  const open = new Map<string, Collection>();
  // each line of the log starts "[GC<0x…>: "; a collection's lines may interleave with another heap's
  const parts = log.split(/\[GC<(0x[0-9a-f]+)>: /);
  for (let i = 1; i < parts.length; i += 2) {
    const heap = parts[i]!,
      body = parts[i + 1]!;
    const start = /START M (\d+)kb => (\w+)Collection/.exec(body);
    if (start) open.set(heap, { heap, kind: start[2]!, pauseMs: 0, startKb: Number(start[1]) });
    const c = open.get(heap);
    if (!c) continue;
    for (const m of body.matchAll(/p=([\d.]+)ms/g)) c.pauseMs += Number(m[1]);
    if (/\bEND\b/.test(body)) {
      out.push(c);
      open.delete(heap);
    }
  }
  return out;
}

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) throw new Error("usage: bun bench/mix/gclog.ts FILE");
  const groups = new Map<string, Collection[]>();
  for (const c of collections(readFileSync(file, "utf8"))) {
    const k = `${c.heap} ${c.kind}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const at = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
  console.log("heap            kind   count  pause p50 / p90 / max ms   heap at start p50 MiB");
  for (const [k, cs] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
    const p = cs.map((c) => c.pauseMs).sort((a, b) => a - b);
    const s = cs.map((c) => c.startKb / 1024).sort((a, b) => a - b);
    const [heap, kind] = k.split(" ");
    console.log(
      `${heap!.padEnd(15)} ${kind!.padEnd(6)} ${String(cs.length).padStart(5)}  ${[at(p, 0.5), at(p, 0.9), p.at(-1)!]
        .map((x) => x.toFixed(1))
        .join(" / ")
        .padEnd(24)} ${at(s, 0.5).toFixed(0)}`,
    );
  }
}
