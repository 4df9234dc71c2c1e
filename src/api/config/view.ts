// What GET /api/config shows: the running config tree (secrets masked), optionally every leaf
// described in Pi-hole's `detailed` form, and the subtree under a path such as dns/upstreams.
import {
  LEAVES,
  MAX_ITEMS,
  MAX_TEXT,
  getIn,
  setIn,
  schema,
  isLeaf,
  type AnyLeaf,
  type LeafEntry,
} from "../../config/index.ts";
import type { ConfigStore } from "../../config/index.ts";

/** What Pi-hole shows instead of a write-only value. */
export const MASK = "********";

const TYPE_NAME: Record<AnyLeaf["kind"], string> = {
  bool: "boolean",
  int: "integer",
  uint: "unsigned integer",
  float: "double",
  string: "string",
  enum: "enum (string)",
  strings: "string array",
  password: "password (write-only string)",
};

export function isWriteOnly(leaf: AnyLeaf): boolean {
  return leaf.kind === "password" || leaf.flags.writeOnly === true;
}

/**
 * The password hashes Pi-hole FTL reads back as they are (its config.c gives them no write-only
 * flag; only totp_secret has one), and whose echo its own tests expect, e.g. bats "Create, set, and
 * use application password" on PATCH /api/config/webserver/api/app_pwhash. Moat's own mode masks
 * them like every other secret.
 */
const PIHOLE_READABLE = new Set(["webserver.api.pwhash", "webserver.api.app_pwhash"]);

/**
 * A secret reads back as the mask when set (always, for the password pseudo item), "" when not;
 * `readable`: shown as is (a Pi-hole-readable hash in compatibility mode).
 */
function shown(leaf: AnyLeaf, value: unknown, readable = false): unknown {
  if (leaf.kind === "password") return MASK;
  if (leaf.flags.writeOnly && !readable) return value === "" ? "" : MASK;
  return value;
}

function allowedOf(leaf: AnyLeaf): unknown {
  switch (leaf.kind) {
    case "bool":
      return "true or false";
    case "enum":
      return leaf.allowed!.map((item) => ({ item, description: "" }));
    case "int":
    case "uint":
    case "float": {
      const lo = leaf.min ?? (leaf.kind === "uint" ? 0 : undefined);
      if (lo !== undefined && leaf.max !== undefined) return `a number from ${lo} to ${leaf.max}`;
      if (lo !== undefined) return `a number of at least ${lo}`;
      return "a number";
    }
    case "strings":
      return `an array of strings (at most ${MAX_ITEMS}, each at most ${MAX_TEXT} characters)`;
    default:
      return `a string of at most ${MAX_TEXT} characters`;
  }
}

/** Whether this leaf is shown unmasked: a hash Pi-hole reads back, in compatibility mode. */
function readable(store: ConfigStore, e: LeafEntry): boolean {
  return store.current.webserver.api.piholeCompat && PIHOLE_READABLE.has(e.path);
}

function detail(store: ConfigStore, e: LeafEntry): Record<string, unknown> {
  const value = getIn(store.current, e.segments);
  const def = store.defaultOf(e.path);
  const open = readable(store, e);
  return {
    description: e.leaf.description,
    allowed: allowedOf(e.leaf),
    type: TYPE_NAME[e.leaf.kind],
    value: shown(e.leaf, value, open),
    default: shown(e.leaf, def, open),
    modified: JSON.stringify(value) !== JSON.stringify(def),
    flags: {
      restart_dnsmasq: e.leaf.flags.restart === true,
      session_reset: e.leaf.flags.sessionReset === true,
      env_var: store.envForced.has(e.path),
    },
  };
}

/** The schema node under `segments` (a leaf or a branch), or undefined. */
export function nodeAt(segments: readonly string[]): unknown {
  return getIn(schema, segments);
}

const isMoatOnly = (e: LeafEntry) => e.leaf.flags.moatOnly === true;

/** Whether every leaf at or below `prefix` is Moat's own (asking for it by name shows it even in compatibility mode). */
function onlyMoatBelow(prefix: string): boolean {
  const under = LEAVES.filter((e) => e.path === prefix || e.path.startsWith(`${prefix}.`));
  return under.length > 0 && under.every(isMoatOnly);
}

/**
 * `{ dns: { upstreams: [...] } }` for ["dns","upstreams"]; the whole tree for []. In Pi-hole
 * compatibility mode Moat's own keys are left out, unless the path asks for them by name.
 */
export function configTree(
  store: ConfigStore,
  segments: readonly string[],
  detailed: boolean,
): Record<string, unknown> {
  const prefix = segments.join(".");
  const hideMoat = store.current.webserver.api.piholeCompat && !(prefix !== "" && onlyMoatBelow(prefix));
  const out: Record<string, unknown> = {};
  for (const e of LEAVES) {
    if (prefix !== "" && e.path !== prefix && !e.path.startsWith(`${prefix}.`)) continue;
    if (hideMoat && isMoatOnly(e)) continue;
    setIn(
      out,
      e.segments,
      detailed ? detail(store, e) : shown(e.leaf, getIn(store.current, e.segments), readable(store, e)),
    );
  }
  return out;
}

export function isKnownPath(segments: readonly string[]): boolean {
  if (segments.length === 0) return true;
  const node = nodeAt(segments);
  return node !== undefined && (isLeaf(node) || typeof node === "object");
}

/** Extra members of the detailed reply (Pi-hole shows them to its settings pages). */
export const TOPICS = [
  { name: "dns", title: "DNS", description: "DNS server, upstreams, local records and blocking" },
  { name: "dhcp", title: "DHCP", description: "DHCP server and static leases" },
  { name: "ntp", title: "NTP", description: "Time server and clock synchronisation" },
  { name: "resolver", title: "Resolver", description: "How client addresses are turned into names" },
  { name: "database", title: "Database", description: "Long-term query database" },
  { name: "webserver", title: "Web server and API", description: "HTTP ports, sessions and API options" },
  { name: "files", title: "Files", description: "Where databases and logs are kept" },
  { name: "misc", title: "Miscellaneous", description: "Privacy level, read-only mode, checks" },
  { name: "debug", title: "Debugging", description: "Extra logging switches" },
];

export const DNS_SERVERS = [
  { name: "Google (ECS, DNSSEC)", v4: ["8.8.8.8", "8.8.4.4"], v6: ["2001:4860:4860::8888", "2001:4860:4860::8844"] },
  {
    name: "OpenDNS (ECS, DNSSEC)",
    v4: ["208.67.222.222", "208.67.220.220"],
    v6: ["2620:119:35::35", "2620:119:53::53"],
  },
  { name: "Quad9 (filtered, DNSSEC)", v4: ["9.9.9.9", "149.112.112.112"], v6: ["2620:fe::fe", "2620:fe::9"] },
  { name: "Quad9 (unfiltered, no DNSSEC)", v4: ["9.9.9.10", "149.112.112.10"], v6: ["2620:fe::10", "2620:fe::fe:10"] },
  { name: "Cloudflare (DNSSEC)", v4: ["1.1.1.1", "1.0.0.1"], v6: ["2606:4700:4700::1111", "2606:4700:4700::1001"] },
];
