// An extra DNS thread: its own UDP socket(s) on dns.port (SO_REUSEPORT), its own resolver chain and
// forwarder, the main thread's answer cache (shared memory), judging by the main thread's filter snapshot (its gravity
// sets mapped from their file by this thread, the rest in shared memory: shared-snapshot.ts). Its query
// records go to the main thread in columnar batches, where the statistics count each once.
import { Snapshot } from "../../filter/snapshot.ts";
import { POLICIES } from "../../policies/registry.ts";
import { BatchBuilder, batchTransferables } from "../../query/record-batch.ts";
import type { QueryRecord, QuerySink } from "../../query/record.ts";
import { QueryEngine } from "../engine.ts";
import { UdpListeners } from "../udp-listeners.ts";
import { ConfigMirror } from "./config-mirror.ts";
import { fromMain } from "./shared-snapshot.ts";
import type { FromThread, ThreadCounters, ThreadInit, ToThread } from "./protocol.ts";

declare const self: Worker;

const post = (m: FromThread, transfer: ArrayBuffer[] = []) => self.postMessage(m, transfer);
const log = (level: "info" | "warn" | "error", message: string) => post({ op: "log", level, message });

/**
 * Records reach the main thread RELAY_MS after the first of a batch, or at RELAY_MAX records: each
 * batch wakes the main thread twice (the batch, then its writer's hand-over 10 ms later), whatever its
 * size, so fewer, larger batches cut the hand-off's CPU, most at low rates (README.md). Reads of the
 * statistics and the query log do not wait for it: they ask for the records first (`sync`).
 */
const RELAY_MS = 50;
const RELAY_MAX = 1024;

/**
 * Tests only (test/dns/threads-restart.test.ts): with this set to a name, a query for it ends the thread
 * with an uncaught error, as a defect in it would. Unset (always, outside tests), nothing is looked at.
 */
const CRASH_ENV = "MOAT_TEST_DNS_THREAD_CRASH";

/** A test that tells whether a query asks for `name` (its labels as they are on the wire). */
function asksFor(name: string): (buf: Uint8Array) => boolean {
  const wire = Buffer.concat(name.split(".").map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])));
  return (buf) => Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).includes(wire);
}

class RecordRelay implements QuerySink {
  private readonly pending = new BatchBuilder(RELAY_MAX);
  private timer: ReturnType<typeof setTimeout> | null = null;

  record(r: QueryRecord): void {
    this.pending.add(0, r);
    if (this.pending.count >= RELAY_MAX) this.flush();
    else if (!this.timer) this.timer = setTimeout(this.flush, RELAY_MS);
  }

  readonly flush = (): void => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.pending.count) return;
    const batch = this.pending.take();
    post({ op: "records", batch }, batchTransferables(batch));
  };
}

class DnsThread {
  private readonly config: ConfigMirror;
  private readonly blocking: { active: boolean };
  private snapshot: Snapshot;
  private readonly names: Map<string, string>;
  private readonly relay = new RecordRelay();
  private readonly engine: QueryEngine;
  private sockets: UdpListeners | null = null;
  private lastSent = -1;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(private readonly init: ThreadInit) {
    this.config = new ConfigMirror(init.config);
    this.blocking = { active: init.blocking };
    this.names = new Map(init.names);
    this.snapshot = this.snapshotOf(init.snapshot, init.builtAt);
    this.engine = new QueryEngine({
      config: this.config,
      blocking: this.blocking,
      sink: this.relay,
      log,
      rateLimited: (client, seconds) => post({ op: "rate-limited", client, seconds }),
      loop: (upstream) => post({ op: "loop", upstream }),
      snapshot: () => this.snapshot,
      certName: () => this.init.certName,
      sharedCache: init.cache,
    });
    this.engine.local.setLeaseNames(init.leases);
    this.timer = setInterval(() => this.sendCounters(), 250);
  }

  async start(): Promise<void> {
    await this.engine.start();
    const crashName = process.env[CRASH_ENV];
    const crashes = crashName ? asksFor(crashName) : null;
    const handle = (buf: Uint8Array, client: string) => {
      if (crashes?.(buf))
        setTimeout(() => {
          throw new Error(`${CRASH_ENV}: a query for ${crashName} ends this thread`);
        });
      return this.engine.handle(buf, client, false);
    };
    // its own scans keep it in step with the addresses, as the main thread's keep that one
    this.sockets = new UdpListeners(this.init.port, this.init.iface, false, handle, log);
    await this.sockets.start();
  }

  apply(m: Exclude<ToThread, ThreadInit>): void {
    switch (m.op) {
      case "config":
        this.config.set(m.config, m.changed);
        break;
      case "blocking":
        this.blocking.active = m.active;
        break;
      case "snapshot":
        try {
          this.snapshot = this.snapshotOf(m.data, m.builtAt);
        } catch (e) {
          log("error", `keeping the previous filter snapshot: ${(e as Error).message}`);
        }
        break;
      case "domains":
        this.snapshot = this.snapshot.withDomains(m.data, m.builtAt);
        break;
      case "flush":
        // the answers too large to share: the main thread emptied the shared ones
        this.engine.cache.clear();
        break;
      case "cache":
        this.engine.cache.adopt(m.answers);
        break;
      case "sync":
        break;
      case "leases":
        this.engine.local.setLeaseNames(m.names);
        break;
      case "name":
        if (m.name === null) this.names.delete(m.ip);
        else this.names.set(m.ip, m.name);
        this.snapshot.forget(m.ip);
        break;
      case "stop":
        this.stop();
        break;
    }
    // records of queries answered before the change reach the statistics before its acknowledgement
    this.relay.flush();
    post({ op: "done", seq: m.seq, counters: this.counters() });
  }

  private stop(): void {
    clearInterval(this.timer);
    void this.sockets?.close();
    this.sockets = null;
    this.engine.stop();
  }

  private snapshotOf(data: ThreadInit["snapshot"], builtAt: number): Snapshot {
    return new Snapshot(fromMain(data), POLICIES, builtAt, { hostnameOf: (ip) => this.names.get(ip) ?? null });
  }

  private counters(): ThreadCounters {
    const e = this.engine;
    return {
      answered: e.answered,
      origins: { ...e.origins },
      cache: e.cache.stats(),
      upstreams: e.forwarder.stats(),
      recursive: e.recursive.counters(),
    };
  }

  private sendCounters(): void {
    if (this.engine.answered === this.lastSent) return;
    this.lastSent = this.engine.answered;
    post({ op: "counters", counters: this.counters() });
  }
}

let thread: DnsThread | null = null;

self.onmessage = (ev: MessageEvent<ToThread>) => {
  const m = ev.data;
  if (m.op === "init") {
    try {
      thread = new DnsThread(m);
    } catch (e) {
      post({ op: "ready", error: (e as Error).message });
      return;
    }
    thread.start().then(
      () => post({ op: "ready", error: null }),
      (e: Error) => post({ op: "ready", error: `${e.message} ${(e as { code?: string }).code ?? ""}`.trim() }),
    );
    return;
  }
  thread?.apply(m);
};
