// Turning API input into ConfigStore changes, and who may make them at all.
import { LEAVES, coerce, getIn, isLeaf, schema, type ConfigStore } from "../../config/index.ts";
import type { Context } from "../../core/runtime.ts";
import { ApiError, Errors } from "../core/errors.ts";
import { requestState } from "../core/request-state.ts";
import { MASK, isWriteOnly } from "./view.ts";

export interface Change {
  path: string;
  value: unknown;
}

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Walks a partial tree such as `{dns:{upstreams:[…]}}`. A secret sent back as its mask, and a
 * value equal to the current one, are no change at all: this is what lets a client PATCH back
 * what GET gave it, env-forced items included. A key or section Moat does not know is an error
 * naming it (a typo must not look like success), with the nearest known key as a suggestion.
 */
export function changesFromTree(store: ConfigStore, tree: Record<string, unknown>): Change[] {
  const changes: Change[] = [];
  const walk = (node: Record<string, unknown>, input: Record<string, unknown>, prefix: string[]) => {
    for (const [key, value] of Object.entries(input)) {
      const segs = [...prefix, key];
      const path = segs.join(".");
      const child = Object.hasOwn(node, key) ? node[key] : undefined;
      if (child === undefined)
        throw Errors.badRequest("Config item is invalid", `${path}: unknown config item${suggestion(path)}`);
      if (isLeaf(child)) {
        if (isWriteOnly(child) && value === MASK) continue;
        const c = coerce(child, value);
        if (c.ok && child.kind !== "password" && JSON.stringify(c.value) === JSON.stringify(getIn(store.current, segs)))
          continue;
        changes.push({ path, value });
        continue;
      }
      if (!isPlainObject(value)) throw Errors.badRequest("Config item is invalid", `${path}: not of type object`);
      walk(child as Record<string, unknown>, value, segs);
    }
  };
  walk(schema as unknown as Record<string, unknown>, tree, []);
  return changes;
}

/** ` (did you mean "dns.upstreams"?)` for a key a few letters away from a known one, else "". */
function suggestion(path: string): string {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(path.length / 5)) + 1;
  for (const e of LEAVES) {
    const d = editDistance(path.toLowerCase(), e.path.toLowerCase(), bestDistance);
    if (d < bestDistance) [best, bestDistance] = [e.path, d];
  }
  return best ? ` (did you mean "${best}"?)` : "";
}

/** Levenshtein distance, giving up (returning `limit`) once it cannot stay below `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin >= limit) return limit;
    prev = row;
  }
  return Math.min(prev[b.length]!, limit);
}

/** Applies changes all or nothing, mapping the store's problem to Pi-hole's 400 bad_request. */
export function applyChanges(rt: Context, changes: Change[]): string[] {
  if (changes.length === 0) return [];
  const r = rt.config.update(changes);
  if (!r.ok) throw Errors.badRequest(r.problem.message, r.problem.hint);
  return r.changed;
}

interface SessionFlags {
  app: boolean;
  cli: boolean;
}

/** The auth module's session object carries `app`/`cli` flags; anything else is a normal session. */
function sessionFlags(request: Request): SessionFlags {
  const s = requestState(request).session as { app?: unknown; cli?: unknown } | null | undefined;
  return { app: s?.app === true, cli: s?.cli === true };
}

/**
 * Whether this request may change the configuration (PATCH/PUT/DELETE /api/config, teleporter
 * import): app sessions only with app_sudo, CLI sessions never (as in Pi-hole), and nobody
 * while misc.readOnly is set.
 */
export function assertMayChangeConfig(rt: Pick<Context, "config">, request: Request): void {
  const s = sessionFlags(request);
  if (s.app && !rt.config.current.webserver.api.app_sudo)
    throw Errors.forbidden(
      "Unable to change configuration (read-only)",
      "The current app session is not allowed to modify Pi-hole config settings (webserver.api.app_sudo is false)",
    );
  if (s.cli)
    throw Errors.forbidden(
      "Unable to change configuration (read-only)",
      "The current CLI session is not allowed to modify Pi-hole config settings",
    );
  if (rt.config.current.misc.readOnly) throw Errors.forbidden("The config is currently in read-only mode", null);
}

/** Splits the part of the raw path after `/api/config/` into decoded segments; `+` is a space as in Pi-hole's form decoding. */
export function pathSegments(request: Request): string[] {
  const raw = new URL(request.url).pathname.replace(/^\/api\/config\/?/, "");
  if (raw === "") return [];
  return raw
    .split("/")
    .filter((s) => s !== "")
    .map((s) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, " "));
      } catch {
        throw new ApiError(400, "bad_request", "Invalid value", s);
      }
    });
}
