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

export interface Runtime {
  config: ConfigStore;
  paths: Paths;
  gravityDb: Database;
  queryDb: Database;
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
