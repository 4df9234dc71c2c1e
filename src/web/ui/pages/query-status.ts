// What the query log shows for a query's status and DNSSEC verdict: a few words a person reads, from
// the API's enum names (Pi-hole's, docs: https://docs.pi-hole.net/database/query-database/#query-status),
// which stay in the badge's tooltip. Used by the query log and the long-term log.
import { msg, t } from "../i18n.ts";
import { BLOCKED } from "../why.tsx";

const STATUS_WORDS: Record<string, string> = {
  UNKNOWN: msg("Unknown"),
  GRAVITY: msg("Blocked (list)"),
  GRAVITY_CNAME: msg("Blocked (list, CNAME)"),
  DENYLIST: msg("Blocked (deny)"),
  DENYLIST_CNAME: msg("Blocked (deny, CNAME)"),
  REGEX: msg("Blocked (regex)"),
  REGEX_CNAME: msg("Blocked (regex, CNAME)"),
  EXTERNAL_BLOCKED_IP: msg("Blocked (upstream)"),
  EXTERNAL_BLOCKED_NULL: msg("Blocked (upstream)"),
  EXTERNAL_BLOCKED_NXRA: msg("Blocked (upstream)"),
  EXTERNAL_BLOCKED_EDE15: msg("Blocked (upstream)"),
  SPECIAL_DOMAIN: msg("Blocked (special name)"),
  DBBUSY: msg("Blocked (busy)"),
  CLIENT_REFUSED: msg("Refused (client not allowed)"),
  FORWARDED: msg("Forwarded"),
  CACHE: msg("Cached"),
  CACHE_STALE: msg("Cached (stale)"),
  RETRIED: msg("Retried"),
  RETRIED_DNSSEC: msg("Retried (DNSSEC)"),
  IN_PROGRESS: msg("In progress"),
};

const DNSSEC_WORDS: Record<string, string> = {
  SECURE: msg("Secure"),
  INSECURE: msg("Insecure"),
  BOGUS: msg("Bogus"),
  ABANDONED: msg("Abandoned"),
  UNKNOWN: msg("Unknown"),
};

/** an enum name Moat does not know yet reads as itself, in lower case */
const asWords = (table: Record<string, string>, name: string) =>
  table[name] ? t(table[name]) : name.toLowerCase().replace(/_/g, " ");

export const statusWords = (status: string): string => asWords(STATUS_WORDS, status);
export const dnssecWords = (verdict: string): string => asWords(DNSSEC_WORDS, verdict);

/** the badge colour of a status */
export function statusKind(s: string): string {
  if (BLOCKED.has(s)) return "bad";
  if (s === "CACHE" || s === "CACHE_STALE") return "info";
  return "ok";
}

/** the badge colour of a DNSSEC verdict */
export const dnssecKind = (v: string): string => (v === "SECURE" ? "ok" : v === "INSECURE" ? "info" : "bad");

/** the upstream a query record names for an answer resolved from the root (src/dns/recursive/handler.ts) */
const RECURSIVE = "recursive";

/** Where a forwarded answer came from: the upstream's address, or words for one Moat resolved itself. */
export const upstreamWords = (upstream: string): string =>
  upstream === RECURSIVE ? t("resolved from the root servers") : upstream;
