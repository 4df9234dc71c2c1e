// A strict check of a reply against the JSON schema Moat documents for it (/api/docs/json, made from
// the TypeBox schemas beside the routes). Stricter than TypeBox's own check where Pi-hole's checker
// is: every documented property present unless optional, nothing undocumented, integers as integers,
// null only where the schema allows it, ipv4/ipv6 formats, and in compatibility mode no part marked
// Moat-only ("x-moat-only").
import { isIP } from "node:net";

export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  format?: string;
  "x-moat-only"?: boolean;
  [k: string]: unknown;
}

/** Problems of `value` against `schema`, each with the path where it was found; none means it fits. */
export function check(value: unknown, schema: Schema, compat: boolean, path = "$"): string[] {
  if (compat && schema["x-moat-only"]) return [`${path}: Moat-only, must be absent in compatibility mode`];
  const union = schema.anyOf ?? schema.oneOf;
  if (union) {
    const members = union.filter((m) => !(compat && m["x-moat-only"]));
    let best: string[] | undefined;
    for (const m of members) {
      const errs = check(value, m, compat, path);
      if (errs.length === 0) return [];
      if (!best || errs.length < best.length) best = errs;
    }
    return value === null
      ? [`${path}: null where the schema does not allow it`]
      : (best ?? [`${path}: no alternative allowed`]);
  }
  if (schema.allOf) return schema.allOf.flatMap((m) => check(value, m, compat, path));
  if (schema.const !== undefined && value !== schema.const)
    return [`${path}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`];
  if (schema.enum && !schema.enum.includes(value))
    return [`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  const type = schema.type;
  if (type === undefined) return [];
  if (Array.isArray(type)) {
    return type.some((t) => check(value, { ...schema, type: t }, compat, path).length === 0)
      ? []
      : [`${path}: not of type ${type.join("|")}`];
  }
  switch (type) {
    case "null":
      return value === null ? [] : [`${path}: expected null, got ${JSON.stringify(value)}`];
    case "boolean":
      return typeof value === "boolean" ? [] : [`${path}: expected boolean, got ${describe(value)}`];
    case "integer":
      return Number.isInteger(value) ? [] : [`${path}: expected integer, got ${describe(value)}`];
    case "number":
      return typeof value === "number" && Number.isFinite(value)
        ? []
        : [`${path}: expected number, got ${describe(value)}`];
    case "string": {
      if (typeof value !== "string") return [`${path}: expected string, got ${describe(value)}`];
      if (schema.format === "ipv4" && isIP(value) !== 4) return [`${path}: "${value}" is not an IPv4 address`];
      if (schema.format === "ipv6" && isIP(value) !== 6) return [`${path}: "${value}" is not an IPv6 address`];
      return [];
    }
    case "array": {
      if (!Array.isArray(value)) return [`${path}: expected array, got ${describe(value)}`];
      return schema.items ? value.flatMap((v, i) => check(v, schema.items!, compat, `${path}[${i}]`)) : [];
    }
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value))
        return [`${path}: expected object, got ${describe(value)}`];
      const obj = value as Record<string, unknown>;
      const props = schema.properties ?? {};
      const errs: string[] = [];
      for (const key of schema.required ?? []) if (!Object.hasOwn(obj, key)) errs.push(`${path}.${key}: missing`);
      for (const [key, v] of Object.entries(obj)) {
        const at = `${path}.${key}`;
        if (props[key]) {
          errs.push(...check(v, props[key]!, compat, at));
          continue;
        }
        const pattern = Object.entries(schema.patternProperties ?? {}).find(([re]) => new RegExp(re).test(key));
        if (pattern) errs.push(...check(v, pattern[1], compat, at));
        else if (typeof schema.additionalProperties === "object")
          errs.push(...check(v, schema.additionalProperties, compat, at));
        else if (schema.additionalProperties !== true) errs.push(`${at}: not in the schema`);
      }
      return errs;
    }
    default:
      return [`${path}: unknown schema type ${type}`];
  }
}

/** Places where a schema accepts anything (no type): a reply there is not really checked. */
export function looseSpots(schema: Schema, path = "$"): string[] {
  const union = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (union) return union.flatMap((m) => looseSpots(m, path));
  if (schema.type === undefined && schema.const === undefined && schema.enum === undefined) return [path];
  const out: string[] = [];
  for (const [k, p] of Object.entries(schema.properties ?? {})) out.push(...looseSpots(p, `${path}.${k}`));
  for (const p of Object.values(schema.patternProperties ?? {})) out.push(...looseSpots(p, `${path}.*`));
  if (typeof schema.additionalProperties === "object")
    out.push(...looseSpots(schema.additionalProperties, `${path}.*`));
  if (schema.items) out.push(...looseSpots(schema.items, `${path}[]`));
  return out;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? `integer ${v}` : `number ${v}`;
  return typeof v === "object" ? "object" : `${typeof v} ${JSON.stringify(v)}`;
}
