// The settings tree's sections for the appliance itself: the web server and API, its files, the
// miscellaneous and debug switches, the fleet, gravity and firmware updates. schema.ts puts them last.
import { bool, float, int, oneOf, secret, str, strings, uint, type Leaf } from "./leaf.ts";
import { DAY, YEAR, restart, moat, COMPAT } from "./schema-units.ts";
import * as v from "./validators.ts";

const WEB_THEMES = [
  "default-auto",
  "default-light",
  "default-dark",
  "default-darker",
  "high-contrast",
  "high-contrast-dark",
  "lcars",
] as const;

/** Pi-hole's debug switches, one boolean each; `all` turns every one on. */
const DEBUG_FLAGS = [
  "database",
  "networking",
  "locks",
  "queries",
  "flags",
  "shmem",
  "gc",
  "arp",
  "regex",
  "api",
  "tls",
  "overtime",
  "status",
  "caps",
  "dnssec",
  "vectors",
  "resolver",
  "edns0",
  "clients",
  "aliasclients",
  "events",
  "helper",
  "config",
  "inotify",
  "webserver",
  "extra",
  "reserved",
  "ntp",
  "netlink",
  "timing",
  "all",
] as const;

function debugFlags(): { [K in (typeof DEBUG_FLAGS)[number]]: Leaf<boolean> } {
  const out: Record<string, Leaf<boolean>> = {};
  for (const name of DEBUG_FLAGS)
    out[name] = bool(
      false,
      name === "all" ? "Log every kind of debug detail" : `Log debug detail about ${name} ${COMPAT}`,
    );
  return out as { [K in (typeof DEBUG_FLAGS)[number]]: Leaf<boolean> };
}

/**
 * The zone of the setup guide's probe names (`<probe>.moat-check.home.arpa`, src/api/guide/routes.ts):
 * under home.arpa (RFC 8375), which Moat answers itself and never forwards (src/dns/local.ts). The
 * default Content-Security-Policy lets the dashboard connect there, so its browser looks a probe up.
 */
export const PROBE_ZONE = "moat-check.home.arpa";

export const applianceSections = {
  webserver: {
    domain: str("pi.hole", "Domain name of the web interface"),
    acl: str("", `Access control list ${COMPAT}`),
    port: str("80", "HTTP ports: comma-separated [address:]port entries", { check: v.webPorts, ...restart }),
    threads: uint(50, `Worker threads ${COMPAT}`, { max: 1024 }),
    headers: strings(
      [
        "X-DNS-Prefetch-Control: off",
        `Content-Security-Policy: default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' *.${PROBE_ZONE}:*;`,
        "X-Frame-Options: DENY",
        "X-XSS-Protection: 0",
        "X-Content-Type-Options: nosniff",
        "Referrer-Policy: strict-origin-when-cross-origin",
      ],
      "Headers added to every HTTP reply",
      { each: (h) => (/^[A-Za-z0-9-]+:\s*\S/.test(h) ? null : "not a valid header (expected 'Name: value')") },
    ),
    serve_all: bool(false, `Serve files outside the web root ${COMPAT}`),
    advancedOpts: strings([], `Extra options of Pi-hole's web server (CivetWeb) ${COMPAT}`),
    session: {
      timeout: uint(1800, "Seconds of inactivity after which a session ends (at most a year)", {
        max: YEAR,
        check: (n) => (n < 1 ? "must be at least 1" : null),
      }),
      restore: bool(true, "Keep sessions across restarts"),
    },
    tls: {
      cert: str("", "TLS certificate file (PEM)"),
      validity: uint(47, "Validity of a generated certificate, days", { max: 3650 }),
    },
    paths: {
      webroot: str("/var/www/html", `Root directory of the web server ${COMPAT}`, { check: v.filePath }),
      webhome: str("/admin/", `Path of the web interface below the root ${COMPAT}`, { check: v.webPath }),
      prefix: str("", `Path prefix added by a reverse proxy ${COMPAT}`, { check: v.filePathOrEmpty }),
    },
    interface: {
      boxed: bool(true, "Boxed layout of the web interface"),
      theme: oneOf(WEB_THEMES, "default-auto", "Theme of the web interface"),
    },
    api: {
      max_sessions: uint(16, "Concurrent API sessions", { max: 65535, ...restart }),
      prettyJSON: bool(false, "Indent JSON replies"),
      pwhash: str("", "Hash of the API password (empty: no password, the API is open)", {
        flags: { sessionReset: true, writeOnly: true },
      }),
      password: secret("The API password (write-only: stored as pwhash)", { flags: { sessionReset: true } }),
      totp_secret: str("", "Base32 TOTP secret; non-empty enables two-factor authentication", {
        flags: { sessionReset: true, writeOnly: true },
      }),
      app_pwhash: str("", "Hash of the application password", { flags: { sessionReset: true, writeOnly: true } }),
      app_sudo: bool(false, "Application-password sessions may change the configuration"),
      cli_pw: bool(true, "Write a fresh CLI password file at every start", restart),
      excludeClients: strings([], "Regexes of clients hidden from the statistics"),
      excludeDomains: strings([], "Regexes of domains hidden from the statistics"),
      maxHistory: uint(86400, "Seconds of history kept in memory and served (at most 86400)", { max: DAY }),
      maxClients: uint(10, "Clients shown in the client history by default", { max: 10_000 }),
      client_history_global_max: bool(true, "Use the global maximum in the client history"),
      allow_destructive: bool(true, "Allow restartdns and the flush actions"),
      temp: {
        limit: float(60, "Temperature warning limit, °C", { min: -273, max: 1000 }),
        unit: oneOf(["C", "F", "K"] as const, "C", "Temperature unit"),
      },
      loginRateLimit: uint(3, "Login attempts per second before 429 rate_limiting (0 disables)", {
        max: 1000,
        ...moat,
      }),
      piholeCompat: bool(
        false,
        "Behave like Pi-hole FTL where it differs from Moat's API (docs/pihole-differences.md)",
        moat,
      ),
      metricsToken: str("", "Bearer token for /metrics (empty: /metrics is disabled)", {
        flags: { writeOnly: true, moatOnly: true },
      }),
    },
  },
  files: {
    pid: str("/run/pihole-FTL.pid", `Process id file ${COMPAT}`, { check: v.filePath, ...restart }),
    database: str(
      "/etc/pihole/pihole-FTL.db",
      "Long-term query database (Moat keeps it in --data-dir; another value is not used)",
      { check: v.filePath, ...restart },
    ),
    gravity: str(
      "/etc/pihole/gravity.db",
      "Database of lists, domains, groups and clients (Moat keeps it in --data-dir; another value is not used)",
      { check: v.filePath, ...restart },
    ),
    gravity_tmp: str("/tmp", `Scratch directory of gravity runs ${COMPAT}`, { check: v.filePath, ...restart }),
    macvendor: str("/etc/pihole/macvendor.db", `Database of network card vendors ${COMPAT}`, {
      check: v.filePath,
      ...restart,
    }),
    pcap: str("", `Capture file of DNS traffic (empty: none) ${COMPAT}`, { check: v.filePathOrEmpty, ...restart }),
    log: {
      ftl: str("/var/log/pihole/FTL.log", `Log file of the service ${COMPAT}`, { check: v.filePath, ...restart }),
      dnsmasq: str("/var/log/pihole/pihole.log", `Log file of DNS queries ${COMPAT}`, {
        check: v.filePath,
        ...restart,
      }),
      webserver: str("/var/log/pihole/webserver.log", `Log file of HTTP requests ${COMPAT}`, {
        check: v.filePath,
        ...restart,
      }),
    },
  },
  misc: {
    privacylevel: uint(0, "0: show everything, 1: hide domains, 2: hide domains and clients, 3: anonymous", { max: 3 }),
    delay_startup: uint(0, "Seconds to wait before starting", { max: 300 }),
    nice: int(
      -10,
      "Priority of the threads that answer DNS and the API, -20 to 19 (-999: leave unchanged); set at start",
      {
        min: -999,
        max: 19,
        check: (n) => (n < -20 && n !== -999 ? "must be -999 or from -20 to 19" : null),
        ...restart,
      },
    ),
    addr2line: bool(true, `Translate crash addresses into source lines ${COMPAT}`),
    etc_dnsmasq_d: bool(false, `Read extra dnsmasq files from /etc/dnsmasq.d ${COMPAT}`, restart),
    dnsmasq_lines: strings([], `Extra dnsmasq option lines ${COMPAT}`, restart),
    extraLogging: bool(false, "Log more detail"),
    readOnly: bool(false, "Refuse every configuration change through the API"),
    normalizeCPU: bool(true, "Divide CPU use by the number of cores"),
    hide_dnsmasq_warn: bool(false, "Hide warnings of the DNS server from the messages"),
    check: {
      load: bool(true, "Warn when the load is high"),
      shmem: uint(90, "Warn when memory use passes this percentage", { max: 100 }),
      disk: uint(90, "Warn when disk use passes this percentage", { max: 100 }),
    },
  },
  debug: debugFlags(),
  fleet: {
    redis: str(
      "",
      "Valkey/Redis URL shared by the nodes of a fleet, e.g. redis://:password@10.0.0.5:6379 (rediss:// for TLS); read at start; empty: this node runs alone (src/fleet/README.md)",
      {
        check: v.redisUrlOrEmpty,
        flags: { writeOnly: true, moatOnly: true },
      },
    ),
    postgres: str(
      "",
      "PostgreSQL URL where the nodes of a fleet keep one query history, e.g. postgres://moat:pw@10.0.0.5/moat; read at start; empty: local history only",
      {
        check: v.postgresUrlOrEmpty,
        flags: { writeOnly: true, moatOnly: true },
      },
    ),
    node: str("", "This node's name in the fleet (empty: the host name and the API port); read at start", moat),
  },
  gravity: {
    updateInterval: uint(
      604800,
      "Seconds between scheduled gravity updates (default weekly; 0 disables the schedule)",
      { max: YEAR, ...moat },
    ),
    downloadTimeout: uint(60, "Seconds one list download may take", {
      max: 3600,
      check: (n) => (n < 1 ? "must be at least 1" : null),
      ...moat,
    }),
    maxListSize: uint(256, "Largest list accepted, MiB", {
      max: 65536,
      check: (n) => (n < 1 ? "must be at least 1" : null),
      ...moat,
    }),
  },
  update: {
    system: str(
      "/etc/rauc/system.conf",
      "RAUC's system configuration (slots, compatible, keyring; docs/updates.md); where it or rauc is missing, updates are off",
      moat,
    ),
    keyring: str(
      "",
      "The certificate (PEM) an update bundle must be signed by; empty: the keyring the system configuration names",
      moat,
    ),
    maxDownload: uint(1024, "Largest update bundle, uploaded or fetched from a URL, MiB", {
      max: 65536,
      check: (n) => (n < 1 ? "must be at least 1" : null),
      ...moat,
    }),
    downloadTimeout: uint(
      1800,
      "Seconds a bundle fetched from a URL may take in all; one that sends nothing for half of it (at most 30 s) is stopped too",
      { max: 86400, check: (n) => (n < 2 ? "must be at least 2" : null), ...moat },
    ),
  },
} as const;
