// The replica's sync on its own, against a store kept in memory with the same contract as
// kind-store.ts (a publish lands only onto the version it was based on): a local write made while
// the fleet's change is still being put in force must be published, not counted as agreed.
import { expect, test } from "bun:test";
import type { Head, KindStore, Known, Remote } from "./kind-store.ts";
import { type ReplicatedKind, Replica } from "./replica.ts";
import { applyDelta, type Delta, hashOf, type StateMap } from "./state-map.ts";

/** One kind's versions in memory: whole maps, no log (every catch-up is a whole fetch). */
class MemoryStore {
  versions: Array<Head & { data: StateMap }> = [];
  private get top() {
    return this.versions.at(-1) ?? null;
  }
  async head(): Promise<Head | null> {
    return this.top;
  }
  async since(_kind: string, known: Known | null): Promise<Remote | null> {
    await Bun.sleep(1);
    const t = this.top;
    if (!t) return null;
    const via = known && known.version === t.version ? "known" : "whole";
    return { ...t, data: t.data, via, changed: 0 };
  }
  async publish(
    _kind: string,
    basedOn: { version: number } | null,
    node: string,
    delta: Delta,
    hash: string,
  ): Promise<Head | 0> {
    await Bun.sleep(1);
    const t = this.top;
    if ((t?.version ?? 0) !== (basedOn?.version ?? 0)) return 0;
    const data = applyDelta(t?.data ?? {}, delta);
    expect(hashOf(data)).toBe(hash);
    const head = { version: (t?.version ?? 0) + 1, node, at: Date.now(), hash, epoch: "e" };
    this.versions.push({ ...head, data });
    return head;
  }
}

/** A kind whose apply writes at once and is in force a few ms later, as the lists' is. */
class SlowKind implements ReplicatedKind {
  readonly name = "lists";
  state: StateMap = {};
  /** runs once while the next apply waits for its announcement */
  duringApply: (() => void) | null = null;
  read(): StateMap {
    return this.state;
  }
  apply(next: StateMap): Promise<void> {
    this.state = next;
    const during = this.duringApply;
    this.duringApply = null;
    return Bun.sleep(5).then(() => during?.());
  }
}

function replicaOn(store: MemoryStore, kind: SlowKind, node: string): Replica {
  return new Replica(
    kind,
    store as unknown as KindStore,
    node,
    null,
    () => {},
    () => {},
  );
}

test("a local write made while the fleet's change is put in force is published after it", async () => {
  const store = new MemoryStore();
  const a = new SlowKind(),
    b = new SlowKind();
  const ra = replicaOn(store, a, "a"),
    rb = replicaOn(store, b, "b");
  a.state = { "group/1": { name: "kids" }, "services/1": ["tiktok"] };
  await ra.localChange();
  await rb.sync();
  expect(b.state).toEqual(a.state);

  // a pauses something; while b puts that in force, b's person clears the services
  a.state = { ...a.state, "pause/10.0.0.0/8": 30 };
  await ra.localChange();
  b.duringApply = () => {
    b.state = { ...b.state, "services/1": [] };
    void rb.localChange();
  };
  await rb.remoteChange(store.versions.at(-1)!.version);
  await rb.sync();
  expect(b.state["services/1"]).toEqual([]);
  expect(b.state["pause/10.0.0.0/8"]).toBe(30);
  expect(store.versions.at(-1)!.data["services/1"]).toEqual([]);
  expect(rb.status().pending).toBe(false);

  await ra.remoteChange(store.versions.at(-1)!.version);
  expect(a.state["services/1"]).toEqual([]);
  expect(a.state["pause/10.0.0.0/8"]).toBe(30);
});

test("a local write made while this node's own merge is put in force is published too", async () => {
  const store = new MemoryStore();
  const a = new SlowKind(),
    b = new SlowKind();
  const ra = replicaOn(store, a, "a"),
    rb = replicaOn(store, b, "b");
  a.state = { x: 1 };
  await ra.localChange();
  await rb.sync();
  // both change different keys; b publishes a merge that brings a's change, and writes again meanwhile
  a.state = { ...a.state, y: 2 };
  await ra.localChange();
  b.state = { ...b.state, z: 3 };
  b.duringApply = () => {
    b.state = { ...b.state, w: 4 };
    void rb.localChange();
  };
  await rb.localChange();
  await rb.sync();
  expect(store.versions.at(-1)!.data).toEqual({ x: 1, y: 2, z: 3, w: 4 });
  expect(b.state).toEqual({ x: 1, y: 2, z: 3, w: 4 });
});
