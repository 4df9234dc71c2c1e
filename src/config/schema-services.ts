// The settings tree's sections for the services beside DNS: DHCP, NTP, the resolver of client names
// and the databases. schema.ts puts them in the tree after `dns`.
import { bool, int, oneOf, str, strings, uint } from "./leaf.ts";
import { DAY, WEEK, MAX_DAYS, restart, moat } from "./schema-units.ts";
import * as v from "./validators.ts";

export const serviceSections = {
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
} as const;
