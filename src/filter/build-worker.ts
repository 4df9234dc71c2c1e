// The worker that compiles snapshots, so a million-row read never stalls the DNS thread.
import { buildSnapshotData, snapshotTransferables } from "./build.ts";

declare const self: Worker;

self.onmessage = (ev: MessageEvent<{ seq: number; dbPath: string }>) => {
  const { seq, dbPath } = ev.data;
  try {
    const data = buildSnapshotData(dbPath);
    self.postMessage({ seq, data }, snapshotTransferables(data));
  } catch (e) {
    self.postMessage({ seq, error: (e as Error).message });
  }
};
