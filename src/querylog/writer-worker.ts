// The query writer thread: every SQLite write of the query records happens here, so the DNS thread
// only appends to an array. The 24 h query log is the statistics window itself (src/stats/ring.ts);
// this thread keeps the queue for the long-term database and writes it when told to (every
// database.DBinterval seconds) or when it grows large.
import { Database } from "bun:sqlite";
import { lowerThisThread } from "../core/thread-priority.ts";
import type { RecordBatch } from "../query/record-batch.ts";
import { catchUpRollups } from "../longterm/rollup.ts";
import { QueryStore } from "./store.ts";
import { MAX_PENDING, State, STATE_SLOTS, type WriterOp } from "./writer-protocol.ts";

declare const self: Worker;

let state: Int32Array<ArrayBufferLike> = new Int32Array(STATE_SLOTS);
let disk: QueryStore | null = null;
/**
 * Records waiting for the long-term database, kept as the batches they came in: typed arrays and
 * one string per batch instead of an object and strings per record (measured: 265 → 123 bytes of
 * RSS per logged query on 500k queries).
 */
let queue: RecordBatch[] = [];
let queued = 0;
let failures = 0;
/** Queued records that trigger a write before DBinterval is up. */
const EARLY_WRITE = 50_000;
/**
 * Records written between collections of this thread's heap. Each write leaves its batches' texts and
 * arrays behind, and left to itself the collector let them pile up (measured on 500k queries written
 * from batches, store.ts insertBatches: 220 → 41 bytes of RSS per query with a collection every 32k
 * records; 84 every 128k).
 */
const COLLECT_EVERY = 32_768;
let sinceCollect = 0;

/**
 * A full collection once this message's handler has returned: made inside writeQueue(), what the write
 * left was still referenced from its frame (a function run this rarely stays in the interpreter, which
 * keeps its locals live until it returns) and waited for the next write. Measured in bench/mix when the
 * write still decoded records: this thread's heap stayed at 24-47 MiB between writes instead of ~7.
 */
let collectQueued = false;
function collectSoon(): void {
  if (collectQueued) return;
  collectQueued = true;
  setTimeout(() => {
    collectQueued = false;
    Bun.gc(true);
  }, 0);
}

function report(message: string): void {
  self.postMessage({ log: message });
}

function done(seq: number, ok: boolean): void {
  Atomics.store(state, State.OK, ok ? 1 : 0);
  Atomics.store(state, State.PENDING, queued);
  Atomics.store(state, State.DONE, seq);
  Atomics.notify(state, State.DONE);
}

/** Writes the queue to the long-term database; on failure it stays for the next attempt. */
function writeQueue(): boolean {
  if (!disk) return false;
  if (!queued) return true;
  try {
    disk.insertBatches(queue);
    queue = [];
    sinceCollect += queued;
    queued = 0;
    Atomics.add(state, State.DISK_WRITES, 1);
    failures = 0;
    if (sinceCollect >= COLLECT_EVERY) {
      sinceCollect = 0;
      collectSoon();
    }
    return true;
  } catch (e) {
    Atomics.add(state, State.DISK_WRITE_ERRORS, 1);
    if (failures++ === 0)
      report(
        `writing ${queued} queries to the long-term database failed (kept for the next attempt): ${(e as Error).message}`,
      );
    return false;
  }
}

function flushDisk(keepSeconds: number, now: number): boolean {
  if (!disk) return false;
  if (keepSeconds <= 0) {
    queue = [];
    queued = 0;
    return true;
  }
  if (!writeQueue()) return false;
  try {
    disk.prune(now - keepSeconds);
  } catch (e) {
    report(`pruning the long-term database failed: ${(e as Error).message}`);
  }
  // The database statistics' rollups follow every write here, so the API thread (which serves DNS)
  // finds them current instead of catching up itself.
  catchUpRollups(disk.db);
  return true;
}

function handle(m: WriterOp): boolean {
  switch (m.op) {
    case "init": {
      lowerThisThread();
      state = new Int32Array(m.state);
      return true;
    }
    case "openDisk": {
      const db = new Database(m.diskPath, { strict: true });
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(m.busyTimeoutMs))}`);
      disk = new QueryStore(db);
      catchUpRollups(db);
      return true;
    }
    case "records": {
      // Over the limit the oldest batches go, at least a tenth of it at once.
      if (queued + m.batch.count > MAX_PENDING) {
        const target = Math.min(queued, Math.max(MAX_PENDING / 10, queued + m.batch.count - MAX_PENDING));
        let drop = 0;
        while (drop < target && queue.length) drop += queue.shift()!.count;
        queued -= drop;
        Atomics.add(state, State.DROPPED, drop);
      }
      queue.push(m.batch);
      queued += m.batch.count;
      // A busy network fills the queue long before DBinterval: write it early rather than hold
      // millions of records in memory. After a failure the timer retries.
      if (queued >= EARLY_WRITE && failures === 0) writeQueue();
      return true;
    }
    case "flushDisk":
      return flushDisk(m.keepSeconds, m.now);
    case "clear":
      queue = [];
      queued = 0;
      return true;
    case "stop": {
      const ok = flushDisk(m.keepSeconds, m.now);
      disk?.db.close();
      disk = null;
      return ok;
    }
  }
}

self.onmessage = (ev: MessageEvent<WriterOp>) => {
  const m = ev.data;
  let ok = false;
  try {
    ok = handle(m);
  } catch (e) {
    report(`query writer: ${m.op} failed: ${(e as Error).message}`);
  }
  done(m.seq, ok);
};
