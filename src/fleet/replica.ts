// One replicated kind of state on this node: what it last agreed with the fleet (`base`, at
// `version`), and the sync that brings the two sides together. Local changes are written first
// (the API has answered already) and marked pending; the sync publishes them as a delta from the
// fleet's latest version, merging with whatever the fleet published meanwhile, and keeps retrying
// while Redis is away. What the fleet published arrives as deltas applied to `base`, or as the
// whole map to catch up (kind-store.ts). What this node agreed on is kept in
// <data-dir>/fleet-state.json, so after a restart (or kill -9 between the local write and the
// publish) it still knows which changes are its own and not yet published.
import { diff, hashOf, merge3, type StateMap } from "./state-map.ts";
import type { Head, KindStore, Remote } from "./kind-store.ts";

export interface ReplicatedKind {
  name: string;
  /** this node's state now; `base` supplies values this node has no say over */
  read(base: StateMap): StateMap;
  /**
   * makes this node's state `next`: written when the call returns (read() sees it), in force for DNS
   * when the promise resolves
   */
  apply(next: StateMap): void | Promise<void>;
  /** adjusts local before a merge (e.g. rows both sides added under one id) */
  prepareMerge?(base: StateMap, local: StateMap, remote: StateMap): StateMap;
  /** repairs a merged map (e.g. unique names) */
  tidy?(merged: StateMap): StateMap;
}

export interface ReplicaRecord {
  version: number;
  /** the store's life that version belongs to (a store that restarted empty counts again) */
  epoch?: string;
  base: StateMap;
  /** hash of this node's own state right after it last agreed with the fleet */
  appliedHash: string;
  /** who published `version`, and when */
  node: string;
  at: number;
}

export interface ReplicaStatus {
  version: number;
  node: string;
  at: number;
  /** the fleet's latest version as last seen */
  latest: number;
  /** local changes not yet published */
  pending: boolean;
  lastSync: number | null;
  error: string | null;
}

const MAX_ATTEMPTS = 8;

export class Replica {
  private running: Promise<void> | null = null;
  private again = false;
  private latest = 0;
  private pending = false;
  private lastSync: number | null = null;
  private error: string | null = null;
  /** hashes of maps seen already: a map is never changed in place, and an unchanged state is not hashed again */
  private readonly hashes = new WeakMap<StateMap, string>();

  constructor(
    readonly kind: ReplicatedKind,
    private readonly store: KindStore,
    private readonly node: string,
    private record: ReplicaRecord | null,
    private readonly save: () => void,
    private readonly log: (level: "info" | "warn" | "error", message: string) => void,
  ) {
    this.latest = record?.version ?? 0;
  }

  get saved(): ReplicaRecord | null {
    return this.record;
  }

  status(): ReplicaStatus {
    return {
      version: this.record?.version ?? 0,
      node: this.record?.node ?? "",
      at: this.record?.at ?? 0,
      latest: this.latest,
      pending: this.pending,
      lastSync: this.lastSync,
      error: this.error,
    };
  }

  /** A local change happened: publish it (now or when Redis is back). */
  localChange(): Promise<void> {
    this.pending = true;
    return this.sync();
  }

  /** The fleet announced `version`: catch up if it is newer. */
  remoteChange(version: number): Promise<void> {
    if (version > this.latest) this.latest = version;
    if (version <= (this.record?.version ?? 0)) return Promise.resolve();
    return this.sync();
  }

  /** Runs one sync, or one more after the running one; resolves when this node is in step (or failed). */
  sync(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.syncOnce();
          this.error = null;
          this.lastSync = Date.now();
        } catch (e) {
          this.error = (e as Error).message;
        }
      } while (this.again && this.error === null);
    })().finally(() => (this.running = null));
    return this.running;
  }

  /**
   * The once-a-second check: syncs when this node has work, or when the store holds another
   * version than the one agreed on (a missed notification, or a store that restarted empty).
   */
  async check(): Promise<void> {
    if (this.needsSync) return this.sync();
    const head = await this.store.head(this.kind.name);
    if (head?.version !== this.record?.version || head?.epoch !== this.record?.epoch) return this.sync();
  }

  /** Whether this node has its own changes or is behind the fleet (a retry is due). */
  get needsSync(): boolean {
    return this.pending || this.error !== null || this.latest > (this.record?.version ?? 0);
  }

  private hash(map: StateMap): string {
    let h = this.hashes.get(map);
    if (h === undefined) this.hashes.set(map, (h = hashOf(map)));
    return h;
  }

  private async syncOnce(): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const rec = this.record;
      const local = this.kind.read(rec?.base ?? {});
      const localHash = this.hash(local);
      const remote = await this.store.since(this.kind.name, rec);
      if (remote) this.latest = remote.version;
      // what came from the store was checked against the stored hash on the way in
      if (remote && remote.via !== "known") this.hashes.set(remote.data, remote.hash);
      if (!rec) {
        // joining: the fleet's state wins; the first node of a new fleet seeds it
        if (remote) {
          if (await this.adopt(remote, localHash)) return;
          continue;
        }
        if (await this.publish(null, local, local)) return;
        continue;
      }
      // a store that lost its data (restarted without persistence) gets this node's state again
      const reset = !remote || remote.epoch !== rec.epoch;
      const dirty = localHash !== rec.appliedHash || reset;
      if (!dirty) {
        this.pending = false;
        if (remote.version === rec.version) return;
        if (await this.adopt(remote, localHash)) return;
        continue;
      }
      let merged = local;
      if (remote && (reset || remote.version !== rec.version)) {
        const prepared = this.kind.prepareMerge ? this.kind.prepareMerge(rec.base, local, remote.data) : local;
        merged = merge3(rec.base, prepared, remote.data);
        if (this.kind.tidy) merged = this.kind.tidy(merged);
      }
      if (await this.publish(remote, merged, local)) return;
    }
    throw new Error(`${this.kind.name}: the fleet kept changing, ${MAX_ATTEMPTS} attempts`);
  }

  /** Takes the fleet's state; false when a local change slipped in meanwhile (then merge instead). */
  private async adopt(remote: Remote, localHash: string): Promise<boolean> {
    // no await between this check and the apply: a local write cannot slip in between
    if (this.record && this.hash(this.kind.read(this.record.base)) !== localHash) return false;
    await this.applyAndAgree(remote, remote.data);
    const how =
      remote.via === "deltas"
        ? `deltas from the log: ${remote.changed} keys`
        : `whole map fetched: ${Object.keys(remote.data).length} keys`;
    this.log("info", `fleet: ${this.kind.name} version ${remote.version} from ${remote.node} applied (${how})`);
    return true;
  }

  /**
   * Publishes `merged` as the delta from the fleet's state `onto` (the whole map when the store holds
   * none); false when the fleet moved on meanwhile.
   */
  private async publish(onto: Remote | null, merged: StateMap, local: StateMap): Promise<boolean> {
    const mergedHash = this.hash(merged);
    const head = await this.store.publish(
      this.kind.name,
      onto && { version: onto.version, epoch: onto.epoch },
      this.node,
      diff(onto?.data ?? {}, merged),
      mergedHash,
    );
    if (!head) return false;
    const current = this.kind.read(this.record?.base ?? {});
    if (this.hash(current) === this.hash(local)) {
      // someone else's change came in with the merge: it applies here too
      if (mergedHash !== this.hash(local)) await this.applyAndAgree(head, merged);
      else this.agree(head, merged);
    } else {
      // a local change landed while publishing: keep it on top of what was published, publish it next
      await this.kind.apply(merge3(local, current, merged));
      this.agree(head, merged, mergedHash);
      this.again = true;
    }
    this.pending = false;
    return true;
  }

  /**
   * Applies `data` and agrees on it. This node's state is hashed as soon as the write is done, before
   * the wait for its announcement: a local write made during that wait is then still this node's own
   * change (the next look finds it and publishes it), not part of what it agreed with the fleet.
   */
  private async applyAndAgree(head: Head, data: StateMap): Promise<void> {
    const announced = this.kind.apply(data);
    const appliedHash = this.hash(this.kind.read(data));
    await announced;
    this.agree(head, data, appliedHash);
  }

  /** `appliedHash`: this node's state from now on, read back unless given. */
  private agree(head: Head, data: StateMap, appliedHash = this.hash(this.kind.read(data))): void {
    this.record = { version: head.version, epoch: head.epoch, base: data, appliedHash, node: head.node, at: head.at };
    this.latest = head.version;
    this.save();
  }
}
