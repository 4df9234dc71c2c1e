// Runs Balloon off the main thread: one run takes a few hundred milliseconds on a Pi, and the
// thread that answers DNS must not stall for every login. The worker is built from the function's
// own source (a blob URL), so it needs no separate file in the single compiled binary. If a worker
// cannot be started, the hash is computed in place.
import { balloonSha256 } from "./balloon.ts";

interface Job {
  resolve: (v: Uint8Array) => void;
  reject: (e: Error) => void;
}

let worker: Worker | null = null;
let broken = false;
let nextId = 1;
const jobs = new Map<number, Job>();

function failAll(e: Error): void {
  for (const j of jobs.values()) j.reject(e);
  jobs.clear();
}

function getWorker(): Worker | null {
  if (worker || broken) return worker;
  try {
    const src = `const balloon = ${balloonSha256.toString()};
self.onmessage = (e) => {
  const { id, password, salt, s, t } = e.data;
  try { postMessage({ id, hash: balloon(password, salt, s, t) }); }
  catch (err) { postMessage({ id, error: String(err && err.message || err) }); }
};`;
    const w = new Worker(URL.createObjectURL(new Blob([src], { type: "application/javascript" })));
    w.onmessage = (e: MessageEvent<{ id: number; hash?: Uint8Array; error?: string }>) => {
      const job = jobs.get(e.data.id);
      if (!job) return;
      jobs.delete(e.data.id);
      if (e.data.hash) job.resolve(e.data.hash);
      else job.reject(new Error(e.data.error ?? "balloon worker failed"));
    };
    w.onerror = (e) => {
      broken = true;
      worker = null;
      failAll(new Error(`balloon worker failed: ${e.message}`));
    };
    // an idle worker must not keep the process alive
    w.unref();
    worker = w;
  } catch {
    broken = true;
  }
  return worker;
}

/** Balloon-SHA256 on the worker thread (in place when no worker is available). */
export function balloonAsync(password: Uint8Array, salt: Uint8Array, s: number, t: number): Promise<Uint8Array> {
  const w = getWorker();
  if (!w) return Promise.resolve().then(() => balloonSha256(password, salt, s, t));
  const id = nextId++;
  return new Promise<Uint8Array>((resolve, reject) => {
    jobs.set(id, { resolve, reject });
    w.postMessage({ id, password, salt, s, t });
  }).catch(() => balloonSha256(password, salt, s, t));
}
