// A small typed event bus: how the API tells the DNS side that something changed, without either
// importing the other.
export interface MoatEvents {
  /** domains, groups, clients or lists changed: rebuild the filter snapshot */
  "lists-changed": { reason: string };
  /** a gravity run finished and swapped gravity.db */
  "gravity-updated": { ok: boolean };
  /** <data-dir>/dhcp.leases was replaced (a backup was restored): the DHCP server reloads it */
  "dhcp-leases-changed": { reason: string };
  /** blocking was switched on or off (by API, timer or config) */
  "blocking-changed": { active: boolean };
}

type Handler<T> = (payload: T) => void;

export class EventBus {
  private handlers = new Map<keyof MoatEvents, Set<Handler<never>>>();

  on<K extends keyof MoatEvents>(name: K, fn: Handler<MoatEvents[K]>): () => void {
    let set = this.handlers.get(name);
    if (!set) this.handlers.set(name, (set = new Set()));
    set.add(fn as Handler<never>);
    return () => set!.delete(fn as Handler<never>);
  }

  emit<K extends keyof MoatEvents>(name: K, payload: MoatEvents[K]): void {
    for (const fn of this.handlers.get(name) ?? []) {
      try {
        (fn as Handler<MoatEvents[K]>)(payload);
      } catch (e) {
        console.error(`event ${name}: handler failed: ${(e as Error).message}`);
      }
    }
  }
}
