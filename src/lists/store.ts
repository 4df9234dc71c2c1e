// How every write to the management tables happens: one transaction on gravity.db, then one
// `lists-changed` on the event bus naming the tables it touched, so the filter rebuilds and the
// fleet publishes. Nothing outside src/lists/ emits that event.
import type { Database } from "bun:sqlite";
import type { EventBus, ListTable } from "../core/events.ts";

/** What a write needs: the live gravity.db and the bus to announce the change on (the Runtime fits); the
 * services outside this folder hold the owner object made of both (`owner.ts`'s `ListsStore`) instead. */
export interface ListsDb {
  gravityDb: Database;
  events: EventBus;
}

/** Why a write was refused; the API turns each kind into Pi-hole's reply. */
export class ListsError extends Error {
  constructor(
    readonly kind: "unknown-group" | "absent",
    readonly detail: string,
  ) {
    super(`${kind}: ${detail}`);
  }
}

/** Called with each item that exists already (a UNIQUE violation); throwing aborts the whole write. */
export type OnDuplicate = (item: string, error: unknown) => void;

const isUniqueViolation = (e: unknown) => e instanceof Error && /UNIQUE constraint failed/.test(e.message);

/** Runs `fn` in one transaction and announces the change after the commit (not after a rollback). */
export function writeLists<T>(store: ListsDb, tables: ListTable[], fn: (db: Database) => T): T {
  const db = store.gravityDb;
  const result = db.transaction(() => fn(db))();
  announceLists(store, tables);
  return result;
}

/** Announces a change committed elsewhere (another connection, another thread) to these tables. */
export function announceLists(store: Pick<ListsDb, "events">, tables: ListTable[]): void {
  void store.events.emit("lists-changed", { tables });
}

/** Runs `fn` for each item; a UNIQUE violation goes to `onDuplicate`, anything else aborts. Returns the items written. */
export function eachUnique(items: readonly string[], onDuplicate: OnDuplicate, fn: (item: string) => void): string[] {
  const written: string[] = [];
  for (const item of items) {
    try {
      fn(item);
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      onDuplicate(item, e);
      continue;
    }
    written.push(item);
  }
  return written;
}
