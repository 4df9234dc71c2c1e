// The query writer thread: every SQLite write of the query records happens here, so the DNS thread
// only appends to an array. It keeps the 24 h log (a WAL database on tmpfs that the API reads through
// its own connection) and the queue for the long-term database, which it writes when told to.
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { lowerThisThread } from "../core/thread-priority.ts";
import { QUERY_SCHEMA } from "../db/query-schema.ts";
import { raiseMessage } from "../messages/table.ts";
import { logBytes, shedOldest } from "./log-budget.ts";
import { decodeBatch, type RecordBatch } from "../query/record-batch.ts";
import type { StoredRecord } from "../query/record.ts";
import { catchUpRollups } from "../longterm/rollup.ts";
import { QueryStore } from "./store.ts";
import { HOLD_MAX, HOLD_MS, MAX_PENDING, State, STATE_SLOTS, type WriterOp } from "./writer-protocol.ts";

declare const self: Worker;

let state: Int32Array<ArrayBufferLike> = new Int32Array(STATE_SLOTS);
let memory: QueryStore | null = null;
let disk: QueryStore | null = null;
/**
 * Records waiting for the long-term database, kept as the batches they came in: typed arrays and
 * one string per batch instead of an object and strings per record (measured: 265 → 123 bytes of
 * RSS per logged query on 500k queries, with the collections below).
 */
let queue: RecordBatch[] = [];
let queued = 0;
let failures = 0;
/** Queued records that trigger a write before DBinterval is up. */
const EARLY_WRITE = 50_000;
/**
 * Records decoded between collections of this thread's heap. Each batch leaves its decoded records
 * and strings behind, and left to itself the collector let them pile up to ~170 bytes of RSS per
 * query logged (measured on 500k queries: 170 → 80 bytes with a collection every batch; every 32k
 * records keeps nearly all of that at a fraction of the cost).
 */
const COLLECT_EVERY = 32_768;
let sinceCollect = 0;

/** Records received and not yet in the 24 h log (writer-protocol.ts, HOLD_MS), and the last "records" operation among them. */
let held: StoredRecord[] = [];
let heldSeq = 0;
let heldBudget = { bytes: 0, mib: 0 };
let holdTimer: ReturnType<typeof setTimeout> | null = null;

/** Inserts the held records in one transaction and marks their operations done. */
function insertHeld(): void {
  if (holdTimer) clearTimeout(holdTimer);
  holdTimer = null;
  if (!heldSeq) return;
  const records = held,
    seq = heldSeq;
  held = [];
  heldSeq = 0;
  try {
    memory?.insert(records);
    keepWithinBudget(heldBudget.bytes, heldBudget.mib);
  } catch (e) {
    report(`in-memory query log insert failed: ${(e as Error).message}`);
  }
  sinceCollect += records.length;
  if (sinceCollect >= COLLECT_EVERY) {
    sinceCollect = 0;
    // full: what outlives a young collection (the queue written since) is old garbage by now
    Bun.gc(true);
  }
  done(seq, true);
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

function openMemory(path: string): QueryStore {
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  // tmpfs: durability buys nothing here
  db.exec("PRAGMA synchronous = OFF");
  // the write-ahead log is tmpfs too, and part of the memory budget: checkpoints every 1 MiB (a
  // memory copy here) and back to 1 MiB after each, instead of 4 MiB and its largest size
  db.exec("PRAGMA wal_autocheckpoint = 256");
  db.exec("PRAGMA journal_size_limit = 1048576");
  if (!db.query("SELECT 1 FROM sqlite_master WHERE name = 'query_storage'").get()) db.exec(QUERY_SCHEMA);
  // Indexes for the query log's selective filters only: measured per insert, all five cost 8.3 µs,
  // these two 3.5 µs; status and upstream filters scan from the newest row, which is fine for 24 h.
  return new QueryStore(db, true);
}

/** Writes the queue to the long-term database; on failure it stays for the next attempt. */
function writeQueue(): boolean {
  if (!disk) return false;
  if (!queued) return true;
  try {
    const records: StoredRecord[] = [];
    for (const b of queue) for (const r of decodeBatch(b)) records.push(r);
    disk.insert(records);
    queue = [];
    queued = 0;
    Atomics.add(state, State.DISK_WRITES, 1);
    failures = 0;
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

let walPath = "";

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Time of the last budget message: one an hour at most, however often the log sheds. */
let lastShedMessage = 0;

function keepWithinBudget(budgetBytes: number, budgetMiB: number): void {
  if (!memory) return;
  // the write-ahead log is on tmpfs too, and counts against the same budget
  const shed = shedOldest(memory.db, budgetBytes, logBytes(memory.db) + fileBytes(walPath));
  if (!shed) return;
  Atomics.add(state, State.SHED, shed.rows);
  // the names only those queries used are part of what the budget counts
  memory.pruneNames();
  const now = Date.now() / 1000;
  if (now - lastShedMessage < 3600) return;
  lastShedMessage = now;
  const setting =
    budgetMiB > 0 ? `${budgetMiB} MiB` : `${Math.round(budgetBytes / 1048576)} MiB, a tenth of this machine's memory`;
  const since = shed.oldest === null ? "now" : new Date(shed.oldest * 1000).toISOString();
  const text = `The query log reached its memory budget (database.queryLogMemory: ${setting}): the details of the oldest queries are being dropped, so the query log starts at ${since} instead of 24 hours ago. Statistics still count every query.`;
  try {
    if (disk) raiseMessage(disk.db, "SHMEM", text, [shed.rows]);
  } catch (e) {
    report(`could not store the memory budget message: ${(e as Error).message}`);
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
      memory = openMemory(m.memoryPath);
      walPath = `${m.memoryPath}-wal`;
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
      for (const r of decodeBatch(m.batch)) held.push(r);
      heldSeq = m.seq;
      heldBudget = { bytes: m.budgetBytes, mib: m.budgetMiB };
      if (m.toDisk) {
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
      }
      return true;
    }
    case "sync":
      return true;
    case "flushDisk":
      return flushDisk(m.keepSeconds, m.now);
    case "pruneMemory":
      // names no query in the log mentions any more: the 24 h log would otherwise keep every name ever seen
      if (memory && memory.prune(m.before) > 0) memory.pruneNames();
      return true;
    case "clear":
      queue = [];
      queued = 0;
      memory?.prune(Number.MAX_SAFE_INTEGER);
      return true;
    case "stop": {
      const ok = flushDisk(m.keepSeconds, m.now);
      memory?.db.close();
      disk?.db.close();
      memory = disk = null;
      return ok;
    }
  }
}

self.onmessage = (ev: MessageEvent<WriterOp>) => {
  const m = ev.data;
  // every other operation finds the records sent before it in the log
  if (m.op !== "records") insertHeld();
  let ok = false;
  try {
    ok = handle(m);
  } catch (e) {
    report(`query writer: ${m.op} failed: ${(e as Error).message}`);
  }
  if (m.op !== "records") done(m.seq, ok);
  else if (held.length >= HOLD_MAX) insertHeld();
  else holdTimer ??= setTimeout(insertHeld, HOLD_MS);
};
