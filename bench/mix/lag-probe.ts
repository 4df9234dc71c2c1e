// Preloaded into Moat's process (bun --preload bench/mix/lag-probe.ts src/main.ts …) by bench/mix/tail.ts:
// a 1 ms timer on the main thread that writes to standard error each gap over LAG_PROBE_MS (2) ms, with
// how much of the gap the thread ran and how much it waited for a core (/proc/thread-self/schedstat),
// and once a second a MARK with the wall clock. It shares the stream with BUN_JSC_logGC=1's lines, so a
// gap a collection made follows that collection's END line (tail-report.ts sorts them out).
import { readFileSync } from "node:fs";

const limit = Number(process.env.LAG_PROBE_MS ?? "2");
const sched = () => {
  const [run, wait] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ");
  return [Number(run) / 1e6, Number(wait) / 1e6] as const;
};
let last = performance.now();
let [lastRun, lastWait] = sched();
let lastMark = 0;
setInterval(() => {
  const now = performance.now();
  const [run, wait] = sched();
  const gap = now - last;
  if (gap > limit)
    process.stderr.write(
      `LAG ${gap.toFixed(2)} ran ${(run - lastRun).toFixed(2)} waited ${(wait - lastWait).toFixed(2)}\n`,
    );
  if (now - lastMark >= 1000) {
    process.stderr.write(`MARK ${Date.now()}\n`);
    lastMark = now;
  }
  last = now;
  lastRun = run;
  lastWait = wait;
}, 1);

// What ran: each timer callback over 1 ms, as a SLOW line before the LAG it made (the UDP handlers are
// not wrapped: a write to standard error from inside one repeated itself endlessly).
const timed = <F extends (...a: never[]) => unknown>(label: () => string, fn: F): F =>
  ((...a: Parameters<F>) => {
    const t = performance.now();
    const r = fn(...a);
    const ms = performance.now() - t;
    if (ms > 1) process.stderr.write(`SLOW ${ms.toFixed(2)} ${label()}\n`);
    return r;
  }) as F;
const where = (fn: unknown) =>
  (typeof fn === "function" ? fn.name || fn.toString().replace(/\s+/g, " ").slice(0, 80) : "?") || "?";
for (const k of ["setTimeout", "setInterval", "setImmediate"] as const) {
  const orig = globalThis[k] as (...a: unknown[]) => unknown;
  (globalThis as Record<string, unknown>)[k] = (fn: unknown, ...rest: unknown[]) =>
    orig(typeof fn === "function" ? timed(() => `${k} ${where(fn)}`, fn as () => unknown) : fn, ...rest);
}
