// <data dir>/gravity.snapshot: the gravity part of a filter snapshot (the four list sets, in their
// compact layout) as one file, so a start or a list change loads it in milliseconds instead of
// re-reading millions of gravity rows. It carries the key of the gravity.db it was made from
// (info.updated and the run token); any other key means stale, and the caller rebuilds from SQLite.
// Group masks are not in it (they are resolved at load), so it survives group and list toggles.
import { closeSync, existsSync, fstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DomainSetShape } from "./domainset.ts";

const SET_NAMES = ["gravity", "gravityAbp", "antigravity", "antigravityAbp"] as const;
export type GravitySets = Record<(typeof SET_NAMES)[number], DomainSetShape>;

const MAGIC = "MOATSNP4";
const PARTS = ["slots", "recs", "nodes", "bloom"] as const;

interface Header {
  key: string;
  sets: Record<
    string,
    {
      count: number;
      slotBytes: number;
      refBytes: number;
      comboBytes: number;
      combos: number[][];
      parts: Record<string, [number, number]>;
    }
  >;
}

export const snapshotFileOf = (gravityDbPath: string) => join(dirname(gravityDbPath), "gravity.snapshot");

const align8 = (n: number) => (n + 7) & ~7;

const partsOf = (s: DomainSetShape, p: (typeof PARTS)[number]): ArrayBufferView[] =>
  p === "recs" && s.recsParts ? s.recsParts : [s[p]];

/** Written beside and renamed, so a reader never sees half a file. Returns the bytes written. */
export function writeSnapshotFile(path: string, key: string, sets: GravitySets): number {
  const header: Header = { key, sets: {} };
  // offsets are relative to the end of the header; fixed up once its length is known
  let at = 0;
  for (const name of SET_NAMES) {
    const s = sets[name];
    const parts: Record<string, [number, number]> = {};
    for (const p of PARTS) {
      const len = partsOf(s, p).reduce((sum, a) => sum + a.byteLength, 0);
      parts[p] = [at, len];
      at = align8(at + len);
    }
    header.sets[name] = {
      count: s.count,
      slotBytes: s.slotBytes,
      refBytes: s.refBytes,
      comboBytes: s.comboBytes,
      combos: s.combos,
      parts,
    };
  }
  let json = Buffer.from(JSON.stringify(header));
  const base = align8(12 + json.length + 64);
  for (const set of Object.values(header.sets)) for (const p of Object.values(set.parts)) p[0] += base;
  json = Buffer.from(JSON.stringify(header));
  if (12 + json.length > base) throw new Error("snapshot header grew past its space");
  const head = new Uint8Array(base);
  head.set(Buffer.from(MAGIC), 0);
  new DataView(head.buffer).setUint32(8, json.length, true);
  head.set(json, 12);

  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, "w");
  try {
    writeSync(fd, head);
    let pos = base;
    const pad = new Uint8Array(8);
    for (const name of SET_NAMES) {
      for (const p of PARTS) {
        for (const a of partsOf(sets[name], p)) {
          const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
          writeSync(fd, bytes);
          pos += bytes.length;
        }
        if (pos !== align8(pos)) {
          writeSync(fd, pad.subarray(0, align8(pos) - pos));
          pos = align8(pos);
        }
      }
    }
    closeSync(fd);
    renameSync(tmp, path);
    return pos;
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * An open descriptor of the snapshot file a snapshot's sets were mapped from, so another thread of the
 * process maps the very same file (`/proc/self/fd/<fd>`) even after a newer one was renamed over its
 * path; whoever holds the snapshot closes it (`closeSnapshotFile`) once no thread needs it any more.
 */
export interface SnapshotFileRef {
  fd: number;
  key: string;
}

const PROC_FD = "/proc/self/fd";
/** Where a thread of this process maps the file `ref` holds open (Linux: through /proc). */
export const snapshotFilePath = (ref: SnapshotFileRef) => `${PROC_FD}/${ref.fd}`;

/**
 * The file's bytes mapped rather than read: the sets are then page cache, not heap. At 10M names a
 * snapshot is ~280 MiB; read into the heap, the one in force and the one replacing it (and a gravity
 * build beside them) did not fit a 512 MiB board, while mapped pages are shared with the cache the
 * writer left, dropped under pressure and read again, and gone with the last view (bench/gravity/small-board.ts).
 * The file is only ever replaced by a rename (writeSnapshotFile), never written in place, so a mapping
 * keeps the content it was made with. A file system without mmap gets a copy in the heap (and no fd:
 * other threads then need a copy too). With `keepOpen` the descriptor stays open for other threads.
 */
function mapFile(path: string, keepOpen: boolean): { buf: ArrayBuffer; fd: number | null } | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  let kept = false;
  try {
    if (fstatSync(fd).size < 12) return null;
    try {
      // through the descriptor: the bytes of the file opened, whatever was renamed over the path since
      const byFd = existsSync(PROC_FD);
      const buf = Bun.mmap(byFd ? `${PROC_FD}/${fd}` : path, { shared: false }).buffer as ArrayBuffer;
      kept = keepOpen && byFd;
      return { buf, fd: kept ? fd : null };
    } catch {
      return { buf: new Uint8Array(readFileSync(fd)).buffer, fd: null };
    }
  } catch {
    return null;
  } finally {
    if (!kept) closeSync(fd);
  }
}

/** Gives up the descriptor of `ref` (no thread will map its file again). */
export function closeSnapshotFile(ref: SnapshotFileRef): void {
  try {
    closeSync(ref.fd);
  } catch {
    // already closed
  }
}

/**
 * The sets, as views over the file mapped at once; null when absent, damaged or of another key.
 * `keepOpen`: `file` holds the file open for other threads to map (null where they cannot).
 */
export function readSnapshotFile(
  path: string,
  key: string,
  keepOpen = false,
): (GravitySets & { file?: SnapshotFileRef }) | null {
  const mapped = mapFile(path, keepOpen);
  if (mapped === null) return null;
  const sets = setsOf(mapped.buf, key);
  if (mapped.fd === null) return sets;
  if (sets === null) {
    closeSnapshotFile({ fd: mapped.fd, key });
    return null;
  }
  return { ...sets, file: { fd: mapped.fd, key } };
}

function setsOf(buf: ArrayBuffer, key: string): GravitySets | null {
  if (Buffer.from(buf, 0, 8).toString("latin1") !== MAGIC) return null;
  const jsonLen = new DataView(buf).getUint32(8, true);
  let header: Header;
  try {
    header = JSON.parse(Buffer.from(buf, 12, jsonLen).toString("utf8")) as Header;
  } catch {
    return null;
  }
  if (header.key !== key) return null;
  const out: Partial<GravitySets> = {};
  for (const name of SET_NAMES) {
    const s = header.sets[name];
    if (!s) return null;
    const part = (p: string) => {
      const [off, len] = s.parts[p]!;
      if (off + len > buf.byteLength) throw new RangeError("truncated snapshot file");
      return [off, len] as const;
    };
    try {
      const [so, sl] = part("slots"),
        [ro, rl] = part("recs"),
        [no, nl] = part("nodes"),
        [bo, bl] = part("bloom");
      out[name] = {
        count: s.count,
        slotBytes: s.slotBytes,
        refBytes: s.refBytes,
        comboBytes: s.comboBytes,
        combos: s.combos,
        slots: new Uint8Array(buf, so, sl),
        recs: new Uint8Array(buf, ro, rl),
        nodes: new Uint8Array(buf, no, nl),
        bloom: new Uint32Array(buf, bo, bl / 4),
      };
    } catch {
      return null;
    }
  }
  return out as GravitySets;
}

/**
 * Which gravity.db content a snapshot file belongs to: info.updated, the token of the gravity run,
 * and row count + highest rowid of both tables, because rows also change outside gravity runs (a
 * list deleted through the API, tools and tests writing the table directly).
 */
export const snapshotKey = (updated: string, token: string, gravity: [number, number], antigravity: [number, number]) =>
  `${updated}/${token}/${gravity.join(":")}/${antigravity.join(":")}`;
