// Everything the services share, created once by `serve` and handed to each of them.
import type { Database } from "bun:sqlite";
import type { ConfigStore } from "../config/index.ts";
import type { QuerySink } from "../query/record.ts";
import type { Stats } from "../stats/sink.ts";
import type { Logs } from "./log.ts";
import type { BlockingSwitch } from "./blocking.ts";
import type { EventBus } from "./events.ts";
import type { VersionInfo } from "./version.ts";
import type { DnsHandle } from "../dns/server.ts";
import type { Fleet } from "../fleet/fleet.ts";
import type { FleetHistory } from "../fleet/pg-history.ts";
import type { DhcpHandle } from "../dhcp/service.ts";
import type { TlsStore } from "../tls/store.ts";

export interface Paths {
  dataDir: string;
  configFile: string;
  gravityDb: string;
  queryDb: string;
}

export interface Runtime {
  config: ConfigStore;
  paths: Paths;
  gravityDb: Database;
  queryDb: Database;
  events: EventBus;
  blocking: BlockingSwitch;
  /** where the DNS engine hands every query record (the statistics) */
  queries: QuerySink;
  version: VersionInfo;
  /** ms since epoch */
  startedAt: number;
  /** whether the DNS listeners are up (GET /api/info/login `dns`) */
  dnsRunning: () => boolean;
  /** the DNS engine once it listens (upstream stats, cache counters, filter state), else null */
  dns: DnsHandle | null;
  /** POST /api/action/restartdns: drop the cache and rebuild the filter from the databases */
  restartDns?: () => Promise<void>;
  /** POST /api/action/flush/logs: the statistics forget the queries they hold in memory */
  flushQueries?: () => void;
  /** logs one line to the FTL-style log (and stderr) */
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** the in-memory log FIFOs behind /api/logs/* */
  logs?: Logs;
  /** statistics and query log (the same object as `queries` when the sink is running) */
  stats?: Stats;
  /** the DHCP leases and counters (the lease database is read even while DHCP is off) */
  dhcp?: DhcpHandle;
  /** extra counters beyond DnsHandle (reply origins); the statistics read `dns` first, then this */
  dnsCounters?: DnsCounters;
  /** the certificate of HTTPS and DNS over TLS (src/tls/) */
  tls?: TlsStore;
  /** this node's link to the fleet (src/fleet/), when fleet.redis is set */
  fleet?: Fleet | null;
  /** the fleet's shared query history in PostgreSQL, when fleet.postgres is set */
  fleetHistory?: FleetHistory | null;
}

/** What the DNS engine exposes for /api/info/metrics, /api/padd and /metrics. */
export interface DnsCounters {
  cache: {
    /** configured capacity (entries) */
    size: number;
    /** entries currently held */
    entries: number;
    inserted: number;
    evicted: number;
    expired: number;
    immortal: number;
    hits: number;
    misses: number;
  };
  /** answers by origin since start */
  replies?: { forwarded: number; unanswered: number; local: number; optimized: number; auth: number };
  /**
   * The unique domains on the block lists, as the filter in force holds them (= COUNT(DISTINCT domain)
   * of the gravity table, Pi-hole's gravity_count): domains_being_blocked, gravity_size, /api/info/ftl
   * database.gravity and /metrics all show this one number. Deny entries are counted apart.
   */
  gravitySize?: () => number;
}
