// The message table bound to the main thread's connection (rt.queryDb), for the services that raise
// and take back warnings there: start-up, DHCP, the fleet, and the /api/info/messages routes.
//
// That thread answers DNS, and a write waits (up to the busy timeout, in sleeps of up to 100 ms) while
// the query writer or the long-term reader holds the database. So raising and taking back never wait:
// each goes into an outbox shared by every `Messages` on the connection and is written at once when
// the database is free, or in order on a retry a moment later (src/db/no-wait.ts).
import type { Database } from "bun:sqlite";
import { writeWithoutWaiting } from "../db/no-wait.ts";
import {
  BLOB_COLUMNS,
  clearMessages,
  deleteMessages,
  listMessages,
  raiseMessage,
  type MessageBlob,
  type StoredMessage,
} from "./table.ts";

type Change =
  | { kind: "raise"; type: string; text: string; blobs: MessageBlob[]; at: number }
  | { kind: "clear"; type: string; text?: string };

/** how soon a held-back change is tried again */
const RETRY_MS = 200;

/** The changes a connection's database held back, oldest first, written in that order. */
class Outbox {
  readonly waiting: Change[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly db: Database) {}

  /** Writes `c` now if nothing waits and the database is free, else keeps it for the retry. Errors other than a busy database are thrown. */
  post(c: Change): void {
    if (this.waiting.length === 0 && writeWithoutWaiting(this.db, () => this.apply(c))) return;
    this.waiting.push(c);
    this.later();
  }

  /** Writes what waits, in order, as far as the database lets; true when nothing is left. */
  drain(): boolean {
    while (this.waiting.length) {
      const c = this.waiting[0]!;
      try {
        if (!writeWithoutWaiting(this.db, () => this.apply(c))) {
          this.later();
          return false;
        }
      } catch {
        // a change the table refuses (the file closed or damaged) would block the rest for good;
        // whoever raised it was told of no error, as with any message lost with the file
      }
      this.waiting.shift();
    }
    return true;
  }

  private apply(c: Change): void {
    if (c.kind === "raise") raiseMessage(this.db, c.type, c.text, c.blobs, c.at);
    else clearMessages(this.db, c.type, c.text);
  }

  private later(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.drain();
    }, RETRY_MS);
    this.timer.unref?.();
  }
}

const outboxes = new WeakMap<Database, Outbox>();

function outboxOf(db: Database): Outbox {
  let o = outboxes.get(db);
  if (!o) outboxes.set(db, (o = new Outbox(db)));
  return o;
}

export class Messages {
  private readonly outbox: Outbox;

  constructor(private readonly db: Database) {
    this.outbox = outboxOf(db);
  }

  raise(type: string, text: string, ...blobs: MessageBlob[]): void {
    this.outbox.post({ kind: "raise", type, text, blobs, at: Date.now() / 1000 });
  }

  /** Whether it is raised, counting the changes still held back (a listing: there are a handful). */
  has(type: string, text: string): boolean {
    return this.list().some((m) => m.type === type && m.text === text);
  }

  clear(type: string, text?: string): void {
    this.outbox.post({ kind: "clear", type, text });
  }

  /**
   * What is stored, with the changes still held back applied: a message raised and not yet written
   * is listed with a negative id (it gets its own once written), one taken back is left out.
   */
  list(): StoredMessage[] {
    this.outbox.drain();
    let rows = listMessages(this.db);
    let pending = 0;
    for (const c of this.outbox.waiting) {
      if (c.kind === "clear")
        rows = rows.filter((m) => !(m.type === c.type && (c.text === undefined || m.text === c.text)));
      else {
        const blobs = Array.from({ length: BLOB_COLUMNS }, (_, i) => c.blobs[i] ?? null);
        rows.push({ id: -++pending, timestamp: c.at, type: c.type, text: c.text, blobs });
      }
    }
    return rows;
  }

  count(): number {
    return this.list().length;
  }

  /** The API's delete, which the person waits for (an id names a stored row, never a held-back one). */
  delete(ids: readonly number[]): number {
    return deleteMessages(this.db, ids);
  }
}
