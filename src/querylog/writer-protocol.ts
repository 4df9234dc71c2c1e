// What the statistics thread and the query writer thread say to each other. Results travel through a
// small shared Int32Array, so the statistics side can read counters at any time and wait for an
// operation without a message round trip (the main thread cannot receive messages while it waits).
import type { RecordBatch } from "../query/record-batch.ts";

/** Slots of the shared state array. */
export const State = {
  /** sequence number of the last operation finished */
  DONE: 0,
  /** 1 when that operation succeeded */
  OK: 1,
  DISK_WRITES: 2,
  DISK_WRITE_ERRORS: 3,
  /** records dropped because the long-term database kept failing, or the writer thread fell too far behind */
  DROPPED: 4,
  /** records waiting for the long-term database */
  PENDING: 5,
  /** queries whose detail left the 24 h log early to keep it within its memory budget (log-budget.ts) */
  SHED: 6,
} as const;
export const STATE_SLOTS = 7;

export type WriterOp =
  | { op: "init"; seq: number; state: SharedArrayBuffer; memoryPath: string }
  /**
   * open the long-term database: its indexes made when missing and its rollups caught up, which on a
   * first start with a big database takes seconds, so the statistics side does not wait for it
   */
  | { op: "openDisk"; seq: number; diskPath: string; busyTimeoutMs: number }
  /**
   * into the 24 h log; also queued for the long-term database when toDisk. The thread holds records
   * for up to HOLD_MS and inserts them together; the operation is done once they are in the log.
   */
  | { op: "records"; seq: number; batch: RecordBatch; toDisk: boolean; budgetBytes: number; budgetMiB: number }
  /** done once every record sent before it is in the 24 h log */
  | { op: "sync"; seq: number }
  /** write the queue to the long-term database, then delete rows older than keepSeconds (0: queue dropped) */
  | { op: "flushDisk"; seq: number; keepSeconds: number; now: number }
  | { op: "pruneMemory"; seq: number; before: number }
  /** flush/logs: forget the 24 h log and the queue */
  | { op: "clear"; seq: number }
  | { op: "stop"; seq: number; keepSeconds: number; now: number };

/**
 * How long the writer thread holds records before inserting them into the 24 h log, and how many it
 * holds at most. One transaction costs a fixed ~0.7 ms besides its rows (every index page it touches
 * is written again): measured 15 µs a record in transactions of 100 (10 ms at 10k QPS), 8.4 µs in
 * transactions of 1000. Anything that reads the log first sends "sync", so nobody waits for this.
 */
export const HOLD_MS = 100;
export const HOLD_MAX = 4096;

/** Records kept for the long-term database when it keeps failing, before the oldest are dropped. */
export const MAX_PENDING = 250_000;

/**
 * Records handed to the writer thread and not yet stored, beyond which new ones are dropped. The
 * thread runs only on a core nothing else wants (SCHED_IDLE): a flood that keeps every core busy
 * must not grow its queue without bound (~100 bytes a record; 500k = 4 s of 128k QPS here).
 */
export const MAX_BACKLOG = 500_000;
