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
} as const;
export const STATE_SLOTS = 6;

export type WriterOp =
  | { op: "init"; seq: number; state: SharedArrayBuffer }
  /**
   * open the long-term database: its indexes made or dropped and its rollups caught up, which on a
   * first start with a big database takes seconds, so the statistics side does not wait for it
   */
  | { op: "openDisk"; seq: number; diskPath: string; busyTimeoutMs: number }
  /** queued for the long-term database */
  | { op: "records"; seq: number; batch: RecordBatch }
  /** write the queue to the long-term database, then delete rows older than keepSeconds (0: queue dropped) */
  | { op: "flushDisk"; seq: number; keepSeconds: number; now: number }
  /** flush/logs: forget the queue */
  | { op: "clear"; seq: number }
  | { op: "stop"; seq: number; keepSeconds: number; now: number };

/** Records kept for the long-term database when it keeps failing, before the oldest are dropped. */
export const MAX_PENDING = 250_000;

/**
 * Records handed to the writer thread and not yet stored, beyond which new ones are dropped. The
 * thread runs only on a core nothing else wants (SCHED_IDLE): a flood that keeps every core busy
 * must not grow its queue without bound (~100 bytes a record; 500k = 4 s of 128k QPS here).
 */
export const MAX_BACKLOG = 500_000;

/**
 * The same backlog in bytes: what waits in the thread's message queue is native memory the process
 * holds until the thread runs, ~140 bytes a record in batches of thousands and ~240 in the small
 * batches of a quiet network (measured with the thread blocked), so 500k records could hold 70-120
 * MiB. 32 MiB keeps a few seconds of a flood (~230k records) for a thread that gets no core meanwhile.
 */
export const MAX_BACKLOG_BYTES = 32 * 1048576;
