// Whether a database file is sound: SQLite's quick_check, run after start-up in a worker thread. It
// reads every page, so at open it held back DNS: 320 ms for a 100 MiB pihole-FTL.db on this machine
// with the file cached, and 3.0-3.9 s for both files in a full 256 MiB memory cgroup, whose page cache
// has no room for them (bench/mix/pressure.ts: the restart's first answer came after 3.0-3.9 s with
// it, 0.5 s without). A file that is not a database at all is still refused at open (open.ts).
import { workerUrl } from "../core/worker-url.ts";

/** "ok", or what quick_check found wrong with the file (or why it could not run). */
export function checkIntegrity(file: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const w = new Worker(workerUrl("db/integrity-worker.ts"));
    const done = () => {
      signal?.removeEventListener("abort", abort);
      void w.terminate();
    };
    const abort = () => {
      done();
      reject(new Error("integrity check stopped"));
    };
    if (signal?.aborted) return abort();
    signal?.addEventListener("abort", abort);
    w.onmessage = (e: MessageEvent<string>) => {
      done();
      resolve(e.data);
    };
    w.onerror = (e) => {
      done();
      reject(new Error(e.message));
    };
    w.postMessage({ file });
  });
}
