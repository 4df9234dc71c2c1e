// The build worker's work, so a million-row read never stalls the DNS thread: the whole snapshot, or (with
// `groupBits`) the domain entries alone when there are too many to build on the DNS thread in a few ms.
// The worker's entry is the registry's (src/policies/build-worker.ts): it hands its policies in.
import { buildDomainsOnly, buildSnapshotData, domainsTransferables, snapshotTransferables } from "./build.ts";
import type { GroupPolicy } from "./policy.ts";

declare const self: Worker;

export function serveBuilds(policies: readonly GroupPolicy[]): void {
  self.onmessage = (ev: MessageEvent<{ seq: number; dbPath: string; groupBits?: Array<[number, number]> }>) => {
    const { seq, dbPath, groupBits } = ev.data;
    try {
      if (groupBits) {
        const data = buildDomainsOnly(dbPath, groupBits);
        self.postMessage({ seq, ok: true, data }, data ? domainsTransferables(data) : []);
      } else {
        const data = buildSnapshotData(dbPath, policies);
        self.postMessage({ seq, ok: true, data }, snapshotTransferables(data, policies));
      }
    } catch (e) {
      self.postMessage({ seq, ok: false, error: (e as Error).message });
    }
  };
}
