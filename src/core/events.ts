// A small typed event bus: how the API tells the DNS side that something changed, without either
// importing the other.

/** The management tables of gravity.db a change touched (their group links count with them; "family": the blocked services and paused clients; "rules": the custom rules). */
export type ListTable = "group" | "client" | "domainlist" | "adlist" | "family" | "rules";

export interface MoatEvents {
  /** this node's domains, groups, clients or lists changed (src/lists/ only): rebuild the filter, publish to the fleet */
  "lists-changed": { tables: ListTable[] };
  /** the fleet's state of them was applied here (the tables it changed): rebuild the filter, and do not publish it back */
  "lists-changed-remote": { tables: ListTable[] };
  /** a gravity run finished and swapped gravity.db */
  "gravity-updated": { ok: boolean };
  /** <data-dir>/dhcp.leases was replaced (a backup was restored): the DHCP server reloads it */
  "dhcp-leases-changed": { reason: string };
  /** the DHCP clients' names changed: DNS answers them (`<name>.<domain>` A and PTR) */
  "dhcp-names-changed": { names: Array<{ ip: string; name: string }> };
  /** blocking was switched on or off (by API, timer or config) */
  "blocking-changed": { active: boolean };
  /** the DNS cache was flushed and the lists reloaded (POST /api/action/restartdns, or from the fleet) */
  "dns-restarted": { origin: "api" | "fleet" };
  /**
   * a DNS client went over dns.rateLimit and gets REFUSED for at least `seconds` (once per client per
   * window; handed off by the DNS thread, which never waits for what is done with it)
   */
  "client-rate-limited": { client: string; seconds: number };
  /** a query Moat forwarded to `upstream` came back to Moat's own listener: that upstream is Moat itself */
  "forwarding-loop": { upstream: string };
  /** an extra DNS thread died and is started again (src/dns/threads/pool.ts); `text` is what the log said */
  "dns-thread-died": { thread: number; text: string };
}

/** A handler may return a promise: the change is in force once it resolves (any other value is ignored). */
type Handler<T> = (payload: T) => unknown;

export class EventBus {
  private handlers = new Map<keyof MoatEvents, Set<Handler<never>>>();
  private inFlight = new Set<Promise<unknown>>();

  on<K extends keyof MoatEvents>(name: K, fn: Handler<MoatEvents[K]>): () => void {
    let set = this.handlers.get(name);
    if (!set) this.handlers.set(name, (set = new Set()));
    set.add(fn as Handler<never>);
    return () => set!.delete(fn as Handler<never>);
  }

  /** Tells every handler; resolves when all of them have applied the change (never rejects). */
  emit<K extends keyof MoatEvents>(name: K, payload: MoatEvents[K]): Promise<void> {
    const pending: Promise<unknown>[] = [];
    for (const fn of this.handlers.get(name) ?? []) {
      try {
        const r = (fn as Handler<MoatEvents[K]>)(payload);
        if (r instanceof Promise) pending.push(this.track(name, r));
      } catch (e) {
        console.error(`event ${name}: handler failed: ${(e as Error).message}`);
      }
    }
    return pending.length ? Promise.all(pending).then(() => undefined) : Promise.resolve();
  }

  /**
   * Resolves once every change announced so far is in force (read-your-writes: the API answers a
   * write only after this, so a client that asks DNS next sees its change).
   */
  settled(): Promise<void> {
    return this.inFlight.size ? Promise.all(this.inFlight).then(() => undefined) : Promise.resolve();
  }

  /** A change made outside an event (a config listener's work in other threads): settled() waits for it too. */
  inForce(name: string, p: Promise<unknown>): void {
    void this.track(name, p);
  }

  private track(name: string, p: Promise<unknown>): Promise<unknown> {
    const t = p
      .catch((e) => console.error(`event ${name}: handler failed: ${(e as Error).message}`))
      .finally(() => this.inFlight.delete(t));
    this.inFlight.add(t);
    return t;
  }
}
