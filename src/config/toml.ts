// Reading and writing the config file. Reading uses Bun's TOML parser; writing is ours because the
// file is always the same shape: one table per branch of the schema, a comment per key.
import { LEAVES, getIn, type LeafEntry } from "./schema.ts";

export function parseToml(text: string): Record<string, unknown> {
  return Bun.TOML.parse(text) as Record<string, unknown>;
}

function tomlString(s: string): string {
  // JSON string escapes are valid TOML basic-string escapes, except that TOML has no "\/" (JSON.stringify never emits it).
  return JSON.stringify(s).replace(/[\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function tomlValue(v: unknown): string {
  if (typeof v === "string") return tomlString(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return v.length === 0 ? "[]" : `[\n${v.map((x) => `  ${tomlValue(x)},`).join("\n")}\n]`;
  throw new Error(`cannot write ${typeof v} to TOML`);
}

/** Serialises the values of `tree` that are present (the file layer), grouped by table, with descriptions as comments. */
export function writeToml(tree: Record<string, unknown>, header: string): string {
  const tables = new Map<string, LeafEntry[]>();
  for (const e of LEAVES) {
    if (getIn(tree, e.segments) === undefined) continue;
    const table = e.segments.slice(0, -1).join(".");
    const list = tables.get(table) ?? [];
    list.push(e);
    tables.set(table, list);
  }
  const out: string[] = [header.trimEnd(), ""];
  for (const [table, entries] of tables) {
    out.push(`[${table}]`);
    for (const e of entries) {
      out.push(`  # ${e.leaf.description}`);
      out.push(`  ${e.segments[e.segments.length - 1]} = ${tomlValue(getIn(tree, e.segments)).replace(/\n/g, "\n  ")}`);
    }
    out.push("");
  }
  return out.join("\n");
}
