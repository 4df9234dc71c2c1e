// An owner object from an owner's functions: each takes its database handle first, and the object
// holds the handle so that the services it is handed to never see one (scripts/check-architecture.ts
// fails on a handle named in src/api/).
import type { Database } from "bun:sqlite";

// biome-ignore lint/suspicious/noExplicitAny: any function whose first parameter is the handle
type DbFn = (db: Database, ...args: any[]) => unknown;

/** `fns` with the handle bound: `f(db, a, b)` becomes `bound.f(a, b)`. */
export type Bound<F extends Record<string, DbFn>> = {
  [K in keyof F]: F[K] extends (db: Database, ...args: infer A) => infer R ? (...args: A) => R : never;
};

export function bindDb<F extends Record<string, DbFn>>(db: Database, fns: F): Bound<F> {
  const bound: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(fns)) bound[name] = (...args: unknown[]) => fn(db, ...args);
  return bound as Bound<F>;
}

/** The SQLite library's version, as the connection reports it (GET /api/info/database). */
export const sqliteVersion = (db: Database): string =>
  (db.query("SELECT sqlite_version() AS v").get() as { v: string }).v;
