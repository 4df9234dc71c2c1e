// What the main thread and an extra DNS thread (worker.ts) say to each other. Every message from the
// main thread that carries a `seq` is answered with `done` once it is in force in that thread, so a
// change made through the API is in force in every thread before the API answers (read-your-writes).
import type { Config } from "../../config/index.ts";
import type { DomainsData, SnapshotData } from "../../filter/build.ts";
import type { RecordBatch } from "../../query/record-batch.ts";
import type { CacheCounters, SharedCacheMemory } from "../cache.ts";
import type { RecursiveCounters } from "../recursive/handler.ts";
import type { Origins } from "../engine.ts";
import type { UpstreamStats } from "../forwarder.ts";

export type LeaseNames = ReadonlyArray<{ ip: string; name: string }>;

export interface ThreadInit {
  op: "init";
  index: number;
  port: number;
  /** which addresses to bind, as the main thread does (../udp-listeners.ts), each with SO_REUSEPORT */
  iface: string | null;
  config: Config;
  blocking: boolean;
  snapshot: SnapshotData;
  builtAt: number;
  leases: LeaseNames;
  /** client address → host name (clients named by host name in groups) */
  names: Array<[string, string]>;
  /** the name on Moat's certificate (DDR's target, special.ts), as it was when the thread started */
  certName: string | null;
  /** the answer cache every DNS thread shares (../shared-answers.ts) */
  cache: SharedCacheMemory;
}

export type ToThread =
  | ThreadInit
  | { op: "config"; seq: number; config: Config; changed: readonly string[] }
  | { op: "blocking"; seq: number; active: boolean }
  | { op: "snapshot"; seq: number; data: SnapshotData; builtAt: number }
  /** only the domain entries changed: the thread keeps its gravity sets (megabytes) and takes these */
  | { op: "domains"; seq: number; data: DomainsData; builtAt: number }
  | { op: "flush"; seq: number }
  /** dns.cache.size changed: the main thread's new shared table of answers */
  | { op: "cache"; seq: number; answers: SharedArrayBuffer }
  /** nothing to change: acknowledged once the records of every query answered before it are sent */
  | { op: "sync"; seq: number }
  | { op: "leases"; seq: number; names: LeaseNames }
  | { op: "name"; seq: number; ip: string; name: string | null }
  | { op: "stop"; seq: number };

/** A thread's counters, sent a few times a second while it answers, and with every `done`. */
export interface ThreadCounters {
  answered: number;
  origins: Origins;
  cache: CacheCounters;
  upstreams: UpstreamStats[];
  recursive: RecursiveCounters;
}

export type FromThread =
  | { op: "ready"; error: string | null }
  | { op: "records"; batch: RecordBatch }
  | { op: "counters"; counters: ThreadCounters }
  | { op: "done"; seq: number; counters: ThreadCounters }
  | { op: "log"; level: "info" | "warn" | "error"; message: string }
  | { op: "rate-limited"; client: string; seconds: number }
  | { op: "loop"; upstream: string };
