// A leaf of the config tree: its type, default, description and how raw input becomes a value.
// Every place that reads settings (TOML file, environment, API) goes through `coerce` so that the
// error texts are the same everywhere (they follow Pi-hole's "<key>: <reason>" wording).

type LeafKind = "bool" | "int" | "uint" | "float" | "string" | "enum" | "strings" | "password";

interface LeafFlags {
  /** changing it needs the DNS side to be restarted (Pi-hole's restart_dnsmasq) */
  readonly restart?: boolean;
  /** changing it ends every API session */
  readonly sessionReset?: boolean;
  /** never shown in replies (secrets) */
  readonly writeOnly?: boolean;
  /**
   * Moat's own setting, which Pi-hole does not have: in the TOML file and the API's default mode,
   * left out of /api/config in Pi-hole compatibility mode (clients there expect Pi-hole's tree).
   */
  readonly moatOnly?: boolean;
}

export interface Leaf<T> {
  readonly __leaf: true;
  readonly kind: LeafKind;
  readonly default: T;
  readonly description: string;
  readonly allowed?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly flags: LeafFlags;
  /** extra check of a well-typed value: returns the problem, or null when fine */
  readonly check?: (value: T) => string | null;
  /** the stored spelling of a well-typed value (IDN names as punycode), applied before `check` */
  readonly normalize?: (value: T) => T;
}

export type AnyLeaf = Leaf<unknown>;

export function isLeaf(x: unknown): x is AnyLeaf {
  return typeof x === "object" && x !== null && (x as { __leaf?: unknown }).__leaf === true;
}

interface Opts<T> {
  flags?: LeafFlags;
  check?: (value: T) => string | null;
  normalize?: (value: T) => T;
}

export const bool = (def: boolean, description: string, o: Opts<boolean> = {}): Leaf<boolean> => ({
  __leaf: true,
  kind: "bool",
  default: def,
  description,
  flags: o.flags ?? {},
  check: o.check,
});

/**
 * Every number of the settings tree has a range, so no setting takes 1e308 (a TTL that wraps, a
 * session that never ends): `coerce` enforces `min` and `max` for the API, the TOML file, the
 * environment and a Teleporter import alike, and `/api/config` shows them
 * (test/config/ranges.test.ts checks that every number of src/config/schema.ts has both).
 */
interface Range {
  min?: number;
  max?: number;
}

/** A number leaf of one kind; `floor`, the `min` when the leaf names none. */
const numeric =
  (kind: "int" | "uint" | "float", floor?: number) =>
  (def: number, description: string, o: Opts<number> & Range = {}): Leaf<number> => ({
    __leaf: true,
    kind,
    default: def,
    description,
    min: o.min ?? floor,
    max: o.max,
    flags: o.flags ?? {},
    check: o.check,
  });

export const int = numeric("int");
/** An integer from `min` (default 0) to `max`. */
export const uint = numeric("uint", 0);
export const float = numeric("float");

export const str = (def: string, description: string, o: Opts<string> = {}): Leaf<string> => ({
  __leaf: true,
  kind: "string",
  default: def,
  description,
  flags: o.flags ?? {},
  check: o.check,
  normalize: o.normalize,
});

export const secret = (description: string, o: Opts<string> = {}): Leaf<string> => ({
  __leaf: true,
  kind: "password",
  default: "",
  description,
  flags: { writeOnly: true, ...o.flags },
  check: o.check,
});

export function oneOf<const A extends readonly string[]>(
  allowed: A,
  def: A[number],
  description: string,
  o: Opts<A[number]> = {},
): Leaf<A[number]> {
  return { __leaf: true, kind: "enum", default: def, description, allowed, flags: o.flags ?? {}, check: o.check };
}

/** An array of strings; `each` checks one element and returns its problem (reported with the index). */
export const strings = (
  def: readonly string[],
  description: string,
  o: Opts<string[]> & { each?: (s: string) => string | null } = {},
): Leaf<string[]> => {
  const each = o.each;
  const check = (v: string[]): string | null => {
    if (each) {
      for (let i = 0; i < v.length; i++) {
        const problem = each(v[i] as string);
        if (problem) return `[${i}]: ${problem}`;
      }
    }
    return o.check ? o.check(v) : null;
  };
  return {
    __leaf: true,
    kind: "strings",
    default: [...def],
    description,
    flags: o.flags ?? {},
    check,
    normalize: o.normalize,
  };
};

/**
 * The longest text of any setting and the most elements of a list (a path, a URL, a HOSTS line, a
 * header fit easily; a 5 MB string does not belong in pihole.toml).
 */
export const MAX_TEXT = 4096;
export const MAX_ITEMS = 10_000;

/** `validation`: the value has the right type but failed the leaf's own check (Pi-hole: "Config item validation failed"). */
export type Coerced<T> = { ok: true; value: T } | { ok: false; reason: string; validation?: boolean };

const typeName: Record<LeafKind, string> = {
  bool: "bool",
  int: "integer",
  uint: "unsigned integer",
  float: "number",
  string: "string",
  enum: "string",
  strings: "array",
  password: "string",
};

/** Turns a JSON/TOML value into the leaf's type. `fromText` also accepts the string spellings used in environment variables. */
export function coerce(leaf: AnyLeaf, raw: unknown, fromText = false): Coerced<unknown> {
  const bad = (reason: string): Coerced<unknown> => ({ ok: false, reason });
  const notType = () => bad(`not of type ${typeName[leaf.kind]}`);
  let value: unknown = raw;
  switch (leaf.kind) {
    case "bool":
      if (fromText && typeof raw === "string") {
        const t = raw.trim().toLowerCase();
        if (["true", "yes", "1", "on"].includes(t)) value = true;
        else if (["false", "no", "0", "off"].includes(t)) value = false;
        else return notType();
      } else if (typeof raw !== "boolean") return notType();
      break;
    case "int":
    case "uint":
    case "float": {
      let n: number;
      if (fromText && typeof raw === "string" && raw.trim() !== "") n = Number(raw.trim());
      else if (typeof raw === "number") n = raw;
      else if (typeof raw === "bigint") n = Number(raw);
      else return notType();
      if (!Number.isFinite(n)) return notType();
      if (leaf.kind !== "float" && !Number.isInteger(n)) return notType();
      if (leaf.kind === "uint" && n < 0) return notType();
      if (leaf.min !== undefined && n < leaf.min) return bad(`must be at least ${leaf.min}`);
      if (leaf.max !== undefined && n > leaf.max) return bad(`must be at most ${leaf.max}`);
      value = n;
      break;
    }
    case "string":
    case "password":
      if (typeof raw !== "string") return notType();
      if (raw.length > MAX_TEXT) return bad(`longer than ${MAX_TEXT} characters`);
      break;
    case "enum":
      if (typeof raw !== "string") return notType();
      // FTL compares these without case (strcasecmp): Pi-hole's own compose file sets FTLCONF_dns_listeningMode: 'all'
      if (fromText) value = leaf.allowed!.find((a) => a.toLowerCase() === raw.trim().toLowerCase()) ?? raw;
      if (!leaf.allowed!.includes(value as string)) return bad("invalid option");
      break;
    case "strings":
      if (fromText && typeof raw === "string") {
        value = raw
          .split(";")
          .map((s) => s.trim())
          .filter((s) => s !== "");
      } else if (!Array.isArray(raw)) return notType();
      else if (!raw.every((x) => typeof x === "string")) return bad("array has invalid elements");
      else value = [...raw];
      if ((value as string[]).length > MAX_ITEMS) return bad(`more than ${MAX_ITEMS} elements`);
      if ((value as string[]).some((x) => x.length > MAX_TEXT))
        return bad(`an element is longer than ${MAX_TEXT} characters`);
      break;
  }
  if (leaf.normalize) value = leaf.normalize(value);
  if (leaf.check) {
    const problem = leaf.check(value);
    if (problem) return { ok: false, reason: problem, validation: true };
  }
  return { ok: true, value };
}
