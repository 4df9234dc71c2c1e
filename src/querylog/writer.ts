// The statistics thread's handle on the query writer thread (writer-worker.ts): records for the
// long-term database are handed over in columnar batches of HANDOFF_RECORDS (looked at every 10 ms), or
// HANDOFF_MS after the first of a smaller one, and the few
// callers that need an operation finished (a flush, shutdown, tests) wait on shared memory for it.
import { workerUrl } from "../core/worker-url.ts";
import { BatchBuilder, batchTransferables, type RecordBatch } from "../query/record-batch.ts";
import type { QueryRecord } from "../query/record.ts";
import { MAX_BACKLOG, MAX_BACKLOG_BYTES, State, STATE_SLOTS, type WriterOp } from "./writer-protocol.ts";

type Op = WriterOp extends infer T ? (T extends { seq: number } ? Omit<T, "seq"> : never) : never;

/** Records handed over at once at most; a bigger backlog goes in several messages. */
const BATCH = 8192;

/**
 * A batch is looked at every HANDOFF_TICK_MS after its first record, and handed over once it holds
 * HANDOFF_RECORDS, or HANDOFF_MS after its first: every 10 ms at 10k QPS as before (small batches often:
 * a big one is a burst of work on both threads, which showed in the DNS thread's tail: p99 1.2 ms at
 * 10 ms, 2.4 ms at 1 s), and at a low rate batches of about that size rather than one message per 10 ms:
 * at 1k QPS each message (a postMessage, the thread woken, ~1 KiB besides the records) carried 10
 * records, 100 messages a second. The tick stays a timer: handing a full batch over from add(), in the
 * middle of a DNS wake, measured more CPU on the main thread at 10k QPS in one run (bench/mix/wake.ts
 * --paths cache, three rounds: 32.7 against 27.1 µs a query). A tick that finds too few records costs one timer callback, in
 * the wake of a datagram that arrives meanwhile.
 */
export const HANDOFF_RECORDS = 100;
export const HANDOFF_MS = 100;
const HANDOFF_TICK_MS = 10;

/**
 * What a batch holds while it waits in the thread's message queue: its arrays, its text (serialised
 * as UTF-16) and ~1 KiB for the message itself (measured: 138 bytes a record in messages of 8192
 * records, 237 in messages of 10).
 */
function queuedBytes(b: RecordBatch): number {
  return b.f.byteLength + b.n.byteLength + b.len.byteLength + 2 * b.text.length + 1024;
}

interface WriterOptions {
  diskPath: string;
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** how long a write waits for a locked long-term database */
  busyTimeoutMs?: number;
  /** records in flight to the thread beyond which new ones are dropped (MAX_BACKLOG) */
  maxBacklog?: number;
  /** the same in bytes (MAX_BACKLOG_BYTES) */
  maxBacklogBytes?: number;
}

export class QueryWriter {
  private readonly worker: Worker;
  private readonly state = new Int32Array(new SharedArrayBuffer(STATE_SLOTS * 4));
  /** records not handed over yet: full batches, and the one being built */
  private ready: RecordBatch[] = [];
  private building = new BatchBuilder();
  private seq = 0;
  /** batches handed over and not yet queued by the thread: [sequence, records, bytes] */
  private inFlight: Array<[number, number, number]> = [];
  private inFlightRecords = 0;
  private inFlightBytes = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** performance.now() when the first record of the batch being built came */
  private firstAt = 0;
  private started = false;

  constructor(private readonly o: WriterOptions) {
    this.worker = new Worker(workerUrl("querylog/writer-worker.ts"));
    this.worker.onmessage = (ev: MessageEvent<{ log?: string }>) => {
      if (ev.data.log) o.log("error", ev.data.log);
    };
    this.worker.onerror = (ev) => o.log("error", `query writer thread: ${ev.message}`);
    const ok = this.call({ op: "init", state: this.state.buffer as SharedArrayBuffer }, 30_000);
    if (!ok) throw new Error("the query writer thread did not start");
    // not waited for: every later operation comes after it, and DNS need not wait for the disk's upkeep
    this.post({ op: "openDisk", diskPath: o.diskPath, busyTimeoutMs: o.busyTimeoutMs ?? 5000 });
  }

  /** From now on records are handed over in batches (HANDOFF_RECORDS, HANDOFF_MS). */
  start(): void {
    this.started = true;
  }

  /** Queues record `r` under `id`; its fields are copied at once, so `r` may be reused. */
  add(id: number, r: QueryRecord): void {
    this.building.add(id, r);
    if (this.building.count === BATCH) this.ready.push(this.building.take());
    // no timer runs while idle
    if (this.started && !this.timer) {
      this.firstAt = performance.now();
      this.timer = setTimeout(this.flushSoon, HANDOFF_TICK_MS);
    }
  }

  /** Records not handed over yet (the batch being built). */
  get waiting(): number {
    return this.building.count;
  }

  private readonly flushSoon = () => {
    this.timer = null;
    if (this.building.count < HANDOFF_RECORDS && !this.ready.length && performance.now() - this.firstAt < HANDOFF_MS) {
      this.timer = setTimeout(this.flushSoon, HANDOFF_TICK_MS);
      return;
    }
    this.send();
  };

  /** Counters the writer keeps up to date. */
  get counters() {
    const s = this.state;
    return {
      diskWrites: s[State.DISK_WRITES]!,
      diskWriteErrors: s[State.DISK_WRITE_ERRORS]!,
      dropped: s[State.DROPPED]!,
    };
  }

  /** Records queued for the long-term database (handed over or not). */
  pendingDisk(): number {
    return this.state[State.PENDING]! + this.ready.reduce((n, b) => n + b.count, 0) + this.building.count;
  }

  /** Hands what is queued to the thread. */
  send(): void {
    this.settle();
    if (this.building.count) this.ready.push(this.building.take());
    for (const batch of this.ready) {
      const bytes = queuedBytes(batch);
      if (
        this.inFlightRecords + batch.count > (this.o.maxBacklog ?? MAX_BACKLOG) ||
        this.inFlightBytes + bytes > (this.o.maxBacklogBytes ?? MAX_BACKLOG_BYTES)
      ) {
        Atomics.add(this.state, State.DROPPED, batch.count);
        continue;
      }
      const seq = this.post({ op: "records", batch }, batchTransferables(batch));
      this.inFlight.push([seq, batch.count, bytes]);
      this.inFlightRecords += batch.count;
      this.inFlightBytes += bytes;
    }
    this.ready = [];
  }

  /** Forgets the batches the thread has taken. */
  private settle(): void {
    const done = Atomics.load(this.state, State.DONE);
    let i = 0;
    for (; i < this.inFlight.length && this.inFlight[i]![0] <= done; i++) {
      this.inFlightRecords -= this.inFlight[i]![1];
      this.inFlightBytes -= this.inFlight[i]![2];
    }
    if (i) this.inFlight.splice(0, i);
  }

  /** Writes the queue to the long-term database; with `wait`, returns whether it succeeded. */
  flushDisk(keepSeconds: number, now: number, wait: boolean): boolean | undefined {
    this.send();
    const seq = this.post({ op: "flushDisk", keepSeconds, now });
    return wait ? this.wait(seq, 30_000) : undefined;
  }

  /** Forgets the queue, waiting until it is done. */
  clear(): void {
    this.ready = [];
    this.building.take();
    this.call({ op: "clear" }, 10_000);
  }

  /** Final write to the long-term database, then the thread ends. */
  stop(keepSeconds: number, now: number): boolean {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.started = false;
    this.send();
    const ok = this.call({ op: "stop", keepSeconds, now }, 30_000);
    this.worker.terminate();
    return ok;
  }

  private post(m: Op, transfer: ArrayBuffer[] = []): number {
    const seq = ++this.seq;
    this.worker.postMessage({ ...m, seq } as WriterOp, transfer);
    return seq;
  }

  private call(m: Op, timeoutMs: number): boolean {
    return this.wait(this.post(m), timeoutMs);
  }

  /** Blocks until operation `seq` is done; true when it succeeded. */
  private wait(seq: number, timeoutMs: number): boolean {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const d = Atomics.load(this.state, State.DONE);
      if (d >= seq) return d === seq ? this.state[State.OK] === 1 : true;
      const left = deadline - performance.now();
      if (left <= 0) {
        this.o.log("warn", "the query writer thread is busy; the long-term database is behind");
        return false;
      }
      Atomics.wait(this.state, State.DONE, d, left);
    }
  }
}
