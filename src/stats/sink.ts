// The statistics service: the QuerySink the DNS engine calls for every answered query. record()
// only applies the privacy level and appends to memory; the in-memory query log is filled from
// a queue on demand (or every second) and the long-term database every `database.DBinterval`
// seconds. A failed write keeps its records for the next attempt.
import type { Database } from "bun:sqlite";
import type { ConfigStore } from "../config/index.ts";
import type { QueryRecord, QuerySink } from "./record.ts";
import { QueryStore, type StoredRecord } from "./store.ts";
import { QueryWindow, WINDOW_SECONDS } from "./window.ts";

/** Privacy level 1+ replaces the domain, 2+ also the client (Pi-hole's spelling). */
export const HIDDEN_DOMAIN = "hidden";
export const HIDDEN_CLIENT = "0.0.0.0";
/** Records kept for the long-term database when it keeps failing, before the oldest are dropped. */
const MAX_PENDING = 1_000_000;

export interface StatsOptions {
  config: ConfigStore;
  /** the long-term database (pihole-FTL.db) */
  disk: Database;
  log: (level: "info" | "warn" | "error", message: string) => void;
  now?: () => number;
}

export class Stats implements QuerySink {
  readonly window: QueryWindow;
  /** the last 24 h as SQL, for /api/queries */
  readonly memory: QueryStore;
  readonly disk: QueryStore;
  private nextId: number;
  private toMemory: StoredRecord[] = [];
  private toDisk: StoredRecord[] = [];
  private timers: Array<ReturnType<typeof setInterval>> = [];
  private lastPrune = 0;
  private diskFailures = 0;
  /** counters for /api/info/ftl and /metrics */
  readonly counters = { diskWrites: 0, diskWriteErrors: 0, dropped: 0 };
  private readonly now: () => number;

  constructor(private readonly o: StatsOptions) {
    this.now = o.now ?? (() => Date.now() / 1000);
    this.window = new QueryWindow(this.now);
    this.memory = QueryStore.memory();
    this.disk = new QueryStore(o.disk);
    this.nextId = this.disk.maxId() + 1;
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
      const stored = { id: this.nextId++, r: rec };
      this.window.add(rec);
      this.toMemory.push(stored);
      if (this.o.config.current.database.maxDBdays > 0) {
        if (this.toDisk.length >= MAX_PENDING) {
          // Drop the oldest tenth at once: shifting one record per query would make every record O(n) on the hot path.
          const drop = MAX_PENDING / 10;
          this.toDisk.splice(0, drop);
          this.counters.dropped += drop;
        }
        this.toDisk.push(stored);
      }
    } catch {
      // Statistics must never take DNS down with them.
    }
  }

  /** Loads the last 24 h from the long-term database (database.DBimport). */
  importFromDisk(): number {
    if (!this.o.config.current.database.DBimport) return 0;
    const rows = this.disk.readSince(this.now() - WINDOW_SECONDS);
    for (const s of rows) this.window.add(s.r);
    this.memory.insert(rows);
    return rows.length;
  }

  start(): void {
    this.timers.push(setInterval(() => this.syncMemory(), 1000));
    const tick = () => {
      const every = this.o.config.current.database.DBinterval * 1000;
      this.timers.push(
        setTimeout(() => {
          this.flushDisk();
          tick();
        }, every) as unknown as ReturnType<typeof setInterval>,
      );
    };
    tick();
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    this.flushDisk();
    this.memory.db.close();
  }

  /** POST /api/action/flush/logs: the last 24 h leave memory and the write queue (the caller clears the disk). */
  flushQueries(): void {
    this.toMemory = [];
    this.toDisk = [];
    this.window.clear();
    this.memory.prune(Number.MAX_SAFE_INTEGER);
  }

  /** Moves queued records into the in-memory query log and ages out both memory views. */
  syncMemory(): void {
    this.window.expire();
    if (this.toMemory.length) {
      const batch = this.toMemory;
      this.toMemory = [];
      try {
        this.memory.insert(batch);
      } catch (e) {
        this.o.log("error", `in-memory query log insert failed: ${(e as Error).message}`);
      }
    }
    const now = this.now();
    if (now - this.lastPrune >= 60) {
      this.lastPrune = now;
      this.memory.prune(now - WINDOW_SECONDS);
    }
  }

  /** Writes queued records to the long-term database and applies database.maxDBdays. */
  flushDisk(): boolean {
    const days = this.o.config.current.database.maxDBdays;
    if (days <= 0) {
      this.toDisk = [];
      return true;
    }
    const batch = this.toDisk;
    if (batch.length) {
      try {
        this.disk.insert(batch);
        this.toDisk = this.toDisk.slice(batch.length);
        this.counters.diskWrites++;
        this.diskFailures = 0;
      } catch (e) {
        this.counters.diskWriteErrors++;
        if (this.diskFailures++ === 0) this.o.log("error", `writing ${batch.length} queries to the long-term database failed (kept for the next attempt): ${(e as Error).message}`);
        return false;
      }
    }
    try {
      this.disk.prune(this.now() - days * 86400);
    } catch (e) {
      this.o.log("warn", `pruning the long-term database failed: ${(e as Error).message}`);
    }
    return true;
  }

  /** Records not yet in the long-term database. */
  get pendingDisk(): number {
    return this.toDisk.length;
  }
}
