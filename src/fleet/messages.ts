// What /api/info/messages says about the fleet: this node cut off from Redis (it answers with the
// configuration it has, its own changes wait), or another node not heard from. Each message is
// raised once when the condition has lasted a few seconds and taken back when it ends. Messages
// live in pihole-FTL.db's `message` table, which src/messages/ writes.
import type { Messages } from "../messages/messages.ts";

const MESSAGE_TYPE = "FLEET";
/** a condition shorter than this is a blip, not news */
const MESSAGE_AFTER_MS = 5000;

export class FleetMessages {
  private since = new Map<string, number>();
  private raised = new Set<string>();

  constructor(private readonly messages: Messages) {
    // messages of an earlier run describe conditions nobody checks any more
    this.messages.clear(MESSAGE_TYPE);
  }

  /** Makes the raised messages exactly those of `now` (keyed by condition) that lasted long enough. */
  update(now: Map<string, string>): void {
    const t = Date.now();
    for (const key of [...this.since.keys()]) if (!now.has(key)) this.since.delete(key);
    const wanted = new Set<string>();
    for (const [key, text] of now) {
      if (!this.since.has(key)) this.since.set(key, t);
      if (t - this.since.get(key)! >= MESSAGE_AFTER_MS) wanted.add(text);
    }
    try {
      for (const text of this.raised) if (!wanted.has(text)) this.messages.clear(MESSAGE_TYPE, text);
      for (const text of wanted) if (!this.raised.has(text)) this.messages.raise(MESSAGE_TYPE, text);
      this.raised = wanted;
    } catch {
      // the message table is a convenience; the fleet works without it
    }
  }
}
