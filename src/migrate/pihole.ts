// `moat migrate pihole [DIR]`: a Pi-hole v6 directory (pihole.toml), a v5 one (setupVars.conf), or a
// Teleporter archive of either, unpacked into a directory of the same layout first (archive.ts).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dnsmasqLines, hostsLines } from "./dnsmasq-lines.ts";
import { ListsBuilder, type DomainType } from "./lists-builder.ts";
import { piholeToml } from "./pihole-toml.ts";
import { ftlConf, setupVars } from "./pihole-v5.ts";
import { newPlan, plural, type Plan } from "./plan.ts";
import { MigrateError } from "./report.ts";

/** dnsmasq.d files Pi-hole v5 writes from setupVars.conf itself: their settings come from there */
const GENERATED = new Set(["01-pihole.conf", "02-pihole-dhcp.conf", "06-rfc6761.conf"]);

const read = (dir: string, name: string): string | undefined => {
  const f = join(dir, name);
  return existsSync(f) ? readFileSync(f, "utf8") : undefined;
};

export function readPihole(dir: string, shown = dir): Plan {
  if (!existsSync(dir))
    throw new MigrateError(`${dir} does not exist`, "give the directory of the Pi-hole install (default /etc/pihole)");
  const toml = read(dir, "pihole.toml");
  const setup = read(dir, "setupVars.conf");
  if (toml === undefined && setup === undefined)
    throw new MigrateError(
      `${dir} is not a Pi-hole directory`,
      "it has neither pihole.toml (Pi-hole v6) nor setupVars.conf (Pi-hole v5)",
    );
  const plan = newPlan(`Pi-hole ${toml !== undefined ? "v6" : "v5"} ${shown}`);
  let settings = 0;
  if (toml !== undefined) settings += piholeToml(plan, toml);
  else {
    settings += setupVars(plan, setup!);
    const ftl = read(dir, "pihole-FTL.conf");
    if (ftl !== undefined) settings += ftlConf(plan, ftl);
  }
  if (settings) plan.carried.push(plural(settings, "setting"));

  let hosts = 0;
  for (const name of ["custom.list", "hosts/custom.list"]) {
    const text = read(dir, name);
    if (text !== undefined) hosts += hostsLines(plan, text, name);
  }
  const counts = { hosts, cnames: 0, leases: 0, servers: 0 };
  for (const d of ["dnsmasq.d", "etc/dnsmasq.d"]) {
    const base = toml === undefined ? join(dir, d) : "";
    if (!base || !existsSync(base)) continue;
    for (const f of readdirSync(base).sort()) {
      if (GENERATED.has(f) || !f.endsWith(".conf")) continue;
      const c = dnsmasqLines(plan, readFileSync(join(base, f), "utf8"), `dnsmasq.d/${f}`);
      for (const k of Object.keys(counts) as Array<keyof typeof counts>) counts[k] += c[k];
    }
  }
  // the files of a v5 Teleporter archive lie beside its tables
  for (const f of ["05-pihole-custom-cname.conf", "04-pihole-static-dhcp.conf"]) {
    const text = toml === undefined && !existsSync(join(dir, "dnsmasq.d", f)) ? read(dir, f) : undefined;
    if (text === undefined) continue;
    const c = dnsmasqLines(plan, text, f);
    for (const k of Object.keys(counts) as Array<keyof typeof counts>) counts[k] += c[k];
  }
  const hostsNow = (plan.settings.get("dns.hosts") as string[] | undefined)?.length ?? 0;
  const cnamesNow = (plan.settings.get("dns.cnameRecords") as string[] | undefined)?.length ?? 0;
  const staticNow = (plan.settings.get("dhcp.hosts") as string[] | undefined)?.length ?? 0;
  if (hostsNow) plan.carried.push(plural(hostsNow, "local DNS record"));
  if (cnamesNow) plan.carried.push(plural(cnamesNow, "local CNAME record"));
  if (staticNow) plan.carried.push(plural(staticNow, "DHCP reservation"));
  if (counts.servers) plan.carried.push(`${plural(counts.servers, "per-domain server")} (as conditional forwarding)`);

  if (existsSync(join(dir, "gravity.db"))) plan.gravityDb = join(dir, "gravity.db");
  else if (toml === undefined) v5Tables(plan, dir);
  const leases = read(dir, "dhcp.leases");
  if (leases?.trim()) {
    plan.leases = leases;
    plan.carried.push(plural(leases.trim().split("\n").length, "DHCP lease"));
  }
  if (existsSync(join(dir, "pihole-FTL.db"))) plan.history = { kind: "pihole", file: join(dir, "pihole-FTL.db") };
  return plan;
}

/** domainlist types by the file names of a v5 Teleporter archive */
const DOMAIN_FILES: Record<string, DomainType> = {
  "whitelist.exact.json": 0,
  "blacklist.exact.json": 1,
  "whitelist.regex.json": 2,
  "blacklist.regex.json": 3,
};

type JsonRow = Record<string, unknown>;

function jsonTable(dir: string, name: string): JsonRow[] | undefined {
  const text = read(dir, name);
  if (text === undefined) return undefined;
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (e) {
    throw new MigrateError(`${name} is not valid JSON`, (e as Error).message);
  }
  if (!Array.isArray(rows) || rows.some((r) => typeof r !== "object" || r === null))
    throw new MigrateError(`${name} is not a table`, "expected a JSON array of rows");
  return rows as JsonRow[];
}

/** A v5 Teleporter archive's tables (JSON arrays of rows, with their ids) as the management tables. */
function v5Tables(plan: Plan, dir: string): void {
  const b = new ListsBuilder();
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  const on = (r: JsonRow) => r.enabled !== 0 && r.enabled !== false;
  const groups = new Map<number, number>([[0, 0]]);
  for (const r of jsonTable(dir, "group.json") ?? [])
    if (typeof r.name === "string" && typeof r.id === "number")
      groups.set(r.id, b.group(r.name, str(r.description), on(r), r.id === 0 ? undefined : r.id));
  const linked = (file: string, owner: string) => {
    const rows = jsonTable(dir, file);
    const by = new Map<number, number[]>();
    for (const r of rows ?? []) {
      const g = groups.get(Number(r.group_id));
      if (g !== undefined) by.set(Number(r[owner]), [...(by.get(Number(r[owner])) ?? []), g]);
    }
    return rows ? (id: number) => by.get(id) ?? [] : () => undefined;
  };
  const domainGroups = linked("domainlist_by_group.json", "domainlist_id");
  for (const [file, type] of Object.entries(DOMAIN_FILES))
    for (const r of jsonTable(dir, file) ?? [])
      if (typeof r.domain === "string" && typeof r.id === "number")
        b.domain(type, r.domain, { enabled: on(r), comment: str(r.comment), groups: domainGroups(r.id), id: r.id });
  const listGroups = linked("adlist_by_group.json", "adlist_id");
  for (const r of jsonTable(dir, "adlist.json") ?? [])
    if (typeof r.address === "string" && typeof r.id === "number")
      b.adlist(r.address, 0, { enabled: on(r), comment: str(r.comment), groups: listGroups(r.id), id: r.id });
  const clientGroups = linked("client_by_group.json", "client_id");
  for (const r of jsonTable(dir, "client.json") ?? [])
    if (typeof r.ip === "string" && typeof r.id === "number") b.client(r.ip, str(r.comment), clientGroups(r.id), r.id);
  plan.rows = b;
}
