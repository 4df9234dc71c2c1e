// The statistics service: the QuerySink the DNS engine calls for every answered query. record()
// only applies the privacy level, counts the query in the 24 h window and queues it; the query
// writer thread (src/querylog/writer.ts) puts it into the 24 h log and, every `database.DBinterval` seconds,
// the long-term database. A failed write keeps its records for the next attempt.
import type { Database } from "bun:sqlite";
import type { ConfigStore } from "../config/index.ts";
import type { QueryRecord, QuerySink } from "../query/record.ts";
import { firstQueryIdSince, lastQueryId, readStoredFrom } from "../querylog/store.ts";
import { QueryWindow, WINDOW_SECONDS } from "./window.ts";
import { QueryWriter } from "../querylog/writer.ts";
import { logBudgetBytes, memoryLimitBytes } from "../querylog/log-budget.ts";
import { HISTORY_SHARE, queriesFitting, windowBudgetBytes } from "./budget.ts";

/** Privacy level 1+ replaces the domain, 2+ also the client (Pi-hole's spelling). */
export const HIDDEN_DOMAIN = "hidden";
export const HIDDEN_CLIENT = "0.0.0.0";

interface StatsOptions {
  config: ConfigStore;
  /** the long-term database (pihole-FTL.db); read here, written by the writer thread */
  disk: Database;
  log: (level: "info" | "warn" | "error", message: string) => void;
  now?: () => number;
  /** how long a write waits for a locked long-term database (tests use 0) */
  busyTimeoutMs?: number;
  /** the memory this process may use (default: its cgroup's limit, else the machine's); budget.ts */
  limitBytes?: number;
  /** says that the window sheds its oldest queries to keep within its budget (at most once an hour) */
  notice?: (text: string, dropped: number) => void;
}

export class Stats implements QuerySink {
  readonly window: QueryWindow;
  /** the long-term database, for the API's reads */
  readonly disk: { readonly db: Database };
  private readonly writer: QueryWriter;
  private nextId: number;
  /** the id of this process's first record: the import at start reads only ids below it */
  private readonly firstLiveId: number;
  /** bumped by stop() and flushQueries(): an import in progress ends */
  private importEpoch = 0;
  private timers: Array<ReturnType<typeof setTimeout>> = [];
  private lastPrune = 0;
  private readonly now: () => number;
  private readonly limitBytes: number;
  /** time of the last shedding notice */
  private lastShedNotice = 0;

  constructor(private readonly o: StatsOptions) {
    this.now = o.now ?? (() => Date.now() / 1000);
    this.limitBytes = o.limitBytes ?? memoryLimitBytes();
    this.window = new QueryWindow(this.now, () => this.historySeconds());
    this.disk = { db: o.disk };
    this.nextId = this.firstLiveId = lastQueryId(o.disk) + 1;
    this.writer = new QueryWriter({
      diskPath: o.disk.filename,
      log: o.log,
      busyTimeoutMs: o.busyTimeoutMs,
      toDisk: () => this.keepSeconds() > 0,
      budgetMiB: () => o.config.current.database.queryLogMemory,
    });
  }

  /** The last 24 h as SQL. Reading it first waits (blocking) until every queued record is in: for tests and tools; the API awaits freshMemory(). */
  get memory(): { readonly db: Database } {
    this.writer.syncMemory();
    return { db: this.writer.memoryDb };
  }

  /** The last 24 h as SQL, once the queued records are in; the thread answers DNS meanwhile (the API uses this). */
  async freshMemory(): Promise<{ readonly db: Database }> {
    await this.writer.syncMemoryAsync();
    return { db: this.writer.memoryDb };
  }

  /** counters for /api/info/ftl and /metrics */
  get counters() {
    return this.writer.counters;
  }

  /** Hot path: never throws, never waits. */
  record(r: QueryRecord): void {
    try {
      const level = this.o.config.current.misc.privacylevel;
      let rec = r;
      if (level >= 1) rec = { ...r, domain: HIDDEN_DOMAIN, cname: r.cname === null ? null : HIDDEN_DOMAIN };
      if (level >= 2) rec = { ...rec, client: HIDDEN_CLIENT };
      if (level >= 3) {
        // Anonymous mode: only the counters learn about the query; nothing is stored.
        this.window.add({ ...rec, domain: "", client: "", upstream: r.upstream });
        return;
      }
      this.window.add(rec);
      this.writer.add({ id: this.nextId++, r: rec });
    } catch {
      // Statistics must never take DNS down with them.
    }
  }

  /**
   * Loads the window's span (webserver.api.maxHistory) from the long-term database (database.DBimport)
   * into the window and the 24 h log, in steps of about `stepMs` with the event loop free in between:
   * DNS answers from the start while a busy day loads behind it (loaded before DNS, 300k queries kept
   * a small board silent for 95-125 s). The queries answered meanwhile are newer than all of it
   * (QueryWindow.addOlder). Resolves with the number loaded.
   */
  async importFromDisk(stepMs = 4): Promise<number> {
    if (!this.o.config.current.database.DBimport) return 0;
    const epoch = this.importEpoch;
    const since = this.now() - this.historySeconds();
    let from = firstQueryIdSince(this.o.disk, since);
    // no more than the budget holds: the newest of them (ids follow time, and rows go only from the old end)
    if (from !== null) from = Math.max(from, this.firstLiveId - queriesFitting(this.windowBudget()));
    let n = 0;
    let limit = 200;
    while (from !== null && epoch === this.importEpoch) {
      const t = performance.now();
      const rows = readStoredFrom(this.o.disk, since, from, this.firstLiveId, limit);
      for (const s of rows) this.window.addOlder(s.r);
      // already in the long-term database: into the 24 h log only
      this.writer.addStored(rows);
      n += rows.length;
      if (rows.length < limit) break;
      from = rows[rows.length - 1]!.id + 1;
      // the next step sized to take stepMs, as fast as this machine reads now
      const ms = Math.max(0.5, performance.now() - t);
      limit = Math.min(50_000, Math.max(100, Math.round((limit * stepMs) / ms)));
      await new Promise((r) => setTimeout(r, 0));
    }
    return n;
  }

  start(): void {
    this.writer.start();
    this.timers.push(setInterval(() => this.syncMemory(), 1000));
    const tick = () => {
      const every = this.o.config.current.database.DBinterval * 1000;
      this.timers.push(
        setTimeout(() => {
          this.writer.flushDisk(this.keepSeconds(), this.now(), false);
          tick();
        }, every),
      );
    };
    tick();
  }

  async stop(): Promise<void> {
    this.importEpoch++;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    this.writer.stop(this.keepSeconds(), this.now());
  }

  /** POST /api/action/flush/logs: the last 24 h leave memory and the write queue (the caller clears the disk). */
  flushQueries(): void {
    // what an import in progress has not read yet was flushed too
    this.importEpoch++;
    this.writer.clear();
    this.window.clear();
  }

  /** Ages out the 24 h window (cheap; the stats routes call it before reading) and, once a minute, the 24 h log. */
  syncMemory(): void {
    this.window.expire();
    this.keepWithinBudget();
    const now = this.now();
    if (now - this.lastPrune >= 60) {
      this.lastPrune = now;
      this.writer.pruneMemory(now - this.historySeconds());
    }
  }

  /** The window's share of the memory (budget.ts): the history's share, less the 24 h log's budget. */
  private windowBudget(): number {
    return windowBudgetBytes(
      this.limitBytes,
      logBudgetBytes(this.o.config.current.database.queryLogMemory, this.limitBytes),
    );
  }

  private keepWithinBudget(): void {
    const budget = this.windowBudget();
    const shed = this.window.shed(budget);
    if (!shed) return;
    const now = this.now();
    if (now - this.lastShedNotice < 3600) return;
    this.lastShedNotice = now;
    const mib = (b: number) => Math.round(b / 1048576);
    const since = shed.oldest === null ? "now" : new Date(shed.oldest * 1000).toISOString();
    const text = `The statistics reached their memory budget (${mib(budget)} MiB: ${HISTORY_SHARE * 100}% of the ${mib(this.limitBytes)} MiB this process may use, less the query log's budget): the oldest queries are being dropped from the 24 h statistics, which start at ${since} instead of 24 hours ago.`;
    this.o.log("warn", text);
    this.o.notice?.(text, shed.dropped);
  }

  /**
   * How far back the window and the in-memory log reach: webserver.api.maxHistory, at most 24 h (as
   * Pi-hole's FTL: its garbage collection and its import at start both use it). A smaller value is
   * how a board with little memory keeps less.
   */
  private historySeconds(): number {
    return Math.min(WINDOW_SECONDS, Math.max(0, this.o.config.current.webserver.api.maxHistory));
  }

  /** Writes queued records to the long-term database and applies database.maxDBdays; waits for the result. */
  flushDisk(): boolean {
    return this.writer.flushDisk(this.keepSeconds(), this.now(), true) ?? false;
  }

  /** Records not yet in the long-term database. */
  get pendingDisk(): number {
    return this.writer.pendingDisk(this.keepSeconds() > 0);
  }

  private keepSeconds(): number {
    return Math.max(0, this.o.config.current.database.maxDBdays) * 86400;
  }
}
