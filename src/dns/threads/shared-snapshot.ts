// How a filter snapshot reaches the other DNS threads without taking its memory once more. The gravity
// sets (~20 MiB at 1M list entries, ~285 MiB at 10M) are views of the mapped snapshot file
// (src/filter/snapshot-file.ts): each thread maps that same file itself, through the descriptor the
// snapshot holds open, so their pages are the page cache's, once, whatever the number of threads. The
// rest (the domain entries, clients, policies: small), and the gravity sets where no file backs them
// (a file system without mmap), are copied once into shared memory and shared by every thread. A
// snapshot never changes once built, so the threads read it without locks.
import type { SnapshotData } from "../../filter/build.ts";
import type { DomainSetData } from "../../filter/domainset.ts";
import { readSnapshotFile, snapshotFilePath } from "../../filter/snapshot-file.ts";

const GRAVITY = ["gravity", "gravityAbp", "antigravity", "antigravityAbp"] as const;
type Mapped = Pick<DomainSetData, "slots" | "recs" | "nodes" | "bloom">;

/** `v` with every typed array (at any depth) copied once into a SharedArrayBuffer of its own. */
function inSharedMemory<T>(v: T): T {
  if (ArrayBuffer.isView(v)) {
    if (v.buffer instanceof SharedArrayBuffer) return v;
    const sab = new SharedArrayBuffer(v.byteLength);
    new Uint8Array(sab).set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    return new (v.constructor as new (b: SharedArrayBuffer) => ArrayBufferView)(sab) as T;
  }
  if (Array.isArray(v)) return v.map(inSharedMemory) as T;
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = inSharedMemory(x);
    return out as T;
  }
  return v;
}

const isSnapshot = (d: object): d is SnapshotData & { gravityFile: NonNullable<SnapshotData["gravityFile"]> } =>
  "gravityFile" in d && d.gravityFile !== undefined;

/** `d` with the gravity sets' mapped parts replaced by `parts(name)`. */
function withParts(d: SnapshotData, parts: (name: (typeof GRAVITY)[number]) => Mapped): SnapshotData {
  const out = { ...d };
  for (const n of GRAVITY) out[n] = { ...d[n], ...parts(n) };
  return out;
}

const NONE: Mapped = {
  slots: new Uint8Array(0),
  recs: new Uint8Array(0),
  nodes: new Uint8Array(0),
  bloom: new Uint32Array(0),
};

/** A build's data as the main thread keeps it when other DNS threads read it too (the filter's `prepare`). */
export function forThreads<T extends object>(data: T): T {
  if (!isSnapshot(data)) return inSharedMemory(data);
  const shared = inSharedMemory(withParts(data, () => NONE));
  return withParts(shared, (n) => data[n]) as T;
}

/** What is posted to a thread for `d`: gravity sets that a file backs go as that file's reference. */
export function toThread(d: SnapshotData): SnapshotData {
  return isSnapshot(d) ? withParts(d, () => NONE) : d;
}

/** In a DNS thread: the data posted (toThread), its gravity sets mapped from their file. */
export function fromMain(d: SnapshotData): SnapshotData {
  if (!isSnapshot(d)) return d;
  const sets = readSnapshotFile(snapshotFilePath(d.gravityFile), d.gravityFile.key);
  if (!sets) throw new Error("the filter snapshot's file could not be mapped");
  return withParts(d, (n) => {
    const { slots, recs, nodes, bloom } = sets[n];
    return { slots, recs, nodes, bloom };
  });
}
