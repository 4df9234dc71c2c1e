// The statistics service: the QuerySink the DNS engine calls for every answered query. record()
// only applies the privacy level, counts the query in the 24 h window (which is also the 24 h query
// log that /api/queries reads) and queues it for the query writer thread (src/querylog/writer.ts),
// which writes the long-term database every `database.DBinterval` seconds. A failed write keeps its
// records for the next attempt.
import type { Database } from "bun:sqlite";
import type { ConfigStore } from "../config/index.ts";
import { sqliteVersion } from "../db/bind.ts";
import { writeWithoutWaiting } from "../db/no-wait.ts";
import { raiseMessage } from "../messages/table.ts";
import type { QueryRecord, QuerySink } from "../query/record.ts";
import { DiskReader } from "../querylog/disk-reader.ts";
import { earliestQuery, storedClientNames, type QueryFilter, type QueryPage } from "../querylog/read.ts";
import { firstQueryIdSince, lastQueryId, readStoredFrom } from "../querylog/store.ts";
import { logBudgetBytes, queriesFitting } from "./budget.ts";
import { windowPage, windowSuggestions } from "./log-page.ts";
import { QueryWindow, WINDOW_SECONDS } from "./window.ts";
import { QueryWriter } from "../querylog/writer.ts";

/** Privacy level 1+ replaces the domain, 2+ also the client (Pi-hole's spelling). */
export const HIDDEN_DOMAIN = "hidden";
export const HIDDEN_CLIENT = "0.0.0.0";

/** Moat's message type for query records the long-term database did not get (reportDrops). */
const LONGTERM_DROPPED = "LONGTERM_DROPPED";
/** keepWithinBudget() sheds down to this share of the budget */
const SHED_TO = 0.98;

interface StatsOptions {
  config: ConfigStore;
  /** the long-term database (pihole-FTL.db); read here, written by the writer thread */
  disk: Database;
  log: (level: "info" | "warn" | "error", message: string) => void;
  now?: () => number;
  /** how long a write waits for a locked long-term database (tests use 0) */
  busyTimeoutMs?: number;
  /** records in flight to the writer thread beyond which new ones are dropped (tests make it small) */
  maxBacklog?: number;
}

export class Stats implements QuerySink {
  readonly window: QueryWindow;
  /** the API's longer reads of the long-term database, on a thread of their own */
  readonly longTerm: DiskReader;
  private readonly writer: QueryWriter;
  private nextId: number;
  /** the id of this process's first record: the import at start reads only ids below it */
  private readonly firstLiveId: number;
  /** bumped by stop() and flushQueries(): an import in progress ends */
  private importEpoch = 0;
  private timers: Array<ReturnType<typeof setTimeout>> = [];
  private readonly now: () => number;

  /** queries that left the window early to keep it within its memory budget */
  private shedCount = 0;
  private lastShedMessage = 0;
  /** queries shed whose message the database held back (another connection was writing) */
  private shedHeldBack = 0;
  /** the writer's dropped count last said in a message, and when */
  private droppedSaid = 0;
  private lastDropMessage = 0;

  constructor(private readonly o: StatsOptions) {
    this.now = o.now ?? (() => Date.now() / 1000);
    this.window = new QueryWindow(this.now, () => this.historySeconds());
    this.nextId = this.firstLiveId = lastQueryId(o.disk) + 1;
    this.writer = new QueryWriter({
      diskPath: o.disk.filename,
      log: o.log,
      busyTimeoutMs: o.busyTimeoutMs,
      maxBacklog: o.maxBacklog,
    });
    this.longTerm = new DiskReader(o.disk.filename);
  }

  /** /api/queries: the 24 h log (the window), read in slices with the event loop free between them. */
  queryPage(f: QueryFilter): Promise<QueryPage> {
    this.syncMemory();
    return windowPage(this.window, f);
  }

  /** Distinct values for the query log's filter boxes. */
  suggestions() {
    return windowSuggestions(this.window);
  }

  /** How many queries the 24 h log holds, and the time of its oldest (0 when empty). */
  logStored(): { count: number; earliest: number } {
    this.syncMemory();
    return { count: this.window.logged, earliest: this.window.oldest?.time ?? 0 };
  }

  /** The oldest query time of the 24 h log and of the long-term database. */
  /** ip → the host name stored with a client's queries, where one is */
  storedClientNames(): Array<{ ip: string; name: string }> {
    return storedClientNames(this.o.disk);
  }

  /** the SQLite library's version, as the long-term database's connection reports it */
  sqliteVersion(): string {
    return sqliteVersion(this.o.disk);
  }

  earliest(): { memory: number; disk: number } {
    return { memory: this.window.oldest?.time ?? 0, disk: earliestQuery(this.o.disk) };
  }

  /** counters for /api/info/ftl and /metrics */
  get counters() {
    return { ...this.writer.counters, shed: this.shedCount };
  }

  /** Hot path: never throws, never waits. */
  record(r: QueryRecord): void {
    try {
      const level = this.o.config.current.misc.privacylevel;
      let rec = r;
      // the answer records name the CNAME chain and the addresses: hidden with the domain
      if (level >= 1)
        rec = { ...r, domain: HIDDEN_DOMAIN, cname: r.cname === null ? null : HIDDEN_DOMAIN, answers: null };
      if (level >= 2) rec = { ...rec, client: HIDDEN_CLIENT };
      if (level >= 3) {
        // Anonymous mode: only the counters learn about the query; nothing is stored.
        this.window.add({ ...rec, domain: "", client: "", upstream: r.upstream, cname: null });
        return;
      }
      const id = this.nextId++;
      this.window.add(rec, id);
      if (this.keepSeconds() > 0) this.writer.add(id, rec);
    } catch {
      // Statistics must never take DNS down with them.
    }
  }

  /**
   * Loads the window's span (webserver.api.maxHistory) from the long-term database (database.DBimport)
   * in steps of about `stepMs` with the event loop free in between: DNS answers from the start while a
   * busy day loads behind it (loaded before DNS, 300k queries kept a small board silent for 95-125 s).
   * The queries answered meanwhile are newer than all of it (QueryWindow.addOlder). Only the newest
   * that fit the memory budget are read. Resolves with the number loaded.
   */
  async importFromDisk(stepMs = 4): Promise<number> {
    if (!this.o.config.current.database.DBimport) return 0;
    const epoch = this.importEpoch;
    const since = this.now() - this.historySeconds();
    let from = firstQueryIdSince(this.o.disk, since);
    // ids follow time, and the budget sheds from the old end: the newest that fit
    if (from !== null) from = Math.max(from, this.firstLiveId - queriesFitting(this.budget()));
    let n = 0;
    let limit = 200;
    while (from !== null && epoch === this.importEpoch) {
      const t = performance.now();
      const rows = readStoredFrom(this.o.disk, since, from, this.firstLiveId, limit);
      // already in the long-term database: into the window (the 24 h log) only
      for (const s of rows) this.window.addOlder(s.r, s.id);
      n += rows.length;
      if (rows.length < limit) break;
      from = rows[rows.length - 1]!.id + 1;
      // the next step sized to take stepMs, as fast as this machine reads now
      const ms = Math.max(0.5, performance.now() - t);
      limit = Math.min(50_000, Math.max(100, Math.round((limit * stepMs) / ms)));
      await new Promise((r) => setTimeout(r, 0));
    }
    this.keepWithinBudget();
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
    this.longTerm.stop();
  }

  /** POST /api/action/flush/logs: the last 24 h leave memory and the write queue (the caller clears the disk). */
  flushQueries(): void {
    // what an import in progress has not read yet was flushed too
    this.importEpoch++;
    this.writer.clear();
    this.window.clear();
  }

  /** Ages out the 24 h window (cheap; the stats routes call it before reading) and keeps it within its budget. */
  syncMemory(): void {
    this.window.expire();
    this.keepWithinBudget();
    this.reportDrops();
  }

  /**
   * Records the writer thread had to drop (it fell behind, or the long-term database kept failing) are
   * queries the last 24 h show and the long-term data will lack: said in a message, one an hour at most.
   */
  private reportDrops(): void {
    const dropped = this.writer.counters.dropped;
    const now = this.now();
    if (dropped <= this.droppedSaid || now - this.lastDropMessage < 3600) return;
    const text = `${dropped - this.droppedSaid} queries were not written to the long-term database: the writer fell behind (it runs only on a core DNS does not need, so a flood that keeps every core busy starves it) or the database kept failing (see the FTL log). The query log and the statistics of the last 24 hours have them; the long-term data will not. If this repeats, find what keeps the machine this busy, or check its disk.`;
    try {
      // not waiting for the database: the writer that fell behind may be writing it now, and this
      // thread answers DNS; the next look (a second on) tries again
      if (
        !writeWithoutWaiting(this.o.disk, () =>
          raiseMessage(this.o.disk, LONGTERM_DROPPED, text, [dropped - this.droppedSaid]),
        )
      )
        return;
      this.droppedSaid = dropped;
      this.lastDropMessage = now;
    } catch (e) {
      // the database is locked or failing: said again at the next look
      this.o.log("warn", `could not store the message about dropped queries: ${(e as Error).message}`);
    }
  }

  private budget(): number {
    return logBudgetBytes(this.o.config.current.database.queryLogMemory);
  }

  /**
   * database.queryLogMemory (0: a quarter of the memory this process may use, its cgroup's limit
   * included): over it the oldest queries leave the window, and a message (one an hour at most)
   * says how far back the day now reaches. Checked once a second (not on every query), down to 98%:
   * each second sheds about what it brought. A step down to 90% held the DNS thread for 15-20 ms at
   * 1.5M queries (150k released at once); a second's 20k at 20k QPS take 2-6 ms (bench/stats/shed.ts).
   */
  private keepWithinBudget(): void {
    const mib = this.o.config.current.database.queryLogMemory;
    const budget = this.budget();
    const used = this.window.bytes();
    let shed = 0;
    if (used > budget && this.window.size) {
      shed = this.window.shed(Math.floor((this.window.size * SHED_TO * budget) / used));
      this.shedCount += shed;
    }
    const now = this.now();
    // a message the database held back at the last look is tried again, whether or not this one shed
    const unsaid = shed + this.shedHeldBack;
    if (!unsaid || now - this.lastShedMessage < 3600) return;
    const setting =
      mib > 0 ? `${mib} MiB` : `${Math.round(budget / 1048576)} MiB, a quarter of the memory this process may use`;
    const since = new Date((this.window.oldest?.time ?? now) * 1000).toISOString();
    const text = `The last 24 hours of queries reached their memory budget (database.queryLogMemory: ${setting}): the oldest queries are being dropped, so the query log and the statistics start at ${since} instead of 24 hours ago. The long-term database keeps every query.`;
    try {
      // not waiting for the database (this thread answers DNS): the next look (a second on) tries again
      if (!writeWithoutWaiting(this.o.disk, () => raiseMessage(this.o.disk, "SHMEM", text, [unsaid]))) {
        this.shedHeldBack = unsaid;
        return;
      }
    } catch (e) {
      this.o.log("warn", `could not store the memory budget message: ${(e as Error).message}`);
    }
    this.shedHeldBack = 0;
    this.lastShedMessage = now;
  }

  /**
   * How far back the window (the 24 h log) reaches: webserver.api.maxHistory, at most 24 h (as
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
    return this.keepSeconds() > 0 ? this.writer.pendingDisk() : 0;
  }

  private keepSeconds(): number {
    return Math.max(0, this.o.config.current.database.maxDBdays) * 86400;
  }
}
