// Reads of the long-term query log for the API, on a thread of their own (reader-worker.ts): a
// filter no index serves scans its whole time range (0.1-0.7 s over 3M queries on this machine,
// bench/querylog/disk-filters.ts, several times that on a Pi), and on the main thread that long no
// DNS answer left. The thread starts with the first read and ends after IDLE_MS without one.
import { workerUrl } from "../core/worker-url.ts";
import { FilterError, type QueryPage } from "./read.ts";
import type { DiskQueryFilter, ReaderReply, ReaderRequest } from "./reader-protocol.ts";

const IDLE_MS = 30_000;

export class DiskReader {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (p: QueryPage) => void; reject: (e: Error) => void }>();
  private idle: ReturnType<typeof setTimeout> | null = null;

  constructor(
    /** pihole-FTL.db */
    private readonly file: string,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** /api/queries?disk=true: a page of the long-term log; FilterError for a bad filter. */
  queryPage(filter: DiskQueryFilter): Promise<QueryPage> {
    const seq = ++this.seq;
    const w = this.start();
    return new Promise<QueryPage>((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      w.postMessage({ seq, file: this.file, filter } satisfies ReaderRequest);
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
    if ("page" in r) w.resolve(r.page);
    else w.reject(r.hint === null ? new Error(r.error) : new FilterError(r.error, r.hint));
    if (!this.waiting.size) {
      this.idle = setTimeout(() => this.stop(), this.idleMs);
      this.idle.unref?.();
    }
  }
}
