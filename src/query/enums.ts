// The enums of the query records, as Pi-hole FTL numbers them: the position in each list is the value stored
// in the database, the string is what the API shows. One source for DNS, statistics and the API.

/** Each status in FTL's order, and whether the statistics count it as blocked. */
const STATUS_BLOCKED = {
  UNKNOWN: false,
  GRAVITY: true,
  FORWARDED: false,
  CACHE: false,
  REGEX: true,
  DENYLIST: true,
  EXTERNAL_BLOCKED_IP: true,
  EXTERNAL_BLOCKED_NULL: true,
  EXTERNAL_BLOCKED_NXRA: true,
  GRAVITY_CNAME: true,
  REGEX_CNAME: true,
  DENYLIST_CNAME: true,
  RETRIED: false,
  RETRIED_DNSSEC: false,
  IN_PROGRESS: false,
  DBBUSY: true,
  SPECIAL_DOMAIN: true,
  CACHE_STALE: false,
  EXTERNAL_BLOCKED_EDE15: true,
  // Moat's own, after Pi-hole's: compat mode shows each as the Pi-hole status of PIHOLE_STATUS
  CLIENT_REFUSED: true,
};
type QueryStatus = keyof typeof STATUS_BLOCKED;
export const QUERY_STATUS = Object.keys(STATUS_BLOCKED) as readonly QueryStatus[];
export const Status = Object.fromEntries(QUERY_STATUS.map((s, i) => [s, i])) as { readonly [K in QueryStatus]: number };

/** How many of QUERY_STATUS are Pi-hole's (FTL's enum query_status); the rest are Moat's own */
export const PIHOLE_STATUSES = QUERY_STATUS.indexOf("EXTERNAL_BLOCKED_EDE15") + 1;

/** Moat's own statuses as webserver.api.piholeCompat shows them: the nearest of Pi-hole's */
const PIHOLE_STATUS: Readonly<Record<string, QueryStatus>> = {
  // dns.access: refused by policy, as Pi-hole's dns.replyWhenBusy = REFUSE is (a blocked status)
  CLIENT_REFUSED: "DBBUSY",
};

/** A status's name as the API shows it: Pi-hole's name for a Moat-only one in compat mode */
export function statusName(name: string, compat: boolean): string {
  return compat ? (PIHOLE_STATUS[name] ?? name) : name;
}

/** Statuses that count as blocked in the statistics. */
export const BLOCKED_STATUSES: ReadonlySet<number> = new Set(
  QUERY_STATUS.filter((s) => STATUS_BLOCKED[s]).map((s) => Status[s]),
);

export const REPLY_TYPE = [
  "UNKNOWN",
  "NODATA",
  "NXDOMAIN",
  "CNAME",
  "IP",
  "DOMAIN",
  "RRNAME",
  "SERVFAIL",
  "REFUSED",
  "NOTIMP",
  "OTHER",
  "DNSSEC",
  "NONE",
  "BLOB",
] as const;
type ReplyType = (typeof REPLY_TYPE)[number];
export const Reply = Object.fromEntries(REPLY_TYPE.map((s, i) => [s, i])) as { readonly [K in ReplyType]: number };

export const DNSSEC_STATUS = ["UNKNOWN", "SECURE", "INSECURE", "BOGUS", "ABANDONED", "TRUNCATED"] as const;

/** Query types the API counts by name; the database stores them as 1…16, anything else as 100 + qtype. */
export const QUERY_TYPES = [
  "A",
  "AAAA",
  "ANY",
  "SRV",
  "SOA",
  "PTR",
  "TXT",
  "NAPTR",
  "MX",
  "DS",
  "RRSIG",
  "DNSKEY",
  "NS",
  "OTHER",
  "SVCB",
  "HTTPS",
] as const;
type QueryTypeName = (typeof QUERY_TYPES)[number];

const WIRE_QTYPE: Record<string, number> = {
  A: 1,
  AAAA: 28,
  ANY: 255,
  SRV: 33,
  SOA: 6,
  PTR: 12,
  TXT: 16,
  NAPTR: 35,
  MX: 15,
  DS: 43,
  RRSIG: 46,
  DNSKEY: 48,
  NS: 2,
  SVCB: 64,
  HTTPS: 65,
};
const DB_BY_WIRE = new Map<number, number>(
  Object.entries(WIRE_QTYPE).map(([n, w]) => [w, QUERY_TYPES.indexOf(n as QueryTypeName) + 1]),
);

/** Wire qtype (e.g. 28) → the database's type column (e.g. 2 for AAAA, 100+qtype for the rest). */
export function dbQueryType(wire: number): number {
  return DB_BY_WIRE.get(wire) ?? 100 + wire;
}

/** Database type column → the name shown in the query log (`TYPE65` style for the rest). */
export function queryTypeName(db: number): string {
  if (db >= 1 && db <= QUERY_TYPES.length) return QUERY_TYPES[db - 1]!;
  return `TYPE${db - 100}`;
}
