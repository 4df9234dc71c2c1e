// The statistics thread's handle on the query writer thread (writer-worker.ts): records are handed
// over in columnar batches 10 ms after the first of each, and the few callers that need an operation to be
// finished (the API before reading the 24 h log, shutdown, tests) wait on shared memory for it.
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workerUrl } from "../core/worker-url.ts";
import { logBudgetBytes } from "./log-budget.ts";
import { batchTransferables, encodeBatch } from "../query/record-batch.ts";
import type { StoredRecord } from "../query/record.ts";
import { MAX_BACKLOG, State, STATE_SLOTS, type WriterOp } from "./writer-protocol.ts";

type Op = WriterOp extends infer T ? (T extends { seq: number } ? Omit<T, "seq"> : never) : never;

/** Records handed over at once at most; a bigger backlog goes in several messages. */
const BATCH = 8192;
const DIR_PREFIX = "moat-querylog-";

interface WriterOptions {
  diskPath: string;
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** how long a write waits for a locked long-term database */
  busyTimeoutMs?: number;
  /** whether records go to the long-term database now (database.maxDBdays > 0) */
  toDisk: () => boolean;
  /** records in flight to the thread beyond which new ones are dropped (MAX_BACKLOG) */
  maxBacklog?: number;
  /** database.queryLogMemory (MiB, 0 = sized from the machine's memory): the 24 h log's budget */
  budgetMiB?: () => number;
}

export class QueryWriter {
  /** read-only connection to the 24 h log */
  readonly memoryDb: Database;
  private readonly worker: Worker;
  private readonly state = new Int32Array(new SharedArrayBuffer(STATE_SLOTS * 4));
  private readonly dir: string;
  private pending: StoredRecord[] = [];
  private seq = 0;
  /** sequence of the last batch of records sent */
  private recordsSeq = 0;
  /** batches handed over and not yet stored: [sequence, records] */
  private inFlight: Array<[number, number]> = [];
  private inFlightRecords = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private started = false;

  constructor(private readonly o: WriterOptions) {
    this.dir = makeScratchDir();
    const memoryPath = join(this.dir, "queries.db");
    this.worker = new Worker(workerUrl("querylog/writer-worker.ts"));
    this.worker.onmessage = (ev: MessageEvent<{ log?: string }>) => {
      if (ev.data.log) o.log("error", ev.data.log);
    };
    this.worker.onerror = (ev) => o.log("error", `query writer thread: ${ev.message}`);
    const ok = this.call({ op: "init", state: this.state.buffer as SharedArrayBuffer, memoryPath }, 30_000);
    if (!ok) throw new Error("the query writer thread did not start");
    this.memoryDb = new Database(memoryPath, { readonly: true, strict: true });
    // not waited for: every later operation comes after it, and DNS need not wait for the disk's upkeep
    this.post({ op: "openDisk", diskPath: o.diskPath, busyTimeoutMs: o.busyTimeoutMs ?? 5000 });
  }

  /** From now on records are handed over 10 ms after the first of a batch arrives. */
  start(): void {
    this.started = true;
  }

  add(r: StoredRecord): void {
    this.pending.push(r);
    // Small batches often: a big one is a burst of work on both threads, which shows in the DNS
    // thread's tail latency (measured at 10k QPS: p99 1.2 ms at 10 ms, 2.4 ms at 1 s). No timer runs while idle.
    if (this.started && !this.timer) this.timer = setTimeout(this.flushSoon, 10);
  }

  private readonly flushSoon = () => {
    this.timer = null;
    this.send();
  };

  /** Counters the writer keeps up to date. */
  get counters() {
    const s = this.state;
    return {
      diskWrites: s[State.DISK_WRITES]!,
      diskWriteErrors: s[State.DISK_WRITE_ERRORS]!,
      dropped: s[State.DROPPED]!,
      shed: s[State.SHED]!,
    };
  }

  /** Records queued for the long-term database (handed over or not). */
  pendingDisk(toDisk: boolean): number {
    return this.state[State.PENDING]! + (toDisk ? this.pending.length : 0);
  }

  /** Sends what is queued; `toDisk` says whether the long-term database keeps these records. */
  send(toDisk = this.o.toDisk()): void {
    this.settle();
    while (this.pending.length) {
      const part = this.pending.length > BATCH ? this.pending.splice(0, BATCH) : this.pending;
      if (part === this.pending) this.pending = [];
      this.postRecords(part, toDisk);
    }
  }

  /**
   * Records already in the long-term database (the history loaded at start), into the 24 h log only,
   * as their own batch: the queue of live records, bound for the long-term database too, is left alone.
   */
  addStored(records: StoredRecord[]): void {
    this.settle();
    if (records.length) this.postRecords(records, false);
  }

  private postRecords(part: StoredRecord[], toDisk: boolean): void {
    if (this.inFlightRecords + part.length > (this.o.maxBacklog ?? MAX_BACKLOG)) {
      Atomics.add(this.state, State.DROPPED, part.length);
      return;
    }
    const budgetMiB = this.o.budgetMiB?.() ?? 0,
      budgetBytes = logBudgetBytes(budgetMiB);
    const batch = encodeBatch(part);
    this.recordsSeq = this.post({ op: "records", batch, toDisk, budgetBytes, budgetMiB }, batchTransferables(batch));
    this.inFlight.push([this.recordsSeq, part.length]);
    this.inFlightRecords += part.length;
  }

  /** Forgets the batches the thread has finished. */
  private settle(): void {
    const done = Atomics.load(this.state, State.DONE);
    let i = 0;
    while (i < this.inFlight.length && this.inFlight[i]![0] <= done) this.inFlightRecords -= this.inFlight[i++]![1];
    if (i) this.inFlight.splice(0, i);
  }

  /**
   * The same without blocking the thread: resolves once every record added so far is readable in
   * memoryDb (or after timeoutMs), while DNS goes on being answered. Half a second at most: the
   * writer runs only on an otherwise idle core, so under a flood that keeps every core busy a
   * request gets the log as it stands rather than waiting for it.
   */
  async syncMemoryAsync(timeoutMs = 500): Promise<void> {
    const seq = this.syncSeq();
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const d = Atomics.load(this.state, State.DONE);
      const left = deadline - performance.now();
      if (d >= seq || left <= 0) return;
      const r = Atomics.waitAsync(this.state, State.DONE, d, left);
      if (r.async) await r.value;
    }
  }

  /** Sends what is queued and, when the thread may still hold records back, asks for them (writer-protocol.ts, HOLD_MS): the sequence to wait for. */
  private syncSeq(): number {
    this.send();
    return Atomics.load(this.state, State.DONE) >= this.recordsSeq ? this.recordsSeq : this.post({ op: "sync" });
  }

  /** Makes every record added so far readable in memoryDb (waits at most timeoutMs, blocking). */
  syncMemory(timeoutMs = 2000): void {
    this.wait(this.syncSeq(), timeoutMs);
  }

  /** Writes the queue to the long-term database; with `wait`, returns whether it succeeded. */
  flushDisk(keepSeconds: number, now: number, wait: boolean): boolean | undefined {
    this.send();
    const seq = this.post({ op: "flushDisk", keepSeconds, now });
    return wait ? this.wait(seq, 30_000) : undefined;
  }

  pruneMemory(before: number): void {
    this.post({ op: "pruneMemory", before });
  }

  /** Forgets the 24 h log and the queue, waiting until it is done. */
  clear(): void {
    this.pending = [];
    this.call({ op: "clear" }, 10_000);
  }

  /** Final write to the long-term database, then the thread ends and the scratch files go. */
  stop(keepSeconds: number, now: number): boolean {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.started = false;
    this.send();
    const ok = this.call({ op: "stop", keepSeconds, now }, 30_000);
    this.memoryDb.close();
    this.worker.terminate();
    rmSync(this.dir, { recursive: true, force: true });
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
        this.o.log("warn", "the query writer thread is busy; reading what it has written so far");
        return false;
      }
      Atomics.wait(this.state, State.DONE, d, left);
    }
  }
}

/** A private directory on tmpfs (/dev/shm, else the temp dir) for the 24 h log; stale ones of dead processes are removed. */
function makeScratchDir(): string {
  for (const base of ["/dev/shm", tmpdir()]) {
    try {
      if (!existsSync(base)) continue;
      removeStale(base);
      const dir = mkdtempSync(join(base, DIR_PREFIX));
      writeFileSync(join(dir, "pid"), String(process.pid));
      return dir;
    } catch {
      // not writable here (a sandboxed service): try the next place
    }
  }
  const dir = join(tmpdir(), `${DIR_PREFIX}${process.pid}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function removeStale(base: string): void {
  for (const name of readdirSync(base)) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    try {
      const pid = Number(readFileSync(join(base, name, "pid"), "utf8"));
      if (pid > 0 && !alive(pid)) rmSync(join(base, name), { recursive: true, force: true });
    } catch {
      // another user's directory, or half-created: leave it
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}
