// `moat serve`: opens storage, builds the shared runtime and starts each service in order. Each
// service prints one line when it listens; any failure stops start-up with one clear line.
import type { CliOptions } from "./main.ts";
import type { ConfigStore } from "./config/index.ts";
import { openGravityDb, openQueryDb } from "./db/index.ts";
import { BlockingSwitch } from "./core/blocking.ts";
import { EventBus } from "./core/events.ts";
import { Logs } from "./core/log.ts";
import type { Paths, Runtime } from "./core/runtime.ts";
import { versionInfo } from "./core/version.ts";
import { startHttp } from "./api/server.ts";
import { Messages } from "./messages/messages.ts";
import { DnsServer } from "./dns/server.ts";
import { gravityService } from "./filter/gravity/runner.ts";
import { Stats } from "./stats/sink.ts";
import { defaultNodeName, startFleet } from "./fleet/fleet.ts";
import { FleetHistory } from "./fleet/pg-history.ts";
import { TlsStore } from "./tls/store.ts";
import { startDhcpService } from "./dhcp/service.ts";
import { startNtpService } from "./ntp/server.ts";

export interface RunningServices {
  runtime: Runtime;
  stop(): Promise<void>;
}

export async function startServices(_o: CliOptions, paths: Paths, config: ConfigStore): Promise<RunningServices> {
  const logs = new Logs();
  const log: Runtime["log"] = (level, message) => logs.write("ftl", level, message);
  for (const w of config.warnings) log("warn", w);

  const wal = config.current.database.useWAL;
  const gravityDb = openGravityDb(paths.dataDir, wal);
  const queryDb = openQueryDb(paths.dataDir, wal);
  const events = new EventBus();
  const stoppers: Array<() => Promise<void> | void> = [];

  const stats = new Stats({ config, disk: queryDb, log });
  const imported = stats.importFromDisk();
  if (imported) log("info", `imported ${imported} queries of the last 24 h from the long-term database`);
  stats.start();
  stoppers.push(() => stats.stop());

  const runtime: Runtime = {
    config,
    paths,
    gravityDb,
    queryDb,
    events,
    blocking: new BlockingSwitch(config, events),
    queries: stats,
    flushQueries: () => stats.flushQueries(),
    stats,
    logs,
    version: versionInfo(),
    startedAt: Date.now(),
    dnsRunning: () => runtime.dns !== null,
    dns: null,
    log,
    tls: new TlsStore({ dataDir: paths.dataDir, config, log }),
  };
  stoppers.push(() => runtime.tls?.stop());

  // the fleet's query history: every record also goes to PostgreSQL, in batches off the DNS path
  const pg = config.current.fleet.postgres;
  if (pg) {
    const history = new FleetHistory(pg, defaultNodeName(runtime), config, log);
    runtime.fleetHistory = history;
    runtime.queries = { record: (r) => (stats.record(r), history.record(r)) };
    stoppers.push(() => history.stop());
  }

  // the command line and editors change the file while Moat runs: apply what they wrote at once
  stoppers.push(
    config.watch((r) => {
      if (!r.ok) log("error", `${r.problem.message}: ${r.problem.hint}`);
      else if (r.changed.length) log("info", `${config.file} changed: applied ${r.changed.join(", ")}`);
    }),
  );

  try {
    const gravity = gravityService(runtime);
    gravity.startSchedule();
    stoppers.push(() => gravity.stop());
    const dns = new DnsServer(runtime);
    await dns.start();
    runtime.dns = dns;
    runtime.restartDns = async () => {
      await dns.flushCache();
      await dns.reloadLists();
    };
    stoppers.push(async () => {
      runtime.dns = null;
      await dns.stop();
    });
    // after DNS listens: the fleet only ever changes what DNS already answers with
    const fleet = startFleet(runtime);
    if (fleet) {
      runtime.fleet = fleet;
      stoppers.push(() => fleet.stop());
      await fleet.ready(3000);
    }
    const dhcp = startDhcpService(runtime);
    runtime.dhcp = dhcp.handle;
    stoppers.push(() => dhcp.stop());
    stoppers.push(noticeMissingUpstreams(runtime));
    const ntp = startNtpService(runtime);
    stoppers.push(() => ntp.stop());
    const http = await startHttp(runtime);
    stoppers.push(() => http.stop());
    // said once every listener is up: a port that fails after DNS started must not read as a success
    console.log(`moat: DNS listening on udp [::]:${dns.port}/tcp [::]:${dns.port}`);
    if (dns.dotPort()) console.log(`moat: DNS over TLS listening on tcp [::]:${dns.dotPort()}`);
    for (const url of http.urls) console.log(`moat: API listening on ${url}`);
  } catch (e) {
    for (const s of stoppers.reverse()) await s();
    throw e;
  }

  return {
    runtime,
    async stop() {
      runtime.blocking.stop();
      for (const s of stoppers.reverse()) await s();
      gravityDb.close();
      queryDb.close();
    },
  };
}

/** Pi-hole's wording (dnsmasq's warning, shown as a DNSMASQ_WARN message) for a resolver with nowhere to forward. */
const NO_UPSTREAM = "no upstream servers configured";

/**
 * With no upstream, every name Moat cannot answer itself gets SERVFAIL: say so in the log at start and
 * in /api/info/messages (once), and take the message back as soon as upstreams are set.
 */
function noticeMissingUpstreams(rt: Runtime): () => void {
  const messages = new Messages(rt.queryDb);
  const check = (atStart: boolean) => {
    const none = rt.config.current.dns.upstreams.length === 0;
    const raised = messages.has("DNSMASQ_WARN", NO_UPSTREAM);
    if (none && (atStart || !raised)) rt.log("warn", `${NO_UPSTREAM} (dns.upstreams): names Moat cannot answer itself get SERVFAIL; set them in the dashboard, with PATCH /api/config/dns/upstreams or in ${rt.config.file}`);
    if (none && !raised) {
      try {
        messages.raise("DNSMASQ_WARN", NO_UPSTREAM);
      } catch (e) {
        // the log line above stays
        rt.log("warn", `could not store message: ${(e as Error).message}`);
      }
    }
    if (!none && raised) messages.clear("DNSMASQ_WARN", NO_UPSTREAM);
  };
  check(true);
  return rt.config.subscribe((_next, _prev, changed) => {
    if (changed.includes("dns.upstreams")) check(false);
  });
}
