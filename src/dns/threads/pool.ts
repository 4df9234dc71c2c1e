// The main thread's side of the extra DNS threads (worker.ts): starts them once the main thread's
// sockets are bound, tells every one of them each change (config, blocking, filter snapshot, cache
// flush, DHCP names, client names) and waits until each has it in force, takes their query records
// into the statistics and keeps their latest counters. A thread that dies is started again in its
// place, later each time it dies again soon after its start.
import type { ConfigStore, Config } from "../../config/index.ts";
import type { Snapshot } from "../../filter/snapshot.ts";
import { domainsOf } from "../../filter/build.ts";
import { workerUrl } from "../../core/worker-url.ts";
import { decodeBatch } from "../../query/record-batch.ts";
import type { QuerySink } from "../../query/record.ts";
import type { SharedCacheMemory } from "../cache.ts";
import { toThread } from "./shared-snapshot.ts";
import { sumThreadCounters } from "./sums.ts";
import type { FromThread, LeaseNames, ThreadCounters, ThreadInit, ToThread } from "./protocol.ts";

export interface PoolOptions {
  /** extra threads to start (the main thread is the first DNS thread) */
  count: number;
  port: number;
  /** null: the wildcard and every local address; else that interface's addresses and loopback (../udp-listeners.ts) */
  iface: string | null;
  config: ConfigStore;
  blocking: { readonly active: boolean };
  snapshot: () => Snapshot;
  leases: () => LeaseNames;
  names: () => Iterable<[string, string]>;
  /** the name on Moat's certificate (DDR, special.ts) */
  certName: () => string | null;
  /** the answer cache the threads share with the main thread's */
  cache: () => SharedCacheMemory;
  /** where the threads' query records go (read at each batch: the fleet may wrap it) */
  sink: () => QuerySink;
  /** a thread's forwarded query came back to Moat (QueryEngine's `loop`) */
  loop: (upstream: string) => void;
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** a thread's client went over the rate limit (src/dns/ratelimit.ts) */
  rateLimited: (client: string, seconds: number) => void;
  /** a thread died (it is started again in `restartMs`): what the log says, for /api/info/messages */
  died?: (thread: number, text: string) => void;
}

/** A change not acknowledged by then is given up on (a stuck thread must not hang the API). */
const ACK_TIMEOUT_MS = 10_000;
/**
 * A thread that died is started again after RESTART_MIN_MS, and after twice the last wait (up to
 * RESTART_MAX_MS) when it had run less than STABLE_MS: one that dies at once does not spin.
 */
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 60_000;
const STABLE_MS = 60_000;

type Op = ToThread extends infer T ? (T extends { seq: number } ? Omit<T, "seq"> : never) : never;

export class DnsThreads {
  /** null while a thread that died waits to be started again */
  private readonly workers: Array<Worker | null> = [];
  private readonly latest: Array<ThreadCounters | null> = [];
  /** the counters of the threads that died at each place: its counters go on from them */
  private readonly before: Array<ThreadCounters | null> = [];
  private readonly lives: Array<{ startedAt: number; wait: number; timer: ReturnType<typeof setTimeout> | null }> = [];
  private stopped = false;
  private seq = 0;
  private readonly waiters = new Map<number, { left: Set<number>; resolve: () => void }>();

  private constructor(private readonly o: PoolOptions) {}

  /** Starts the threads; rejects (with every thread stopped) when one cannot bind or start. */
  static async start(o: PoolOptions): Promise<DnsThreads> {
    const pool = new DnsThreads(o);
    const ready: Promise<string | null>[] = [];
    for (let i = 0; i < o.count; i++) ready.push(pool.spawn(i));
    const errors = (await Promise.all(ready)).filter((e) => e !== null);
    if (errors.length) {
      pool.terminate();
      throw new Error(errors[0]!);
    }
    return pool;
  }

  private spawn(i: number): Promise<string | null> {
    const o = this.o;
    // the name is the OS thread's too (top -H, /proc/<pid>/task/*/comm, bench/mix's per-thread CPU)
    const w = new Worker(workerUrl("dns/threads/worker.ts"), { name: `dns-${i + 1}` } as WorkerOptions);
    (w as unknown as { unref?: () => void }).unref?.();
    this.workers[i] = w;
    this.latest[i] = null;
    this.before[i] ??= null;
    const life = (this.lives[i] ??= { startedAt: 0, wait: 0, timer: null });
    life.startedAt = Date.now();
    // an uncaught error ends a thread as an exit does: either way Bun closes its sockets and says `close`
    w.addEventListener("close", () => this.died(i, w));
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(`DNS thread ${i + 1} did not start`), ACK_TIMEOUT_MS);
      w.onmessage = (ev: MessageEvent<FromThread>) => {
        const m = ev.data;
        if (m.op === "ready") {
          clearTimeout(timer);
          resolve(m.error);
        } else this.receive(i, m);
      };
      w.onerror = (ev) => {
        clearTimeout(timer);
        o.log("error", `DNS thread ${i + 1}: ${ev.message}`);
        resolve(ev.message);
        this.gone(i);
      };
      const snap = o.snapshot();
      const init: ThreadInit = {
        op: "init",
        index: i + 1,
        port: o.port,
        iface: o.iface,
        config: o.config.current,
        blocking: o.blocking.active,
        snapshot: toThread(snap.data),
        builtAt: snap.builtAt,
        leases: o.leases(),
        names: [...o.names()],
        certName: o.certName(),
        cache: o.cache(),
      };
      w.postMessage(init);
    });
  }

  private receive(i: number, m: FromThread): void {
    switch (m.op) {
      case "records": {
        const sink = this.o.sink();
        for (const s of decodeBatch(m.batch)) sink.record(s.r);
        break;
      }
      case "counters":
        this.latest[i] = m.counters;
        break;
      case "done": {
        this.latest[i] = m.counters;
        const w = this.waiters.get(m.seq);
        if (w?.left.delete(i) && w.left.size === 0) w.resolve();
        break;
      }
      case "log":
        this.o.log(m.level, `DNS thread ${i + 1}: ${m.message}`);
        break;
      case "rate-limited":
        this.o.rateLimited(m.client, m.seconds);
        break;
      case "loop":
        this.o.loop(m.upstream);
        break;
    }
  }

  /** A thread that died acknowledges nothing more: nobody waits for it. */
  private gone(i: number): void {
    for (const w of this.waiters.values()) if (w.left.delete(i) && w.left.size === 0) w.resolve();
  }

  /**
   * Thread i ended while the pool runs: its sockets closed with it, so the kernel hands its share of
   * the queries to the other sockets on the port (the main thread's wildcard one included) until it
   * is started again in its place, with the state every thread gets at its start.
   */
  private died(i: number, w: Worker): void {
    if (this.stopped || this.workers[i] !== w) return;
    this.workers[i] = null;
    this.gone(i);
    const last = this.latest[i];
    const before = this.before[i];
    if (last) this.before[i] = before ? sumThreadCounters(before, last) : last;
    this.latest[i] = null;
    const life = this.lives[i]!;
    const ran = Date.now() - life.startedAt;
    life.wait = ran >= STABLE_MS || life.wait === 0 ? RESTART_MIN_MS : Math.min(RESTART_MAX_MS, life.wait * 2);
    const text = `DNS thread ${i + 1} stopped after ${(ran / 1000).toFixed(1)} s (the error above, if any, says why): the other DNS threads answer its queries meanwhile, and Moat starts it again in ${(life.wait / 1000).toFixed(1)} s (later each time it stops again within a minute). If this repeats, set dns.threads to 1 so that the main thread answers alone, and report the error`;
    this.o.log("error", text);
    this.o.died?.(i + 1, text);
    life.timer = setTimeout(() => void this.restart(i), life.wait);
  }

  private async restart(i: number): Promise<void> {
    this.lives[i]!.timer = null;
    if (this.stopped) return;
    const error = await this.spawn(i);
    if (error === null) {
      this.o.log("info", `DNS thread ${i + 1} started again`);
      return;
    }
    // it could not bind or start: ended, which starts the next try after a longer wait
    this.o.log("error", `DNS thread ${i + 1} did not start again: ${error}`);
    this.workers[i]?.terminate();
  }

  /** Tells every thread; resolves once each has it in force. */
  private tell(op: Op, timeoutMs = ACK_TIMEOUT_MS): Promise<void> {
    const seq = ++this.seq;
    return new Promise<void>((resolve) => {
      const left = new Set<number>();
      this.workers.forEach((w, i) => w && left.add(i));
      const timer = setTimeout(() => done(), timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(seq);
        resolve();
      };
      this.waiters.set(seq, { left, resolve: done });
      for (const w of this.workers) w?.postMessage({ ...op, seq });
      if (!left.size) done();
    });
  }

  config(next: Config, changed: readonly string[]): Promise<void> {
    return this.tell({ op: "config", config: next, changed });
  }

  blocking(active: boolean): Promise<void> {
    return this.tell({ op: "blocking", active });
  }

  /** A new filter snapshot; `domainsOnly`: only its domain entries differ, the threads keep their gravity sets. */
  snapshot(s: Snapshot, domainsOnly: boolean): Promise<void> {
    if (domainsOnly) return this.tell({ op: "domains", data: domainsOf(s.data), builtAt: s.builtAt });
    return this.tell({ op: "snapshot", data: toThread(s.data), builtAt: s.builtAt });
  }

  flush(): Promise<void> {
    return this.tell({ op: "flush" });
  }

  /** The main thread's new table of answers (dns.cache.size changed). */
  cache(answers: SharedArrayBuffer): Promise<void> {
    return this.tell({ op: "cache", answers });
  }

  /** Resolves once the records of every query the threads answered so far have reached the sink. */
  sync(): Promise<void> {
    // a read waits for this: a thread too busy to answer in time is read as it stands
    return this.tell({ op: "sync" }, 500);
  }

  leases(names: LeaseNames): Promise<void> {
    return this.tell({ op: "leases", names });
  }

  name(ip: string, name: string | null): Promise<void> {
    return this.tell({ op: "name", ip, name });
  }

  /** Each thread's latest counters (null until it first reports), after those of the threads that died in its place. */
  counters(): ReadonlyArray<ThreadCounters | null> {
    return this.latest.map((now, i) => {
      const before = this.before[i] ?? null;
      return before && now ? sumThreadCounters(before, now) : (now ?? before);
    });
  }

  async stop(): Promise<void> {
    await this.tell({ op: "stop" });
    this.terminate();
  }

  private terminate(): void {
    this.stopped = true;
    for (const life of this.lives) if (life?.timer) clearTimeout(life.timer);
    for (const w of this.workers) w?.terminate();
    this.workers.length = 0;
  }
}
