// Pi-hole v6's pihole.toml: every setting Moat has is carried as the file gives it (what the
// Teleporter's restore takes, src/teleporter/import-config.ts, except that a setting the file does not
// name keeps the target's value). Pi-hole marks the values a person changed with "### CHANGED"; those
// Moat has no setting for are reported, and misc.dnsmasq_lines go through the dnsmasq reader.
import { LEAVES, getIn } from "../config/index.ts";
import { dnsmasqLines } from "./dnsmasq-lines.ts";
import { MigrateError } from "./report.ts";
import { plural, setSetting, type Plan } from "./plan.ts";

const KNOWN = new Set(LEAVES.map((e) => e.path));

/** The dotted paths of the values marked "### CHANGED" in Pi-hole's file. */
function changedPaths(text: string): string[] {
  const out: string[] = [];
  let section = "";
  let pendingKey: string | null = null;
  for (const line of text.split("\n")) {
    const head = /^\s*\[([^\]]+)\]\s*(#.*)?$/.exec(line);
    if (head) {
      section = head[1]!.trim();
      continue;
    }
    const kv = /^\s*([A-Za-z0-9_]+)\s*=/.exec(line);
    if (kv) pendingKey = kv[1]!;
    if (/###\s*CHANGED/.test(line) && pendingKey) out.push(section ? `${section}.${pendingKey}` : pendingKey);
  }
  return out;
}

export function piholeToml(plan: Plan, text: string): number {
  let parsed: Record<string, unknown>;
  try {
    parsed = Bun.TOML.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new MigrateError("pihole.toml is not valid TOML", (e as Error).message);
  }
  let n = 0;
  for (const e of LEAVES) {
    if (e.leaf.kind === "password" || e.path.startsWith("files.") || e.path.startsWith("fleet.")) continue;
    const raw = getIn(parsed, e.segments);
    if (raw === undefined) continue;
    if (setSetting(plan, e.path, raw, `pihole.toml ${e.path}`)) n++;
  }
  const lines = getIn(parsed, ["misc", "dnsmasq_lines"]);
  if (Array.isArray(lines) && lines.length) {
    const c = dnsmasqLines(plan, lines.join("\n"), "pihole.toml misc.dnsmasq_lines");
    if (c.servers) plan.carried.push(`${plural(c.servers, "per-domain server")} (as conditional forwarding)`);
  }
  for (const p of changedPaths(text))
    if (!KNOWN.has(p) && !p.startsWith("files.") && p !== "misc.dnsmasq_lines")
      plan.notCarried.push({ item: `pihole.toml ${p}`, why: "Moat has no such setting" });
  return n;
}
