// `moat migrate adguardhome FILE`: AdGuardHome.yaml of schema versions 24 to 34 (AdGuard Home
// v0.107.30 of 2023 to v0.107.7x of 2026, its CHANGELOG.md names each change): the filtering settings
// moved from `dns` to `filtering` in 27, `upstream_mode` replaced `all_servers`/`fastest_addr`, rewrites
// got `enabled` (and `filtering.rewrites_enabled`) in 31; each form is read, as are blocked services as a
// list or as `{ids, schedule}` and a client's `safesearch_enabled` or `safe_search`. Static leases and the
// query log live beside the file, in `data/leases.json` and `data/querylog.json`.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { SERVICES } from "../policies/services/catalogue.ts";
import { rewrites, upstreamOf, userRules } from "./adguard-rules.ts";
import { hasPause, scheduleWindows, type AdgSchedule } from "./adguard-schedule.ts";
import { queryLogRows } from "./adguard-querylog.ts";
import { ListsBuilder } from "./lists-builder.ts";
import { perDomainServer } from "./per-domain.ts";
import { addToList, newPlan, plural, setSetting, type Plan } from "./plan.ts";
import { MigrateError } from "./report.ts";

const ADGUARD_SCHEMAS = { min: 24, max: 34 };

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const SERVICE_IDS = new Set(SERVICES.map((s) => s.id));
/** AdGuard's safe-search engines that Moat enforces, by AdGuard's key */
const ENGINES: Record<string, string> = {
  google: "google",
  bing: "bing",
  duckduckgo: "duckduckgo",
  youtube: "youtube",
};

/**
 * `workDir`: AdGuard Home's working directory, whose data/ holds the static leases and the query log
 * (null for an uploaded file); `history`: read the query log.
 */
export function readAdGuard(text: string, name: string, workDir: string | null, history: boolean): Plan {
  let y: Obj;
  try {
    y = obj(parse(text));
  } catch (e) {
    throw new MigrateError(`${name} is not valid YAML`, (e as Error).message.split("\n")[0]!);
  }
  const version = y.schema_version;
  if (typeof version !== "number" || !obj(y.dns).upstream_dns)
    throw new MigrateError(
      `${name} is not AdGuard Home's configuration`,
      "expected AdGuardHome.yaml, with schema_version and dns.upstream_dns",
    );
  if (version < ADGUARD_SCHEMAS.min || version > ADGUARD_SCHEMAS.max)
    throw new MigrateError(
      `unknown AdGuard Home schema version ${version}`,
      `versions ${ADGUARD_SCHEMAS.min} to ${ADGUARD_SCHEMAS.max} are read; update or downgrade AdGuard Home once to write one of them`,
    );
  const plan = newPlan(`AdGuard Home (schema ${version}) ${name}`);
  const dns = obj(y.dns);
  const filtering = y.filtering ? obj(y.filtering) : dns;

  // upstreams, then the per-domain ones (`[/corp.example/]10.0.0.1`, the same entry in dns.upstreams)
  const ups: string[] = [];
  const domainEntries: { domains: string; servers: string[]; s: string }[] = [];
  for (const raw of arr(dns.upstream_dns)) {
    const s = String(raw).trim();
    if (!s || s.startsWith("#")) continue;
    const m = /^\[\/(.+)\/\](.+)$/.exec(s);
    if (m) {
      const servers: string[] = [];
      for (const srv of m[2]!.trim().split(/\s+/)) {
        const u = srv === "#" ? srv : upstreamOf(srv);
        if (typeof u === "string") servers.push(u);
        else plan.notCarried.push({ item: `upstream ${srv} for [/${m[1]}/]`, why: u.why });
      }
      if (servers.length) domainEntries.push({ domains: m[1]!, servers, s });
      continue;
    }
    const u = upstreamOf(s);
    if (typeof u === "string") ups.push(u);
    else plan.notCarried.push({ item: `upstream ${s}`, why: u.why });
  }
  const nUp = addToList(plan, "dns.upstreams", ups, "dns.upstream_dns");
  if (nUp) plan.carried.push(plural(nUp, "upstream"));
  let perDomain = 0;
  for (const e of domainEntries) {
    const why = perDomainServer(plan, e.domains, e.servers);
    if (why === null) perDomain++;
    else plan.notCarried.push({ item: `upstream ${e.s}`, why });
  }
  if (perDomain) plan.carried.push(plural(perDomain, "per-domain upstream"));
  const mode =
    typeof dns.upstream_mode === "string"
      ? dns.upstream_mode
      : dns.all_servers
        ? "parallel"
        : dns.fastest_addr
          ? "fastest_addr"
          : "load_balance";
  // fastest_addr asks every upstream and keeps the answer whose address answers a probe first; Moat's
  // FASTEST asks the upstream that answered quickest lately (the nearest thing without probing)
  const upstreamModes: Record<string, string> = {
    "": "LOAD_BALANCE",
    load_balance: "LOAD_BALANCE",
    parallel: "PARALLEL",
    fastest_addr: "FASTEST",
  };
  const asMode = upstreamModes[mode];
  if (asMode && setSetting(plan, "dns.upstreamMode", asMode, `upstream_mode ${mode}`))
    plan.carried.push(
      `upstream mode ${mode || "load_balance"} as ${asMode}${mode === "fastest_addr" ? " (the upstream that answered quickest lately first; the answers' addresses are not probed)" : ""}`,
    );
  else if (!asMode) plan.notCarried.push({ item: `upstream mode ${mode}`, why: "not a mode AdGuard Home documents" });
  const boot = arr(dns.bootstrap_dns)
    .map((b) => upstreamOf(String(b)))
    .filter((b): b is string => typeof b === "string" && !b.includes("://"));
  if (addToList(plan, "dns.bootstrap", boot, "dns.bootstrap_dns"))
    plan.carried.push(plural(boot.length, "bootstrap server"));

  // who may query: AdGuard Home ignores disallowed_clients while allowed_clients has entries
  const allowedClients = arr(dns.allowed_clients).map(String);
  const disallowedClients = arr(dns.disallowed_clients).map(String);
  const nAllowed = addToList(plan, "dns.access.allowed", allowedClients, "dns.allowed_clients");
  if (nAllowed) plan.carried.push(plural(nAllowed, "allowed client"));
  if (allowedClients.length && disallowedClients.length)
    plan.notCarried.push({
      item: plural(disallowedClients.length, "disallowed client"),
      why: "AdGuard Home ignores disallowed_clients while allowed_clients has entries",
    });
  else {
    const n = addToList(plan, "dns.access.disallowed", disallowedClients, "dns.disallowed_clients");
    if (n) plan.carried.push(plural(n, "disallowed client"));
  }

  // AdGuard Home's default blocked_hosts answer nothing for names Moat answers itself or forwards harmlessly
  const agDefaults = new Set(["version.bind", "id.server", "hostname.bind"]);
  for (const h of arr(dns.blocked_hosts)
    .map(String)
    .filter((h) => !agDefaults.has(h)))
    plan.notCarried.push({
      item: `blocked host ${h}`,
      why: "Moat has no such list: a deny entry or rule blocks the name",
    });

  // filtering
  if (typeof filtering.protection_enabled === "boolean")
    setSetting(plan, "dns.blocking.active", filtering.protection_enabled, "protection_enabled");
  const bm = String(filtering.blocking_mode ?? "default");
  const modes: Record<string, string> = { default: "NULL", null_ip: "NULL", nxdomain: "NX", custom_ip: "IP" };
  if (modes[bm]) {
    setSetting(plan, "dns.blocking.mode", modes[bm], "blocking_mode");
    if (bm === "custom_ip") {
      setSetting(plan, "dns.reply.blocking.IPv4", String(filtering.blocking_ipv4 ?? ""), "blocking_ipv4");
      setSetting(plan, "dns.reply.blocking.IPv6", String(filtering.blocking_ipv6 ?? ""), "blocking_ipv6");
      plan.settings.set("dns.reply.blocking.force4", true);
      plan.settings.set("dns.reply.blocking.force6", true);
    }
  } else
    plan.notCarried.push({
      item: `blocking_mode ${bm}`,
      why: "Moat answers blocked names with 0.0.0.0/::, NXDOMAIN, NODATA or an address",
    });
  for (const k of ["parental_enabled", "safebrowsing_enabled"])
    if (filtering[k] === true)
      plan.notCarried.push({ item: k, why: "AdGuard's own lookup service; Moat blocks by lists only" });

  const b = new ListsBuilder();
  const clientGroups = clients(plan, b, y);
  const everyone = [0, ...clientGroups.filtered];
  for (const [key, type] of [
    ["filters", 0],
    ["whitelist_filters", 1],
  ] as const)
    for (const f of arr(y[key])) {
      const o = obj(f);
      if (typeof o.url !== "string") continue;
      if (/^https?:\/\//.test(o.url))
        b.adlist(o.url, type, {
          enabled: o.enabled !== false,
          comment: typeof o.name === "string" ? o.name : null,
          groups: everyone,
        });
      else
        plan.notCarried.push({
          item: `${key} ${o.url}`,
          why: "a local file list: copy it to a web server Moat can reach, or into its entries",
        });
    }
  userRules(plan, arr(y.user_rules));
  const rw = filtering.rewrites_enabled === false ? { records: 0, cnames: 0 } : rewrites(plan, arr(filtering.rewrites));
  if (filtering.rewrites_enabled === false && arr(filtering.rewrites).length)
    plan.notCarried.push({
      item: `${arr(filtering.rewrites).length} rewrites`,
      why: "rewrites are turned off in AdGuard Home",
    });
  if (rw.records) plan.carried.push(`${plural(rw.records, "rewrite")} (as local DNS records)`);
  if (rw.cnames)
    plan.carried.push(`${plural(rw.cnames, "rewrite to a name", "rewrites to a name")} (as local CNAME records)`);

  // the global blocked services and safe search: the Default group's, and each client group's that uses them
  const global = blockedServices(plan, filtering.blocked_services, "blocked_services");
  const globalSafe = safeSearch(plan, filtering.safe_search ?? filtering.safesearch_enabled, "safe_search");
  for (const g of [0, ...clientGroups.globalServices]) applyServices(plan, b, g, global);
  for (const g of [0, ...clientGroups.globalSafeSearch]) b.safeSearch(g, globalSafe);
  for (const c of clientGroups.own) {
    if (c.services) applyServices(plan, b, c.group, c.services);
    if (c.safe) b.safeSearch(c.group, c.safe);
  }
  plan.rows = b;

  dhcp(plan, obj(y.dhcp), workDir);
  tls(plan, obj(y.tls));
  if (!workDir)
    plan.notCarried.push({
      item: "DHCP static leases and the query log",
      why: "they are in data/leases.json and data/querylog.json beside AdGuardHome.yaml: the command line (moat migrate adguardhome) reads them",
    });
  else {
    const file = join(workDir, "data", "querylog.json");
    if (!history) {
      if (existsSync(file))
        plan.notCarried.push({ item: "query log (data/querylog.json)", why: "not asked for (--with-history)" });
    } else if (existsSync(file)) plan.history = { kind: "rows", rows: queryLogRows(readFileSync(file, "utf8"), plan) };
    else plan.notCarried.push({ item: "query log", why: `${file} does not exist` });
  }
  return plan;
}

interface Services {
  ids: string[];
  schedule: AdgSchedule | null;
}

function blockedServices(plan: Plan, raw: unknown, from: string): Services {
  const o = obj(raw);
  const ids = (Array.isArray(raw) ? raw : arr(o.ids)).map(String);
  const known = ids.filter((id) => SERVICE_IDS.has(id));
  for (const id of ids)
    if (!SERVICE_IDS.has(id))
      plan.notCarried.push({ item: `${from}: ${id}`, why: "not a service in Moat's catalogue" });
  return { ids: known, schedule: o.schedule ? (obj(o.schedule) as AdgSchedule) : null };
}

function applyServices(plan: Plan, b: ListsBuilder, group: number, s: Services): void {
  if (!s.ids.length) return;
  // AdGuard's schedule names when blocking pauses; Moat's, when it blocks: the rest of the week
  const windows = s.schedule && hasPause(s.schedule) ? scheduleWindows(s.schedule) : null;
  if (!windows) {
    b.services(group, s.ids);
    return;
  }
  b.schedule(group, windows, s.ids);
  const zone = s.schedule?.time_zone;
  if (zone && zone !== "Local" && zone !== Intl.DateTimeFormat().resolvedOptions().timeZone)
    plan.notCarried.push({
      item: `blocked services schedule in ${zone}`,
      why: "Moat's schedules run in the system's time zone; the times were kept as they are",
    });
}

function safeSearch(plan: Plan, raw: unknown, from: string): string[] {
  if (raw === true) return Object.values(ENGINES);
  const o = obj(raw);
  if (o.enabled !== true) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (k === "enabled" || v !== true) continue;
    if (ENGINES[k]) out.push(ENGINES[k]!);
    else
      plan.notCarried.push({
        item: `${from}: ${k}`,
        why: "Moat enforces safe search on Google, Bing, DuckDuckGo and YouTube",
      });
  }
  return out;
}

interface ClientGroups {
  /** client groups that get the global lists and rules */
  filtered: number[];
  globalServices: number[];
  globalSafeSearch: number[];
  own: Array<{ group: number; services?: Services; safe?: string[] }>;
}

/** Each persistent client as a group of its own (its settings) holding its ids as client entries. */
function clients(plan: Plan, b: ListsBuilder, y: Obj): ClientGroups {
  const out: ClientGroups = { filtered: [], globalServices: [], globalSafeSearch: [], own: [] };
  let n = 0;
  for (const raw of arr(obj(y.clients).persistent)) {
    const c = obj(raw);
    const name = String(c.name ?? "").trim();
    if (!name) continue;
    const group = b.group(name, `AdGuard Home client ${name}`);
    n++;
    const tags = arr(c.tags).map(String);
    const comment = tags.length ? `${name} (tags: ${tags.join(", ")})` : name;
    for (const id of arr(c.ids).map(String)) b.client(id, comment, [group]);
    const global = c.use_global_settings !== false;
    if (global || c.filtering_enabled !== false) out.filtered.push(group);
    if (c.use_global_blocked_services !== false) out.globalServices.push(group);
    const own: ClientGroups["own"][number] = { group };
    if (c.use_global_blocked_services === false)
      own.services = blockedServices(plan, c.blocked_services, `client ${name} blocked_services`);
    if (global) out.globalSafeSearch.push(group);
    else own.safe = safeSearch(plan, c.safe_search ?? c.safesearch_enabled, `client ${name} safe_search`);
    out.own.push(own);
    const ups: string[] = [];
    for (const u of arr(c.upstreams)) {
      const m = upstreamOf(String(u));
      if (typeof m === "string") ups.push(m);
      else plan.notCarried.push({ item: `client ${name} upstream ${u}`, why: m.why });
    }
    if (ups.length) b.upstreams(group, ups);
    for (const k of ["parental_enabled", "safebrowsing_enabled"])
      if (!global && c[k] === true)
        plan.notCarried.push({
          item: `client ${name} ${k}`,
          why: "AdGuard's own lookup service; Moat blocks by lists only",
        });
    if (c.ignore_querylog === true || c.ignore_statistics === true)
      plan.notCarried.push({
        item: `client ${name} ignore_querylog/ignore_statistics`,
        why: "Moat logs every client (dns.queryLogging is global)",
      });
  }
  if (n) plan.carried.push(`${plural(n, "persistent client")} (each a group of its own)`);
  return out;
}

function dhcp(plan: Plan, d: Obj, dataDir: string | null): void {
  const v4 = obj(d.dhcpv4);
  if (d.enabled === true) setSetting(plan, "dhcp.active", true, "dhcp.enabled");
  for (const [k, path] of [
    ["range_start", "dhcp.start"],
    ["range_end", "dhcp.end"],
    ["gateway_ip", "dhcp.router"],
    ["subnet_mask", "dhcp.netmask"],
  ] as const)
    if (typeof v4[k] === "string" && v4[k]) setSetting(plan, path, v4[k], `dhcp.dhcpv4.${k}`);
  if (typeof v4.lease_duration === "number" && v4.lease_duration > 0)
    setSetting(
      plan,
      "dhcp.leaseTime",
      `${Math.max(1, Math.round(v4.lease_duration / 60))}m`,
      "dhcp.dhcpv4.lease_duration",
    );
  if (typeof d.local_domain_name === "string" && d.local_domain_name)
    setSetting(plan, "dns.domain.name", d.local_domain_name, "dhcp.local_domain_name");
  if (!dataDir) return;
  const file = join(dataDir, "data", "leases.json");
  if (!existsSync(file)) return;
  let leases: unknown;
  try {
    leases = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new MigrateError("data/leases.json is not valid JSON", (e as Error).message);
  }
  const fixed = arr(obj(leases).leases)
    .map(obj)
    .filter((l) => l.static === true);
  const lines = fixed.map((l) => [l.mac, l.ip, l.hostname].filter(Boolean).join(","));
  const n = addToList(plan, "dhcp.hosts", lines, "data/leases.json");
  if (n) plan.carried.push(plural(n, "DHCP static lease"));
}

/** AdGuard keeps a PEM either inline or as a path to it; the inline one wins. */
function pem(inline: unknown, path: unknown): string {
  if (typeof inline === "string" && inline) return inline;
  return path ? readPem(String(path)) : "";
}

function tls(plan: Plan, t: Obj): void {
  if (t.enabled !== true) return;
  const chain = pem(t.certificate_chain, t.certificate_path);
  const key = pem(t.private_key, t.private_key_path);
  if (!chain || !key) {
    plan.notCarried.push({ item: "tls certificate", why: "its certificate or key could not be read" });
    return;
  }
  plan.tlsPem = `${key.trim()}\n${chain.trim()}\n`;
  plan.carried.push("the TLS certificate and key");
}

const readPem = (f: string) => (existsSync(f) ? readFileSync(f, "utf8") : "");
