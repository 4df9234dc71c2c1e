// The filter's life cycle: builds the first snapshot at start, rebuilds it when the lists change (here or
// from the fleet), when gravity runs and on restartdns, and tells whoever subscribed (the DNS server, which
// hands each snapshot to its other threads) of every swap. The DNS server only reads `current`; the API
// and the fleet reach the filter through this handle, never through the DNS server.
import type { Runtime } from "../core/runtime.ts";
import type { ListTable } from "../core/events.ts";
import type { PolicySet } from "./policy.ts";
import { FilterEngine, type FilterEngineOptions, type Snapshot } from "./snapshot.ts";

interface FilterDeps extends Pick<Runtime, "paths" | "events" | "log"> {
  /** the group policies (src/policies/registry.ts): handed in, so the filter imports none of them */
  policies: PolicySet;
  /** a client's host name as the DNS server's PTR lookups found it (clients named in a group) */
  hostnameOf: (ip: string) => string | null;
  /** applied to each build's data before it becomes a snapshot (the DNS threads want it in shared memory) */
  prepare?: FilterEngineOptions["prepare"];
}

/** Called with each snapshot once it is current; a change is in force once its promise resolves. */
type SwapListener = (snap: Snapshot, domainsOnly: boolean) => Promise<void> | void | undefined;

/** What the DNS server, the API and the fleet see of the filter (src/services.ts alone starts and stops it). */
export interface FilterHandle {
  /** the snapshot in force */
  readonly current: Snapshot;
  /** snapshot generation and sizes */
  counts(): {
    generation: number;
    builtAt: number;
    gravity: number;
    antigravity: number;
    allow: number;
    deny: number;
    regex: number;
  };
  /** rebuilds the whole snapshot; resolves once it answers queries on every DNS thread */
  rebuild(): Promise<void>;
  /** `listener` hears each swap from now on; returns its unsubscribe */
  onSwap(listener: SwapListener): () => void;
}

export class FilterService implements FilterHandle {
  private readonly engine: FilterEngine;
  private readonly listeners = new Set<SwapListener>();
  private unsub: Array<() => void> = [];

  constructor(private readonly rt: FilterDeps) {
    this.engine = new FilterEngine({
      dbPath: rt.paths.gravityDb,
      policies: rt.policies,
      log: rt.log,
      clientOpts: { hostnameOf: rt.hostnameOf },
      prepare: rt.prepare,
      published: (snap, domainsOnly) => this.published(snap, domainsOnly),
    });
  }

  get current(): Snapshot {
    return this.engine.current;
  }

  /** Builds the first snapshot: start-up waits for it, so nothing slips through unfiltered. */
  async start(): Promise<void> {
    // the promise tells the API when the new snapshot answers queries (read-your-writes); a change of
    // the domainlist alone rebuilds only the domain entries (snapshot.ts)
    const changed = ({ tables }: { tables: ListTable[] }) => this.engine.changed(tables);
    // Listening before the first build: a change of gravity.db while it runs (the gravity child of
    // a server killed a moment ago committing; GravityService notices it within a second) is then a
    // rebuild after this one, not an event nobody heard, which left the old lists in force.
    this.unsub.push(
      this.rt.events.on("lists-changed", changed),
      this.rt.events.on("lists-changed-remote", changed),
      this.rt.events.on("gravity-updated", () => this.engine.rebuild()),
    );
    await this.engine.start();
  }

  counts(): ReturnType<FilterHandle["counts"]> {
    const s = this.engine.current;
    return {
      generation: this.engine.generation,
      builtAt: s.builtAt,
      gravity: s.gravity.size + s.gravityAbp.size,
      antigravity: s.antigravity.size + s.antigravityAbp.size,
      allow: s.allowExact.size,
      deny: s.denyExact.size,
      regex: s.allowRegex.length + s.denyRegex.length,
    };
  }

  rebuild(): Promise<void> {
    return this.engine.rebuild();
  }

  onSwap(listener: SwapListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private published(snap: Snapshot, domainsOnly: boolean): Promise<void> | undefined {
    const waits: Promise<void>[] = [];
    for (const l of this.listeners) {
      const p = l(snap, domainsOnly);
      if (p) waits.push(p);
    }
    return waits.length ? Promise.all(waits).then(() => {}) : undefined;
  }

  stop(): void {
    for (const u of this.unsub) u();
    this.unsub = [];
    this.engine.stop();
  }
}
