// What `moat serve` creates before any service starts (src/services.ts) and every service may read.
// A service takes the part it uses (`Pick<Runtime, …>` in its own deps type); what one service
// offers another (the DNS engine, the statistics, the DHCP leases, …) is handed over by
// src/services.ts in that consumer's deps, never through here, so core knows no service.
import type { Database } from "bun:sqlite";
import type { ConfigStore } from "../config/index.ts";
import type { Logs, Level } from "./log.ts";
import type { BlockingSwitch } from "./blocking.ts";
import type { EventBus } from "./events.ts";
import type { VersionInfo } from "./version.ts";

export interface Paths {
  dataDir: string;
  configFile: string;
  gravityDb: string;
  queryDb: string;
}

/** The Runtime without the database handles: what a service that holds the owners' objects (the API) reads. */
export interface Context {
  config: ConfigStore;
  paths: Paths;
  events: EventBus;
  blocking: BlockingSwitch;
  /** logs one line to the FTL-style log (and stderr) */
  log: (level: Level, message: string) => void;
  /** the in-memory log FIFOs behind /api/logs/* (what `log` writes to) */
  logs: Logs;
  version: VersionInfo;
  /** ms since epoch */
  startedAt: number;
}

/** The handles are for the tables' owners (scripts/check-architecture.ts reads their names here). */
export interface Runtime extends Context {
  gravityDb: Database;
  queryDb: Database;
}

/** The runtime without its handles, for the API's deps (a spread of the Runtime would carry them along). */
export function contextOf(rt: Runtime): Context {
  const { gravityDb: _gravity, queryDb: _query, ...context } = rt;
  return context;
}
