// Polling that is cheap for the Pi: one request at a time, paused while the tab is hidden, and
// refreshed at once when it becomes visible again. `stale` says the data on hand was loaded for
// other deps than those in force (a filter or page just changed and its load is on the way), so a
// page shows it is loading rather than rows that do not match what the person chose.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.ts";

export function usePoll<T>(
  load: () => Promise<T>,
  everyMs: number,
  deps: unknown[] = [],
): { data: T | undefined; stale: boolean; error: ApiError | null; reload: () => void } {
  const key = depsKey(deps);
  const [loaded, setLoaded] = useState<{ data: T | undefined; key: string }>({ data: undefined, key });
  const [error, setError] = useState<ApiError | null>(null);
  const tick = useRef<() => void>(() => {});
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let busy = false;
    const run = async () => {
      clearTimeout(timer);
      if (stopped || busy) return;
      busy = true;
      try {
        const d = await load();
        if (!stopped) {
          setLoaded({ data: d, key });
          setError(null);
        }
      } catch (e) {
        if (!stopped)
          setError(e instanceof ApiError ? e : new ApiError(0, "network", String((e as Error).message ?? e), null));
      } finally {
        busy = false;
        if (!stopped && everyMs > 0 && !document.hidden) timer = setTimeout(run, everyMs);
      }
    };
    tick.current = run;
    const vis = () => {
      if (!document.hidden) void run();
    };
    document.addEventListener("visibilitychange", vis);
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", vis);
    };
  }, deps);
  return { data: loaded.data, stale: loaded.key !== key, error, reload: () => tick.current() };
}

function depsKey(deps: unknown[]): string {
  try {
    return JSON.stringify(deps);
  } catch {
    return String(deps.length);
  }
}
