// An owner object from an owner's functions: each takes its database handle (or what holds it) first, and the
// object holds it so that the services it is handed to never see one (scripts/check-architecture.ts
// fails on a handle named in src/api/).
import type { Database } from "bun:sqlite";

// biome-ignore lint/suspicious/noExplicitAny: any function whose first parameter is the handle
type HandleFn<H> = (handle: H, ...args: any[]) => unknown;

/** `fns` with the handle bound: `f(db, a, b)` becomes `bound.f(a, b)`. */
export type Bound<H, F extends Record<string, HandleFn<H>>> = {
  [K in keyof F]: F[K] extends (handle: H, ...args: infer A) => infer R ? (...args: A) => R : never;
};

export function bindDb<H = Database, F extends Record<string, HandleFn<H>> = Record<string, HandleFn<H>>>(
  handle: H,
  fns: F,
): Bound<H, F> {
  const bound: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(fns)) bound[name] = (...args: unknown[]) => fn(handle, ...args);
  return bound as Bound<H, F>;
}

/** The SQLite library's version, as the connection reports it (GET /api/info/database). */
export const sqliteVersion = (db: Database): string =>
  (db.query("SELECT sqlite_version() AS v").get() as { v: string }).v;
