// The API's reads of the long-term database, on a thread of their own (reader-worker.ts, what it runs:
// reader-ops.ts). A query log filter no index serves scans its time range (0.2-0.5 s over 1M queries
// on this machine, several times that on a Pi), a week's top list takes ~0.1 s, and the statistics
// first write their rollups, which waits for the query writer's transaction: on the main thread, no
// DNS answer left meanwhile (bench/querylog/search-while-answering.ts). The thread starts with the
// first read and ends after IDLE_MS without one.
import { workerUrl } from "../core/worker-url.ts";
import { FilterError } from "./read.ts";
import type { ReadArgs, ReadName, ReadResult } from "./reader-ops.ts";
import type { ReaderReply, ReaderRequest } from "./reader-protocol.ts";

const IDLE_MS = 30_000;

export class DiskReader {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();
  private idle: ReturnType<typeof setTimeout> | null = null;

  constructor(
    /** pihole-FTL.db */
    private readonly file: string,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** One of reader-ops.ts's reads; FilterError for a bad query log filter. */
  read<K extends ReadName>(read: K, ...args: ReadArgs<K>): Promise<ReadResult<K>> {
    const seq = ++this.seq;
    const w = this.start();
    return new Promise<ReadResult<K>>((resolve, reject) => {
      this.waiting.set(seq, { resolve: resolve as (r: unknown) => void, reject });
      w.postMessage({ seq, file: this.file, read, args } satisfies ReaderRequest);
    });
  }

  /** Ends the thread; reads still waiting fail. */
  stop(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    void this.worker?.terminate();
    this.worker = null;
    for (const w of this.waiting.values()) w.reject(new Error("the long-term database reader stopped"));
    this.waiting.clear();
  }

  private start(): Worker {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    if (this.worker) return this.worker;
    const w = new Worker(workerUrl("querylog/reader-worker.ts"));
    // a reader never keeps the process alive: the read that needs it holds a promise instead
    w.unref();
    w.onmessage = (e: MessageEvent<ReaderReply>) => this.settle(e.data);
    w.onerror = (e) => {
      // the thread is gone: what it was reading fails, the next read starts another
      this.worker = null;
      for (const x of this.waiting.values()) x.reject(new Error(e.message));
      this.waiting.clear();
    };
    this.worker = w;
    return w;
  }

  private settle(r: ReaderReply): void {
    const w = this.waiting.get(r.seq);
    if (!w) return;
    this.waiting.delete(r.seq);
    if ("result" in r) w.resolve(r.result);
    else w.reject(r.hint === null ? new Error(r.error) : new FilterError(r.error, r.hint));
    if (!this.waiting.size) {
      this.idle = setTimeout(() => this.stop(), this.idleMs);
      this.idle.unref?.();
    }
  }
}
