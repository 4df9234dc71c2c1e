// The running configuration: defaults ← profile ← file ← environment, validated as one, with
// change notification and atomic writes of the file layer. The file is shared: the command line
// and people with an editor change it while the server runs. Every write first takes in what
// others wrote (under a lock), and the server applies their changes as soon as they land, so no
// writer silently undoes another's change.
import { crossProblem } from "./cross-checks.ts";
import { coerce } from "./leaf.ts";
import { LEAVES, LEAF_BY_PATH, defaults, getIn, setIn, type Config, type LeafEntry } from "./schema.ts";
import { writeToml } from "./toml.ts";
import { lineOfKey, parseWithLine, readText, watchFile, withFileLock, writeAtomically } from "./file.ts";

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
  /**
   * Whether a stored hash is the one of this password. Given, a password set by the environment is also
   * written to the file (as FTL writes environment values into pihole.toml), so a container started
   * again without the variable keeps it.
   */
  holdsPassword?: (plain: string, hash: string) => boolean;
}

const FILE_HEADER = `# Moat configuration (Pi-hole v6 key names).
# A running Moat applies changes to this file as soon as it is saved; the API (/api/config) keeps them.
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
  /** the file's text as this store last read or wrote it (null: no file) */
  private fileText: string | null = null;
  private envLayer: Record<string, unknown> = {};
  private base: Config;
  private value: Config;
  private listeners = new Set<Listener>();
  /** dotted keys set by environment variables: read-only through the API */
  readonly envForced = new Set<string>();
  readonly warnings: string[] = [];

  constructor(private readonly opts: ConfigOptions) {
    this.base = defaults();
    for (const [k, v] of Object.entries(opts.profile ?? {}))
      setIn(this.base as unknown as Record<string, unknown>, k.split("."), v);
    const text = readText(opts.file);
    const read = this.layerFrom(text);
    this.fileLayer = read.layer;
    this.fileText = text;
    this.loadEnv(opts.env ?? {});
    const keptEnvPassword = this.keepEnvPassword(opts.env ?? {});
    this.value = this.compose();
    // a plain password written into the file by hand is hashed, and the file no longer holds it
    if (text === null || read.hashedPlain || keptEnvPassword) this.save();
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
  update(
    changes: ReadonlyArray<{ path: string; value: unknown }>,
  ): { ok: true; changed: string[] } | { ok: false; problem: ConfigProblem } {
    const staged: Array<{ entry: LeafEntry; value: unknown }> = [];
    for (const { path, value } of changes) {
      const entry = LEAF_BY_PATH.get(path);
      if (!entry)
        return { ok: false, problem: { message: "Config item is invalid", hint: `${path}: unknown config item` } };
      if (this.envForced.has(path) || (path === "webserver.api.password" && this.envForced.has("webserver.api.pwhash")))
        return {
          ok: false,
          problem: { message: "Config items set via environment variables cannot be changed via the API", hint: path },
        };
      const c = coerce(entry.leaf, value);
      if (!c.ok) {
        const hint = `${path}${c.reason.startsWith("[") ? "" : ": "}${c.reason}`;
        return {
          ok: false,
          problem: { message: c.validation ? "Config item validation failed" : "Config item is invalid", hint },
        };
      }
      staged.push({ entry, value: c.value });
    }
    return withFileLock(this.opts.file, () => {
      const synced = this.syncFromFile();
      if (!synced.ok) return synced;
      const together = this.problemTogether(staged);
      if (together) return { ok: false, problem: { message: "Config item validation failed", hint: together } };
      return this.apply(staged);
    });
  }

  /**
   * Takes in the file as it is on disk now, when someone else changed it, and tells the
   * subscribers. A file that cannot be used changes nothing and is reported (and left alone).
   */
  reload(): { ok: true; changed: string[] } | { ok: false; problem: ConfigProblem } {
    return withFileLock(this.opts.file, () => this.syncFromFile());
  }

  /** Applies changes of the file as soon as they land, until the returned function is called. */
  watch(onResult: (r: ReturnType<ConfigStore["reload"]>) => void): () => void {
    return watchFile(this.opts.file, () => onResult(this.reload()));
  }

  private syncFromFile(): { ok: true; changed: string[] } | { ok: false; problem: ConfigProblem } {
    const text = readText(this.opts.file);
    if (text === this.fileText) return { ok: true, changed: [] };
    // a deleted file must not reset the settings (the password above all): it is written again
    if (text === null) {
      this.writeFile();
      return { ok: true, changed: [] };
    }
    let read: { layer: Record<string, unknown>; hashedPlain: boolean };
    try {
      read = this.layerFrom(text);
    } catch (e) {
      return {
        ok: false,
        problem: {
          message: "The config file was changed and cannot be used; fix it first (nothing was changed)",
          hint: (e as Error).message,
        },
      };
    }
    const prev = this.value;
    this.fileLayer = read.layer;
    this.fileText = text;
    this.value = this.compose();
    if (read.hashedPlain) this.writeFile();
    const changed = LEAVES.filter(
      (e) => JSON.stringify(getIn(prev, e.segments)) !== JSON.stringify(getIn(this.value, e.segments)),
    ).map((e) => e.path);
    if (changed.length) for (const fn of this.listeners) fn(this.value, prev, changed);
    return { ok: true, changed };
  }

  /** What the settings as they would be say against each other (cross-checks.ts), for the keys changed. */
  private problemTogether(staged: ReadonlyArray<{ entry: LeafEntry; value: unknown }>): string | null {
    const next = structuredClone(this.value) as unknown as Record<string, unknown>;
    for (const { entry, value } of staged) setIn(next, entry.segments, value);
    return crossProblem(
      next as unknown as Config,
      staged.map((s) => s.entry.path),
    );
  }

  private apply(staged: ReadonlyArray<{ entry: LeafEntry; value: unknown }>): { ok: true; changed: string[] } {
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
    this.writeFile();
    for (const fn of this.listeners) fn(this.value, prev, changed);
    return { ok: true, changed };
  }

  /** Writes the file layer (under the lock that every writer of the file takes). */
  save(): void {
    withFileLock(this.opts.file, () => this.writeFile());
  }

  private writeFile(): void {
    const text = writeToml(this.fileLayer, FILE_HEADER);
    try {
      writeAtomically(this.opts.file, text);
    } catch (e) {
      throw new ConfigError(`cannot write config file ${this.opts.file}: ${(e as Error).message}`);
    }
    this.fileText = text;
  }

  /** The file layer a text describes; a problem throws ConfigError naming the file, line and key. */
  private layerFrom(text: string | null): { layer: Record<string, unknown>; hashedPlain: boolean } {
    const layer: Record<string, unknown> = {};
    if (text === null) return { layer, hashedPlain: false };
    const file = this.opts.file;
    const parsed = parseWithLine(text);
    if (!parsed.ok) {
      const within = parsed.start ? ` (in the value that begins on line ${parsed.start})` : "";
      throw new ConfigError(`${file}, line ${parsed.line}${within}: not valid TOML: ${parsed.reason}`);
    }
    for (const entry of LEAVES) {
      const raw = getIn(parsed.tree, entry.segments);
      if (raw === undefined) continue;
      const c = coerce(entry.leaf, raw);
      if (!c.ok) {
        const line = lineOfKey(text, entry.segments);
        throw new ConfigError(
          `${file}${line ? `, line ${line}` : ""}: ${entry.path}${c.reason.startsWith("[") ? "" : ": "}${withChoices(entry.leaf, c.reason)}`,
        );
      }
      if (entry.leaf.kind === "password") continue;
      setIn(layer, entry.segments, c.value);
    }
    const plain = getIn(parsed.tree, ["webserver", "api", "password"]);
    if (typeof plain !== "string" || plain === "" || plain === "********") return { layer, hashedPlain: false };
    setIn(layer, ["webserver", "api", "pwhash"], this.opts.hashPassword(plain));
    return { layer, hashedPlain: true };
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
      if (!c.ok) throw new ConfigError(`invalid value in ${name}: ${withChoices(entry.leaf, c.reason)}`);
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

  /** Copies the environment's password hash into the file layer unless the file's already matches it. */
  private keepEnvPassword(env: Record<string, string | undefined>): boolean {
    const holds = this.opts.holdsPassword;
    const name = Object.keys(env).find((n) => env[n] !== undefined && envLeaf(n)?.path === "webserver.api.password");
    if (!holds || name === undefined) return false;
    const plain = env[name]!;
    const stored = getIn(this.fileLayer, ["webserver", "api", "pwhash"]);
    if (typeof stored === "string" && (stored === "" ? plain === "" : holds(plain, stored))) return false;
    setIn(this.fileLayer, ["webserver", "api", "pwhash"], getIn(this.envLayer, ["webserver", "api", "pwhash"]));
    return true;
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

/** A start-up message about an enum names the values it takes (the API keeps Pi-hole's short hint). */
function withChoices(leaf: { allowed?: readonly string[] }, reason: string): string {
  return reason === "invalid option" && leaf.allowed ? `${reason}; valid values: ${leaf.allowed.join(", ")}` : reason;
}
