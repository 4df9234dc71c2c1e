// The one tree of settings: every section and key of Pi-hole v6's tree, with its names, types and
// defaults, plus Moat's own keys (flagged moatOnly).
// Everything else (types, the TOML file, environment variables, the config API, the docs) derives from it.
// The sections after `dns` are in schema-services.ts and schema-appliance.ts.
import { bool, int, oneOf, str, strings, uint, type Leaf, type AnyLeaf, isLeaf } from "./leaf.ts";
import { isHostname } from "./host-port.ts";
import * as v from "./validators.ts";

import { applianceSections } from "./schema-appliance.ts";
import { serviceSections } from "./schema-services.ts";
import { DAY, WEEK, YEAR, restart, moat, COMPAT } from "./schema-units.ts";

const BLOCKING_MODES = ["NULL", "IP_NODATA_AAAA", "IP", "NX", "NODATA"] as const;
/** AdGuard Home's upstream modes (load_balance, parallel; fastest_addr, which probes the answers' addresses, as the quickest upstream) */
const UPSTREAM_MODES = ["FASTEST", "LOAD_BALANCE", "PARALLEL"] as const;
const LISTENING_MODES = ["LOCAL", "ALL", "SINGLE", "BIND", "NONE"] as const;

export const schema = {
  dns: {
    upstreams: strings(
      [],
      "Upstream DNS servers: IP[#port], tls://host[:port] or tls://name@IP (DNS over TLS), https://host[:port]/dns-query (DNS over HTTPS); [/domain/]server sends the names under domain to server alone",
      { each: v.upstream, ...restart },
    ),
    upstreamMode: oneOf(
      UPSTREAM_MODES,
      "FASTEST",
      "How a query picks among dns.upstreams: FASTEST (the quickest to answer lately first, the next on failure), LOAD_BALANCE (at random, the quicker ones more often), PARALLEL (all at once, the first answer wins)",
      moat,
    ),
    tls: {
      port: uint(853, "DNS-over-TLS port for clients (0: off); the certificate is webserver.tls's", {
        max: 65535,
        ...moat,
      }),
    },
    access: {
      allowed: strings(
        [],
        "Clients that may use this DNS server (IP, CIDR or DoT/DoH client ID); when not empty, every other client is refused",
        { each: v.accessEntry, ...moat },
      ),
      disallowed: strings(
        [],
        "Clients that may not use this DNS server (IP, CIDR or DoT/DoH client ID): their queries are answered REFUSED",
        { each: v.accessEntry, ...moat },
      ),
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
      "Threads answering DNS over UDP, each with its own socket on dns.port (SO_REUSEPORT) and resolver, all sharing one answer cache; 0: one per core. TCP, DoT and DoH stay on the main thread",
      { max: 64, ...moat },
    ),
    offMainThread: bool(
      false,
      "With dns.threads = 1: a DNS thread of its own answers UDP while the main thread keeps the API and the 24 h window (with more threads they always do; not with dns.interface set); false: the main thread answers UDP itself (less CPU per query and shorter tails on 2 cores, src/dns/threads/README.md)",
      moat,
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
  ...serviceSections,
  ...applianceSections,
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
