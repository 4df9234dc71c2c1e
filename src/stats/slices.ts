// Passes over a day's names on the thread that answers DNS, a few milliseconds at a time: a million
// names take 30-400 ms, and DNS answers between the slices.

/** One turn of the event loop: what arrived meanwhile (DNS queries) is answered. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Calls `step(from, to)` over the ids [0, limit()) in runs of `run` ids, with a turn of the event
 * loop whenever `sliceMs` has passed. `limit` is asked again before each run.
 */
export async function idRunsInSlices(
  limit: () => number,
  run: number,
  sliceMs: number,
  step: (from: number, to: number) => void,
): Promise<void> {
  let start = performance.now();
  for (let from = 0; from < limit(); from += run) {
    step(from, Math.min(limit(), from + run));
    if (performance.now() - start > sliceMs) {
      await nextTurn();
      start = performance.now();
    }
  }
}
