// The message table bound to the main thread's connection (rt.queryDb), for the services that raise
// and take back warnings there: start-up, DHCP, the fleet, and the /api/info/messages routes.
import type { Database } from "bun:sqlite";
import {
  clearMessages,
  countMessages,
  deleteMessages,
  hasMessage,
  listMessages,
  raiseMessage,
  type MessageBlob,
  type StoredMessage,
} from "./table.ts";

export class Messages {
  constructor(private readonly db: Database) {}

  raise(type: string, text: string, ...blobs: MessageBlob[]): void {
    raiseMessage(this.db, type, text, blobs);
  }

  has(type: string, text: string): boolean {
    return hasMessage(this.db, type, text);
  }

  clear(type: string, text?: string): void {
    clearMessages(this.db, type, text);
  }

  list(): StoredMessage[] {
    return listMessages(this.db);
  }

  count(): number {
    return countMessages(this.db);
  }

  delete(ids: readonly number[]): number {
    return deleteMessages(this.db, ids);
  }
}
