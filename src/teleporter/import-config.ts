// Restoring settings from a backup's pihole.toml (ours or Pi-hole's). Like Pi-hole, the backup
// replaces the whole configuration: a setting the file does not name returns to its default.
// Settings Moat does not know are skipped; so are settings forced by environment variables, this
// instance's database paths, and values Moat cannot use (each named in `skipped`), so that one odd
// value does not lose the rest.
import { LEAVES, coerce, getIn, type ConfigStore } from "../config/index.ts";

export class BackupConfigError extends Error {}

export interface ConfigPlan {
  changes: Array<{ path: string; value: unknown }>;
  skipped: string[];
}

export function planConfig(store: ConfigStore, text: string): ConfigPlan {
  let parsed: Record<string, unknown>;
  try {
    parsed = Bun.TOML.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new BackupConfigError(`not valid TOML (${(e as Error).message})`);
  }
  const changes: ConfigPlan["changes"] = [];
  const skipped: string[] = [];
  for (const e of LEAVES) {
    if (e.leaf.kind === "password" || store.envForced.has(e.path)) continue;
    // Where this instance keeps its databases (set by --data-dir) is not the backed-up machine's.
    if (e.path.startsWith("files.") && JSON.stringify(store.defaultOf(e.path)) !== JSON.stringify(e.leaf.default))
      continue;
    // Which fleet this machine belongs to, and its name there, are not the backed-up machine's.
    if (e.path.startsWith("fleet.")) continue;
    const raw = getIn(parsed, e.segments);
    if (raw === undefined) {
      changes.push({ path: e.path, value: store.defaultOf(e.path) });
      continue;
    }
    const c = coerce(e.leaf, raw);
    if (!c.ok) {
      skipped.push(`${e.path}: ${c.reason.replace(/^\[/, "[")}`);
      continue;
    }
    changes.push({ path: e.path, value: c.value });
  }
  return { changes, skipped };
}

export function applyConfig(store: ConfigStore, plan: ConfigPlan): string[] {
  const r = store.update(plan.changes);
  if (!r.ok) throw new BackupConfigError(`${r.problem.message}: ${r.problem.hint}`);
  return r.changed;
}
