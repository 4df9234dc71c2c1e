// Everything the services share, created once by `serve` and handed to each of them.
import type { Database } from "bun:sqlite";
import type { ConfigStore } from "../config/index.ts";
import type { QuerySink } from "../stats/record.ts";
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
  /** where the DNS engine hands every query record (the statistics) */
  queries: QuerySink;
  version: VersionInfo;
  /** ms since epoch */
  startedAt: number;
  /** whether the DNS listeners are up (GET /api/info/login `dns`) */
  dnsRunning: () => boolean;
  /** logs one line to the FTL-style log (and stderr) */
  log: (level: "info" | "warn" | "error", message: string) => void;
}
