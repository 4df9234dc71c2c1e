// The worker that compiles snapshots, so a million-row read never stalls the DNS thread: the whole
// snapshot, or (with `groupBits`) the domain entries alone when there are too many to build on the
// DNS thread in a few ms.
import { buildDomainsOnly, buildSnapshotData, domainsTransferables, snapshotTransferables } from "./build.ts";

declare const self: Worker;

self.onmessage = (ev: MessageEvent<{ seq: number; dbPath: string; groupBits?: Array<[number, number]> }>) => {
  const { seq, dbPath, groupBits } = ev.data;
  try {
    if (groupBits) {
      const data = buildDomainsOnly(dbPath, groupBits);
      self.postMessage({ seq, ok: true, data }, data ? domainsTransferables(data) : []);
    } else {
      const data = buildSnapshotData(dbPath);
      self.postMessage({ seq, ok: true, data }, snapshotTransferables(data));
    }
  } catch (e) {
    self.postMessage({ seq, ok: false, error: (e as Error).message });
  }
};
