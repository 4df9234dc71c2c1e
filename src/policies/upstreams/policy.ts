// A group's own upstreams as a group policy: judged first, with blocking off too (they are where its queries go,
// not a list). It marks the query (`upstreamSet`): src/dns/forwarder.ts sends it to that list and
// src/dns/cache.ts keys its answer with it, both through groupUpstreams().
import type { GroupPolicy } from "../../filter/policy.ts";
import type { Snapshot } from "../../filter/snapshot.ts";
import { groupUpstreamRows } from "../../lists/filter-input.ts";

interface UpstreamsData {
  /** the groups with upstreams of their own, by group id ascending (the first of a client's groups wins) */
  groups: Array<{ bit: number; upstreams: string[] }>;
}

class GroupUpstreams {
  /** each list as one string: the forwarder's key for its servers and a part of the cache key */
  readonly keys: readonly string[];
  constructor(readonly d: UpstreamsData) {
    this.keys = d.groups.map((g) => g.upstreams.join(","));
  }

  /** The upstream list of a client in `groups`: that of its first group (by id) that has one, 1-based; 0: dns.upstreams. */
  setOf(groups: Uint32Array): number {
    const g = this.d.groups;
    for (let i = 0; i < g.length; i++) {
      const bit = g[i]!.bit;
      if (((groups[bit >>> 5] ?? 0) & (1 << (bit & 31))) !== 0) return i + 1;
    }
    return 0;
  }
}

export const upstreamsPolicy: GroupPolicy<UpstreamsData, GroupUpstreams> = {
  name: "upstreams",
  point: "client",
  always: true,
  compile: (b) => ({
    groups: groupUpstreamRows(b.db).flatMap((r) => {
      const bit = b.bitOf.get(r.g);
      let upstreams: unknown;
      try {
        upstreams = JSON.parse(r.upstreams);
      } catch {
        return [];
      }
      return bit === undefined || !Array.isArray(upstreams) || upstreams.length === 0
        ? []
        : [{ bit, upstreams: upstreams.map(String) }];
    }),
  }),
  empty: () => ({ groups: [] }),
  buffers: () => [],
  load: (d) => (d.groups.length ? new GroupUpstreams(d) : null),
  judge(u, q, n) {
    q.upstreamSet = u.setOf(n.groups);
    return null;
  },
};

/** The key of the upstream list a query was marked with (`set`: 1-based), undefined when the snapshot has none. */
export function upstreamKey(snap: Snapshot, set: number): string | undefined {
  return snap.stateOf(upstreamsPolicy)?.keys[set - 1];
}

/** The upstream list a query was marked with (`set`: 1-based), undefined when the snapshot has none. */
export function upstreamList(snap: Snapshot, set: number): readonly string[] | undefined {
  return snap.stateOf(upstreamsPolicy)?.d.groups[set - 1]?.upstreams;
}
