// The `message` table of pihole-FTL.db (Pi-hole's layout, src/db/query-schema.ts): the warnings
// /api/info/messages lists. Every statement on it is here. These take the connection, so a worker
// thread with its own (the query writer) uses them too; errors are thrown, each caller decides
// whether a lost message is worth a log line.
import type { Database } from "bun:sqlite";

/** What Pi-hole stores beside the text (an interface name, a count, …): up to five values. */
export type MessageBlob = string | number | null;

export interface StoredMessage {
  id: number;
  /** unix seconds */
  timestamp: number;
  /** Pi-hole's message type, e.g. "DNSMASQ_WARN", "SHMEM", "LIST", or Moat's "FLEET" */
  type: string;
  text: string;
  /** blob1…blob5 as stored (null where unused) */
  blobs: MessageBlob[];
}

export const BLOB_COLUMNS = 5;

/** `at`: unix seconds the condition was seen (a write held back keeps the time it was raised). */
export function raiseMessage(
  db: Database,
  type: string,
  text: string,
  blobs: readonly MessageBlob[] = [],
  at = Date.now() / 1000,
): void {
  const values = Array.from({ length: BLOB_COLUMNS }, (_, i) => blobs[i] ?? null);
  db.query(
    "INSERT INTO message (timestamp, type, message, blob1, blob2, blob3, blob4, blob5) VALUES (?,?,?,?,?,?,?,?)",
  ).run(at, type, text, ...values);
}

/** Takes back the messages of this type (only those with this text, when given). */
export function clearMessages(db: Database, type: string, text?: string): void {
  if (text === undefined) db.query("DELETE FROM message WHERE type = ?").run(type);
  else db.query("DELETE FROM message WHERE type = ? AND message = ?").run(type, text);
}

/** Every message, oldest first. */
export function listMessages(db: Database): StoredMessage[] {
  const rows = db
    .query<{ id: number; timestamp: number; type: string; message: unknown } & Record<string, unknown>, []>(
      "SELECT id, timestamp, type, message, blob1, blob2, blob3, blob4, blob5 FROM message ORDER BY id",
    )
    .all();
  return rows.map((r) => ({
    id: r.id,
    timestamp: r.timestamp,
    type: r.type,
    text: String(r.message),
    blobs: Array.from({ length: BLOB_COLUMNS }, (_, i) => asBlob(r[`blob${i + 1}`])),
  }));
}

/** a BLOB column read back as text (Pi-hole's own rows may hold bytes) */
function asBlob(v: unknown): MessageBlob {
  if (v === null || v === undefined) return null;
  if (typeof v === "number" || typeof v === "string") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return String(v);
}

/** Deletes the messages with these ids; the number deleted (ids not in use count nothing). */
export function deleteMessages(db: Database, ids: readonly number[]): number {
  let deleted = 0;
  for (const id of ids) deleted += db.query("DELETE FROM message WHERE id = ?").run(id).changes;
  return deleted;
}
