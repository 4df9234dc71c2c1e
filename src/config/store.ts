// The running configuration: defaults ← profile ← file ← environment, validated as one, with
// change notification and atomic writes of the file layer.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, openSync, fsyncSync, closeSync } from "node:fs";
import { dirname } from "node:path";
import { coerce } from "./leaf.ts";
import { LEAVES, LEAF_BY_PATH, defaults, getIn, setIn, type Config, type LeafEntry } from "./schema.ts";
import { parseToml, writeToml } from "./toml.ts";

export class ConfigError extends Error {}

/** One invalid item, worded as Pi-hole words it: message + "<key>: <reason>" hint. */
export interface ConfigProblem {
  message: string;
  hint: string;
}

type Listener = (next: Config, prev: Config, changed: readonly string[]) => void;

export interface ConfigOptions {
  /** path of the TOML file (created when missing) */
  file: string;
  env?: Record<string, string | undefined>;
  /** overrides of the defaults, e.g. the development profile's ports */
  profile?: Record<string, unknown>;
  /** turns a plain password into the stored hash (Balloon-SHA256) */
  hashPassword: (plain: string) => string;
}

const FILE_HEADER = `# Moat configuration (Pi-hole v6 key names).
# Edit while Moat is stopped, or change settings through the API (/api/config) while it runs.
# Environment variables FTLCONF_<section>_<key> or MOAT_<SECTION>_<KEY> override this file.`;

/** Maps `FTLCONF_webserver_api_max_sessions` and `MOAT_WEBSERVER_API_MAX_SESSIONS` to their leaf. */
const ENV_NAME = new Map(LEAVES.map((e) => [e.segments.join("_").toLowerCase(), e]));

export function envLeaf(name: string): LeafEntry | undefined {
  const m = /^(?:FTLCONF|MOAT)_(.+)$/i.exec(name);
  return m ? ENV_NAME.get(m[1]!.toLowerCase()) : undefined;
}

function deepFreeze<T>(o: T): T {
  if (typeof o === "object" && o !== null) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

export class ConfigStore {
  private fileLayer: Record<string, unknown> = {};
  private envLayer: Record<string, unknown> = {};
  private base: Config;
  private value: Config;
  private listeners = new Set<Listener>();
  /** dotted keys set by environment variables: read-only through the API */
  readonly envForced = new Set<string>();
  readonly warnings: string[] = [];

  constructor(private readonly opts: ConfigOptions) {
    this.base = defaults();
    for (const [k, v] of Object.entries(opts.profile ?? {})) setIn(this.base as unknown as Record<string, unknown>, k.split("."), v);
    this.loadFile();
    this.loadEnv(opts.env ?? {});
    this.value = this.compose();
    if (!existsSync(opts.file)) this.save();
  }

  get current(): Config {
    return this.value;
  }

  get file(): string {
    return this.opts.file;
  }

  /** Value of a leaf by its dotted key. */
  get(path: string): unknown {
    return getIn(this.value, path.split("."));
  }

  /** The value the leaf has when neither file nor environment sets it. */
  defaultOf(path: string): unknown {
    return getIn(this.base, path.split("."));
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Validates and applies changes to the file layer, then saves and notifies. All or nothing:
   * one invalid item leaves everything as it was. Writing `webserver.api.password` stores its hash.
   */
  update(changes: ReadonlyArray<{ path: string; value: unknown }>): { ok: true; changed: string[] } | { ok: false; problem: ConfigProblem } {
    const staged: Array<{ entry: LeafEntry; value: unknown }> = [];
    for (const { path, value } of changes) {
      const entry = LEAF_BY_PATH.get(path);
      if (!entry) return { ok: false, problem: { message: "Config item is invalid", hint: `${path}: unknown config item` } };
      if (this.envForced.has(path) || (path === "webserver.api.password" && this.envForced.has("webserver.api.pwhash")))
        return { ok: false, problem: { message: "Config items set via environment variables cannot be changed via the API", hint: path } };
      const c = coerce(entry.leaf, value);
      if (!c.ok) {
        const hint = `${path}${c.reason.startsWith("[") ? "" : ": "}${c.reason}`;
        return { ok: false, problem: { message: c.validation ? "Config item validation failed" : "Config item is invalid", hint } };
      }
      staged.push({ entry, value: c.value });
    }
    const prev = this.value;
    const changed: string[] = [];
    for (const { entry, value } of staged) {
      if (entry.path === "webserver.api.password") {
        const hash = value === "" ? "" : this.opts.hashPassword(value as string);
        setIn(this.fileLayer, ["webserver", "api", "pwhash"], hash);
        changed.push("webserver.api.pwhash");
        continue;
      }
      if (JSON.stringify(getIn(prev, entry.segments)) === JSON.stringify(value)) continue;
      setIn(this.fileLayer, entry.segments, value);
      changed.push(entry.path);
    }
    if (changed.length === 0) return { ok: true, changed };
    this.value = this.compose();
    this.save();
    for (const fn of this.listeners) fn(this.value, prev, changed);
    return { ok: true, changed };
  }

  /** Writes the file layer atomically: a crash mid-write leaves the old file whole. */
  save(): void {
    const text = writeToml(this.fileLayer, FILE_HEADER);
    const dir = dirname(this.opts.file);
    mkdirSync(dir, { recursive: true });
    const tmp = `${this.opts.file}.tmp-${process.pid}`;
    try {
      writeFileSync(tmp, text, { mode: 0o640 });
      const fd = openSync(tmp, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.opts.file);
    } catch (e) {
      throw new ConfigError(`cannot write config file ${this.opts.file}: ${(e as Error).message}`);
    }
  }

  private loadFile(): void {
    if (!existsSync(this.opts.file)) return;
    let parsed: Record<string, unknown>;
    try {
      parsed = parseToml(readFileSync(this.opts.file, "utf8"));
    } catch (e) {
      throw new ConfigError(`config file ${this.opts.file} is not valid TOML: ${(e as Error).message}`);
    }
    for (const entry of LEAVES) {
      const raw = getIn(parsed, entry.segments);
      if (raw === undefined) continue;
      const c = coerce(entry.leaf, raw);
      if (!c.ok) throw new ConfigError(`invalid value for ${entry.path} in ${this.opts.file}: ${entry.path}${c.reason.startsWith("[") ? "" : ": "}${c.reason}`);
      if (entry.leaf.kind === "password") continue;
      setIn(this.fileLayer, entry.segments, c.value);
    }
    // A plain password in the file (as a user may write it by hand) is hashed and removed from the file.
    const plain = getIn(parsed, ["webserver", "api", "password"]);
    if (typeof plain === "string" && plain !== "" && plain !== "********") {
      setIn(this.fileLayer, ["webserver", "api", "pwhash"], this.opts.hashPassword(plain));
      this.save();
    }
  }

  private loadEnv(env: Record<string, string | undefined>): void {
    for (const [name, raw] of Object.entries(env)) {
      if (raw === undefined || !/^(FTLCONF|MOAT)_/i.test(name)) continue;
      const entry = envLeaf(name);
      if (!entry) {
        this.warnings.push(`ignoring unknown setting ${name}`);
        continue;
      }
      const c = coerce(entry.leaf, raw, true);
      if (!c.ok) throw new ConfigError(`invalid value for ${entry.path} (from ${name}): ${entry.path}${c.reason.startsWith("[") ? "" : ": "}${c.reason}`);
      if (entry.path === "webserver.api.password") {
        setIn(this.envLayer, ["webserver", "api", "pwhash"], raw === "" ? "" : this.opts.hashPassword(raw));
        this.envForced.add("webserver.api.pwhash");
        this.envForced.add(entry.path);
        continue;
      }
      setIn(this.envLayer, entry.segments, c.value);
      this.envForced.add(entry.path);
    }
  }

  private compose(): Config {
    const out = structuredClone(this.base) as unknown as Record<string, unknown>;
    for (const layer of [this.fileLayer, this.envLayer]) {
      for (const e of LEAVES) {
        const v = getIn(layer, e.segments);
        if (v !== undefined) setIn(out, e.segments, structuredClone(v));
      }
    }
    return deepFreeze(out as unknown as Config);
  }
}
