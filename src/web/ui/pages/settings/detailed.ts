// GET /api/config?detailed as the dashboard reads it: every leaf with its path, its value, type,
// default and flags (Pi-hole's detailed config). Read by "All settings" and by the Settings page's
// read-only fields (env.tsx).

export type Leaf = {
  description: string;
  allowed: string | Array<{ item: string; description: string }>;
  type: string;
  value: unknown;
  default: unknown;
  modified: boolean;
  flags: { restart_dnsmasq: boolean; session_reset: boolean; env_var: boolean };
};
export type Entry = { path: string; leaf: Leaf };
export type Detailed = {
  config: Record<string, unknown>;
  topics?: Array<{ name: string; title: string; description: string }>;
};

const isLeaf = (v: unknown): v is Leaf =>
  typeof v === "object" && v !== null && "flags" in v && "type" in v && "description" in v;

/** every leaf of the detailed tree, with its dotted path */
export function flatten(node: Record<string, unknown>, prefix = "", out: Entry[] = []): Entry[] {
  for (const [k, v] of Object.entries(node)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (isLeaf(v)) out.push({ path, leaf: v });
    else if (typeof v === "object" && v !== null) flatten(v as Record<string, unknown>, path, out);
  }
  return out;
}

/** the environment variable that sets a key (Pi-hole's FTLCONF_ naming: dots become underscores) */
export const envName = (path: string): string => `FTLCONF_${path.replace(/\./g, "_")}`;
