// `moat serve`: opens storage, builds the shared runtime and starts each service in order, handing
// each one the others it needs. Each service prints one line when it listens; any failure stops
// start-up with one clear line.
import type { ConfigStore } from "./config/index.ts";
import type { Database } from "bun:sqlite";
import type { DiskReader } from "./querylog/disk-reader.ts";
import { openGravityDb, openQueryDb } from "./db/index.ts";
import { BlockingSwitch } from "./core/blocking.ts";
import { EventBus } from "./core/events.ts";
import { Logs } from "./core/log.ts";
import { contextOf, type Paths, type Runtime } from "./core/runtime.ts";
import { versionInfo } from "./core/version.ts";
import { startHttp } from "./api/server.ts";
import { Auth } from "./auth/auth.ts";
import { listsStore } from "./lists/owner.ts";
import { Messages } from "./messages/messages.ts";
import { DnsServer, snapshotForThreads } from "./dns/server.ts";
import { FilterService } from "./filter/service.ts";
import { POLICIES } from "./policies/registry.ts";
import { networkStore } from "./network/store.ts";
import { GravityService } from "./filter/gravity/runner.ts";
import { watchDnssecUpstream } from "./notices/dnssec-upstream.ts";
import { noticeListFailures } from "./notices/list-failures.ts";
import { noticeDnsThreadDeaths } from "./notices/dns-thread.ts";
import { noticeForwardingLoops } from "./notices/forwarding-loop.ts";
import { noticeRateLimits } from "./notices/rate-limit.ts";
import type { QuerySink } from "./query/record.ts";
import { Stats } from "./stats/sink.ts";
import { defaultNodeName, startFleet, type Fleet } from "./fleet/fleet.ts";
import { FleetHistory } from "./fleet/pg-history.ts";
import { TlsStore } from "./tls/store.ts";
import { startDhcpService } from "./dhcp/service.ts";
import { startNtpService } from "./ntp/server.ts";
import { noticeLastUpdate } from "./update/index.ts";
import { applyNice } from "./core/process-priority.ts";

export async function startServices(paths: Paths, config: ConfigStore): Promise<{ stop(): Promise<void> }> {
  const logs = new Logs();
  const log: Runtime["log"] = (level, message) => logs.write("ftl", level, message);
  // DNS and DHCP write what Pi-hole's dnsmasq writes to its own log (/api/logs/dnsmasq)
  const dnsLog: Runtime["log"] = (level, message) => logs.write("dnsmasq", level, message);
  const version = versionInfo();
  // the first line of Moat's own log, as FTL.log begins with FTL's version
  log(
    "info",
    `Moat ${version.version} (${version.commit}, Bun ${version.runtime.version}) starting, data in ${paths.dataDir}`,
  );
  for (const w of config.warnings) log("warn", w);
  // before any service starts a thread: they inherit it (Linux keeps a niceness per thread)
  const niceWarning = applyNice(config.current.misc.nice);
  if (niceWarning) log("warn", niceWarning);

  const wal = config.current.database.useWAL;
  const gravityDb = openGravityDb(paths.dataDir, wal);
  const queryDb = openQueryDb(paths.dataDir, wal);
  const events = new EventBus();
  const stoppers: Array<() => Promise<void> | void> = [];

  const stats = new Stats({ config, disk: queryDb, log });
  stats.start();
  stoppers.push(() => stats.stop());

  const runtime: Runtime = {
    config,
    paths,
    gravityDb,
    queryDb,
    events,
    blocking: new BlockingSwitch(config, events),
    log,
    logs,
    version,
    startedAt: Date.now(),
  };
  const tls = new TlsStore({ dataDir: paths.dataDir, config, log });
  stoppers.push(() => tls.stop());

  // the fleet's query history: every record also goes to PostgreSQL, in batches off the DNS path
  let sink: QuerySink = stats;
  let fleetHistory: FleetHistory | null = null;
  const pg = config.current.fleet.postgres;
  if (pg) {
    const history = (fleetHistory = new FleetHistory(pg, defaultNodeName(runtime), config, log));
    sink = { record: (r) => (stats.record(r), history.record(r)) };
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
    // the schedule starts before the filter, DNS and the fleet: while the filter is not up a run's
    // closing log line has no count, and until the fleet has joined this node runs its own schedule
    let filterUp: FilterService | null = null;
    let joined: Fleet | null = null;
    const gravity = new GravityService({
      ...runtime,
      gravitySize: () => filterUp?.counts().gravity,
      mayRunSchedule: () => joined?.gravity.mayRunSchedule() ?? true,
    });
    gravity.startSchedule();
    stoppers.push(() => gravity.stop());
    // the filter's life cycle (src/filter/service.ts): its first snapshot is built before DNS listens;
    // the host names of clients are those the DNS server's PTR lookups find, asked only once it runs
    const filter = new FilterService({
      ...runtime,
      log: dnsLog,
      policies: POLICIES,
      hostnameOf: (ip): string | null => dns.names.nameOf(ip),
      prepare: snapshotForThreads(config),
    });
    const dns = new DnsServer({
      ...runtime,
      log: dnsLog,
      sink,
      recentClients: () => stats.window.clients.keys(),
      tls,
      filter,
    });
    await filter.start();
    filterUp = filter;
    stoppers.push(() => {
      filterUp = null;
      filter.stop();
    });
    await dns.start();
    stoppers.push(() => dns.stop());
    // after DNS listens: the fleet only ever changes what DNS already answers with
    const fleet = startFleet({ ...runtime, dns, filter });
    if (fleet) {
      joined = fleet;
      stoppers.push(() => fleet.stop());
      await fleet.ready(3000);
    }
    // the last 24 h of history behind DNS, in steps that leave the event loop free (the API's
    // statistics fill up as it goes); a small history is in before the API answers
    const importStart = performance.now();
    const checks = new AbortController();
    stoppers.push(() => checks.abort());
    void stats
      .importFromDisk()
      .then(
        (n) => {
          if (n)
            log(
              "info",
              `imported ${n} queries of the last 24 h from the long-term database (${((performance.now() - importStart) / 1000).toFixed(1)} s, while answering DNS)`,
            );
        },
        (e) => log("error", `importing the last 24 h from the long-term database failed: ${(e as Error).message}`),
      )
      // after the import, which reads the same file
      .then(() => noticeDamagedDatabases(runtime, stats.longTerm, checks.signal));
    const dhcp = startDhcpService({ ...runtime, log: dnsLog });
    stoppers.push(() => dhcp.stop());
    stoppers.push(noticeMissingUpstreams({ ...runtime, log: dnsLog }));
    stoppers.push(watchDnssecUpstream({ ...runtime, log: dnsLog }, () => dns.rootKeysSigned()));
    stoppers.push(noticeRateLimits(runtime));
    stoppers.push(noticeListFailures(runtime));
    stoppers.push(noticeForwardingLoops({ ...runtime, log: dnsLog }));
    stoppers.push(noticeDnsThreadDeaths(runtime));
    const ntp = startNtpService(runtime);
    stoppers.push(() => ntp.stop());
    // last: every service the API shows runs before it answers and stops after it
    const http = await startHttp({
      ...contextOf(runtime),
      dns,
      filter,
      dhcp: dhcp.handle,
      stats,
      tls,
      gravity,
      fleet,
      fleetHistory,
      lists: listsStore(gravityDb, events),
      network: networkStore(queryDb),
      messages: new Messages(queryDb),
      auth: new Auth({ config, db: queryDb, log, dataDir: paths.dataDir }),
    });
    stoppers.push(() => http.stop());
    // said once every listener is up: a port that fails after DNS started must not read as a success
    console.log(`moat: DNS listening on udp [::]:${dns.port}/tcp [::]:${dns.port}`);
    if (dns.dotPort()) console.log(`moat: DNS over TLS listening on tcp [::]:${dns.dotPort()}`);
    for (const url of http.urls) console.log(`moat: API listening on ${url}`);
    void noticeLastUpdateOutcome(runtime);
  } catch (e) {
    for (const s of stoppers.reverse()) await s();
    throw e;
  }

  return {
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
    // resolving from the root (dns.recursive) needs no upstream
    const dns = rt.config.current.dns;
    const none = dns.upstreams.length === 0 && !dns.recursive.active;
    const raised = messages.has("DNSMASQ_WARN", NO_UPSTREAM);
    if (none && (atStart || !raised))
      rt.log(
        "warn",
        `${NO_UPSTREAM} (dns.upstreams): names Moat cannot answer itself get SERVFAIL; set them in the dashboard, with PATCH /api/config/dns/upstreams or in ${rt.config.file}`,
      );
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
    if (changed.includes("dns.upstreams") || changed.includes("dns.recursive.active")) check(false);
  });
}

/**
 * After a trial boot of an update failed and the firmware went back to this slot, or the machine stopped
 * while an install was writing the other slot: say so in the log and in /api/info/messages, once
 * (src/update/notice.ts). Runs after start-up, off every listener's path.
 */
async function noticeLastUpdateOutcome(rt: Runtime): Promise<void> {
  const u = rt.config.current.update;
  try {
    const n = await noticeLastUpdate({ system: u.system, keyring: u.keyring }, rt.paths.dataDir, rt.version.version);
    if (!n) return;
    rt.log("warn", n.text);
    new Messages(rt.queryDb).raise(n.type, n.text);
  } catch (e) {
    rt.log("warn", `could not check how the last update ended: ${(e as Error).message}`);
  }
}

/** Moat's message type for a database file that failed its integrity check. */
const DATABASE_DAMAGED = "DATABASE_DAMAGED";

/**
 * Both databases' integrity checks (src/db/integrity.ts), after start-up on the long-term database's
 * reader thread (src/querylog/disk-reader.ts), off the DNS thread: a
 * damaged file is said in the log and in /api/info/messages with what to do; once both are sound
 * again (restored or rebuilt), the message goes.
 */
async function noticeDamagedDatabases(rt: Runtime, reader: DiskReader, signal: AbortSignal): Promise<void> {
  const files: Array<[Database, string, string]> = [
    [rt.gravityDb, "gravity database", "run gravity (Tools > Update Gravity) to rebuild the lists from their sources"],
    [rt.queryDb, "long-term database", "queries stored in damaged pages may be missing from the long-term data"],
  ];
  const damaged: string[] = [];
  for (const [db, name, hint] of files) {
    let result: string;
    try {
      if (signal.aborted) return;
      result = await reader.read("quickCheck", db.filename);
    } catch (e) {
      if (!signal.aborted) rt.log("warn", `could not check the ${name} ${db.filename}: ${(e as Error).message}`);
      return;
    }
    if (result === "ok") continue;
    damaged.push(
      `The ${name} ${db.filename} is damaged (SQLite's integrity check: ${result}). Moat keeps using it: ${hint}. To repair it, stop Moat, move the file away and restore it from a Teleporter backup, or start without it for a fresh one.`,
    );
  }
  for (const text of damaged) rt.log("error", text);
  const messages = new Messages(rt.queryDb);
  try {
    // read first, and write only what changed: a restart of a damaged file says it once
    const raised = messages
      .list()
      .filter((m) => m.type === DATABASE_DAMAGED)
      .map((m) => m.text);
    if (raised.length === damaged.length && raised.every((t) => damaged.includes(t))) return;
    if (raised.length) messages.clear(DATABASE_DAMAGED);
    for (const text of damaged) messages.raise(DATABASE_DAMAGED, text);
  } catch (e) {
    // the damaged file may be this one: the log lines stay
    rt.log("warn", `could not store the message about a damaged database: ${(e as Error).message}`);
  }
}
