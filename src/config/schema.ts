// The one tree of settings: every section and key of Pi-hole v6's tree, with its names, types and
// defaults, plus Moat's own keys (flagged moatOnly).
// Everything else (types, the TOML file, environment variables, the config API, the docs) derives from it.
import { bool, float, int, oneOf, secret, str, strings, uint, type Leaf, type AnyLeaf, isLeaf } from "./leaf.ts";
import { isHostname } from "./host-port.ts";
import * as v from "./validators.ts";

// Ranges of the numbers (every integer setting has one, leaf.ts).
const DAY = 86400;
const WEEK = 7 * DAY;
const YEAR = 365 * DAY;
/** Days whose seconds still fit a signed 32-bit number, FTL's limit for day counts (INT_MAX / 86400). */
const MAX_DAYS = 24855;

const restart = { flags: { restart: true } } as const;
/** Moat's own settings: absent from Pi-hole's tree, so hidden from /api/config in compatibility mode. */
const moat = { flags: { moatOnly: true } } as const;
/** Accepted and stored so a Pi-hole configuration round-trips; Moat has no use for the value. */
const COMPAT = "(kept for Pi-hole compatibility; Moat does not use it)";

const BLOCKING_MODES = ["NULL", "IP_NODATA_AAAA", "IP", "NX", "NODATA"] as const;
const LISTENING_MODES = ["LOCAL", "ALL", "SINGLE", "BIND", "NONE"] as const;
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

export const schema = {
  dns: {
    upstreams: strings(
      [],
      "Upstream DNS servers: IP[#port], tls://host[:port] or tls://name@IP (DNS over TLS), https://host[:port]/dns-query (DNS over HTTPS)",
      { each: v.upstream, ...restart },
    ),
    tls: {
      port: uint(853, "DNS-over-TLS port for clients (0: off); the certificate is webserver.tls's", {
        max: 65535,
        ...moat,
      }),
    },
    bootstrap: strings(
      [],
      "Plain DNS servers (IP[#port]) that look up the host names of encrypted upstreams; empty: the plain entries of dns.upstreams, else the system's resolver",
      { each: v.plainUpstream, ...moat },
    ),
    CNAMEdeepInspect: bool(true, "Check every name of a CNAME chain in answers against the lists"),
    blockESNI: bool(true, "Also check _esni.<domain> queries against the lists"),
    EDNS0ECS: bool(
      true,
      "An EDNS0 client subnet in a query replaces the client address (only from dns.ecs.trustedSources)",
    ),
    tcp: {
      maxConnections: uint(
        256,
        "Open DNS-over-TCP connections at most; a new one replaces an idle or slow one (0: no limit)",
        { max: 65535, ...moat },
      ),
      maxConnectionsPerClient: uint(
        16,
        "Open DNS-over-TCP connections at most from one client address (IPv6: one /64) (0: no limit)",
        { max: 65535, ...moat },
      ),
    },
    ecs: {
      trustedSources: strings(
        [],
        "Senders (IP or CIDR, e.g. a router or DNS proxy in front of Moat) whose EDNS0 client subnet names the client; from anyone else it is ignored, so a client cannot pose as another",
        { each: v.ipOrCidr, ...moat },
      ),
    },
    ignoreLocalhost: bool(false, "Hide queries from the appliance itself"),
    showDNSSEC: bool(true, "Show internally generated DNSSEC queries"),
    analyzeOnlyAandAAAA: bool(false, "Only count A and AAAA queries"),
    piholePTR: oneOf(
      ["PI.HOLE", "NONE", "HOSTNAME", "HOSTNAMEFQDN"] as const,
      "PI.HOLE",
      "PTR answer for the appliance's own addresses",
    ),
    replyWhenBusy: oneOf(
      ["ALLOW", "BLOCK", "REFUSE", "DROP"] as const,
      "ALLOW",
      "Reply while the lists are being reloaded",
    ),
    blockTTL: uint(2, "TTL of blocked replies, seconds (at most a day)", { max: DAY }),
    hosts: strings([], "Local DNS records: 'IP HOSTNAME [HOSTNAME ...]' (Unicode names are stored as punycode)", {
      each: v.hostsLine,
      normalize: (lines) => lines.map(v.asciiNames),
    }),
    domainNeeded: bool(false, "Never forward names without a dot", restart),
    expandHosts: bool(false, "Add the local domain to plain names of local records", restart),
    domain: {
      name: str("lan", "Local domain name", {
        check: (s) => (s === "" || isHostname(s) ? null : "not a valid domain"),
        ...restart,
      }),
      local: bool(true, "Never forward names of the local domain", restart),
    },
    bogusPriv: bool(true, "Never forward reverse lookups of private ranges", restart),
    dnssec: bool(
      false,
      "Validate forwarded answers with DNSSEC from dns.trustAnchors: AD on secure answers, SERVFAIL on bogus ones",
      restart,
    ),
    trustAnchors: strings(
      [
        // the IANA root KSKs, https://data.iana.org/root-anchors/root-anchors.xml: KSK-2017 and KSK-2024
        ". IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D",
        ". IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16",
      ],
      "DNSSEC trust anchors: DS records in zone-file syntax ('<zone> [IN] DS <tag> <algorithm> <digest type> <hex>')",
      { each: v.trustAnchor, flags: { moatOnly: true, restart: true } },
    ),
    interface: str("", "Interface used by the SINGLE and BIND listening modes", {
      check: v.interfaceNameOrEmpty,
      ...restart,
    }),
    hostRecord: str("", `Extra host record ${COMPAT}`),
    listeningMode: oneOf(LISTENING_MODES, "LOCAL", "Which clients are answered", restart),
    queryLogging: bool(true, "Record every query"),
    cnameRecords: strings([], "Local CNAME records: '<cname>[,<cname>...],<target>[,<TTL>]'", {
      each: v.cnameRecord,
      normalize: (lines) => lines.map(v.asciiNames),
      check: v.cnameLoops,
    }),
    port: uint(53, "DNS port", { max: 65535, check: (p) => (p === 0 ? "must be at least 1" : null), ...restart }),
    threads: uint(
      1,
      "Threads answering DNS over UDP, each with its own socket on dns.port (SO_REUSEPORT), resolver and cache; 0: one per core. TCP, DoT and DoH stay on the main thread",
      { max: 64, ...moat },
    ),
    localise: bool(
      true,
      `Answer a local name with several addresses with those on the asking client's subnet ${COMPAT}`,
      restart,
    ),
    cache: {
      size: uint(10000, "DNS cache entries", { max: 1_000_000, ...restart }),
      optimizer: int(3600, "Serve expired answers up to this many seconds while refreshing them (negative disables)", {
        min: -YEAR,
        max: YEAR,
      }),
      upstreamBlockedTTL: uint(86400, "How long answers blocked upstream are remembered, seconds", { max: WEEK }),
    },
    recursive: {
      active: bool(
        false,
        "Resolve names from the root servers instead of forwarding them to dns.upstreams: each authority sees only the part of the name it serves",
        moat,
      ),
      rootHints: str(
        "",
        "A root-hints file (named.root syntax) to start from; empty: IANA's root servers, built in",
        moat,
      ),
    },
    revServers: strings([], "Conditional forwarding: '<enabled>,<ip>[/<prefix>],<server>[#<port>][,<domain>]'", {
      each: v.revServer,
      ...restart,
    }),
    blocking: {
      active: bool(true, "Whether blocking is on"),
      mode: oneOf(BLOCKING_MODES, "NULL", "How blocked queries are answered"),
      edns: oneOf(["TEXT", "CODE", "NONE"] as const, "TEXT", "EDNS Extended DNS Error added to blocked replies"),
    },
    specialDomains: {
      mozillaCanary: bool(true, "Answer use-application-dns.net with NXDOMAIN"),
      iCloudPrivateRelay: bool(true, "Answer mask.icloud.com and mask-h2.icloud.com with NXDOMAIN"),
      designatedResolver: bool(true, "Answer *resolver.arpa with NODATA (RFC 9462)"),
    },
    reply: {
      host: {
        force4: bool(false, "Answer pi.hole with IPv4 instead of the interface address"),
        IPv4: str("", "IPv4 address for pi.hole answers", { check: v.ipv4OrEmpty }),
        force6: bool(false, "Answer pi.hole with IPv6 instead of the interface address"),
        IPv6: str("", "IPv6 address for pi.hole answers", { check: v.ipv6OrEmpty }),
      },
      blocking: {
        force4: bool(false, "Use IPv4 instead of the interface address in IP blocking mode"),
        IPv4: str("", "IPv4 address for blocked replies", { check: v.ipv4OrEmpty }),
        force6: bool(false, "Use IPv6 instead of the interface address in IP blocking mode"),
        IPv6: str("", "IPv6 address for blocked replies", { check: v.ipv6OrEmpty }),
      },
    },
    rateLimit: {
      count: uint(
        1000,
        "Queries a client may send per interval (0 disables); with dns.threads > 1 the limit applies per thread (per UDP socket the client reaches)",
        { max: 1_000_000 },
      ),
      interval: uint(60, "Rate-limit interval, seconds (0 disables)", { max: DAY }),
    },
  },
  dhcp: {
    active: bool(false, "Serve DHCP on the local network", restart),
    start: str("", "First address of the DHCP range", { check: v.ipv4OrEmpty, ...restart }),
    end: str("", "Last address of the DHCP range", { check: v.ipv4OrEmpty, ...restart }),
    router: str("", "Gateway handed to DHCP clients", { check: v.ipv4OrEmpty, ...restart }),
    netmask: str("", "Netmask handed to DHCP clients (empty: the interface's)", {
      check: v.netmaskOrEmpty,
      ...restart,
    }),
    leaseTime: str("", "Lease time, e.g. '45m', '1h', '2d' (at most a year, 365d), 'infinite' (empty: 24h, IPv6 1d)", {
      check: v.leaseTimeOrEmpty,
      ...restart,
    }),
    ipv6: bool(false, "Also serve DHCPv6 and router advertisements", restart),
    rapidCommit: bool(false, "Answer DHCPv4 with Rapid Commit (RFC 4039)", restart),
    multiDNS: bool(false, "Hand out the DNS server several times so clients keep using it", restart),
    logging: bool(false, "Log every DHCP event", restart),
    ignoreUnknownClients: bool(false, "Only serve clients named in dhcp.hosts", restart),
    hosts: strings([], "Static leases: '<MAC>[,<IP>][,<hostname>][,<lease time>]'", restart),
  },
  ntp: {
    ipv4: {
      active: bool(true, "Serve NTP over IPv4", restart),
      address: str("", "IPv4 address the NTP server listens on (empty: all)", { check: v.ipv4OrEmpty, ...restart }),
    },
    ipv6: {
      active: bool(true, "Serve NTP over IPv6", restart),
      address: str("", "IPv6 address the NTP server listens on (empty: all)", { check: v.ipv6OrEmpty, ...restart }),
    },
    sync: {
      active: bool(true, "Set the system clock from an upstream NTP server", restart),
      server: str("pool.ntp.org", "Upstream NTP server", restart),
      interval: uint(3600, "Seconds between synchronisations", { max: WEEK, ...restart }),
      count: uint(8, "Samples taken per synchronisation", { max: 100, ...restart }),
      rtc: {
        set: bool(false, "Also set the hardware real-time clock", restart),
        device: str("", "RTC device (empty: found automatically)", restart),
        utc: bool(true, "The RTC keeps UTC", restart),
      },
    },
  },
  resolver: {
    resolveIPv4: bool(true, "Resolve client IPv4 addresses to names"),
    resolveIPv6: bool(true, "Resolve client IPv6 addresses to names"),
    networkNames: bool(true, "Use names from the network table"),
    refreshNames: oneOf(
      ["IPV4_ONLY", "ALL", "UNKNOWN", "NONE"] as const,
      "IPV4_ONLY",
      "Which client names are refreshed",
    ),
  },
  database: {
    DBimport: bool(true, "Load the last 24 h of queries from the database at start"),
    maxDBdays: int(91, "Days of queries kept in the long-term database (0 disables it)", { min: 0, max: MAX_DAYS }),
    DBinterval: uint(60, "Seconds between writes of queries to the long-term database", {
      max: DAY,
      check: (n) => (n < 1 ? "must be at least 1" : null),
    }),
    useWAL: bool(true, "Use SQLite's write-ahead log", restart),
    queryLogMemory: uint(
      0,
      "MiB of memory the last 24 h of queries (the query log and its statistics) may use (0: a quarter of the memory this process may use, its cgroup's limit included). Beyond it the oldest queries leave memory first (the long-term database keeps them) and a message says so",
      { max: 1_048_576, ...moat },
    ),
    network: {
      parseARPcache: bool(true, "Learn devices from the neighbour table"),
      expire: uint(91, "Days before unseen devices are removed", { max: MAX_DAYS }),
    },
  },
  webserver: {
    domain: str("pi.hole", "Domain name of the web interface"),
    acl: str("", `Access control list ${COMPAT}`),
    port: str("80", "HTTP ports: comma-separated [address:]port entries", { check: v.webPorts, ...restart }),
    threads: uint(50, `Worker threads ${COMPAT}`, { max: 1024 }),
    headers: strings(
      [
        "X-DNS-Prefetch-Control: off",
        "Content-Security-Policy: default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;",
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
    nice: int(-10, `Process priority, -20 to 19 (-999: leave unchanged) ${COMPAT}`, {
      min: -999,
      max: 19,
      check: (n) => (n < -20 && n !== -999 ? "must be -999 or from -20 to 19" : null),
    }),
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

/** The value type of a subtree of the schema. */
type ValueOf<T> = T extends Leaf<infer V> ? V : { -readonly [K in keyof T]: ValueOf<T[K]> };
export type Config = ValueOf<typeof schema>;

export interface LeafEntry {
  /** dotted key, e.g. `webserver.api.max_sessions` */
  path: string;
  segments: string[];
  leaf: AnyLeaf;
}

function collect(node: Record<string, unknown>, prefix: string[], out: LeafEntry[]): LeafEntry[] {
  for (const [k, child] of Object.entries(node)) {
    const segs = [...prefix, k];
    if (isLeaf(child)) out.push({ path: segs.join("."), segments: segs, leaf: child });
    else collect(child as Record<string, unknown>, segs, out);
  }
  return out;
}

/** Every leaf in tree order. */
export const LEAVES: readonly LeafEntry[] = collect(schema as unknown as Record<string, unknown>, [], []);
export const LEAF_BY_PATH: ReadonlyMap<string, LeafEntry> = new Map(LEAVES.map((e) => [e.path, e]));

export function defaults(): Config {
  const out: Record<string, unknown> = {};
  for (const e of LEAVES) setIn(out, e.segments, structuredClone(e.leaf.default));
  return out as unknown as Config;
}

export function getIn(tree: unknown, segments: readonly string[]): unknown {
  let node = tree;
  for (const s of segments) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[s];
  }
  return node;
}

export function setIn(tree: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = tree;
  for (const s of segments.slice(0, -1)) {
    if (typeof node[s] !== "object" || node[s] === null) node[s] = {};
    node = node[s] as Record<string, unknown>;
  }
  node[segments[segments.length - 1]!] = value;
}
