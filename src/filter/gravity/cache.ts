// The local copy of each list (<dataDir>/listsCache/list.<id>.domains) with what the next download
// needs to ask "changed since?" (ETag, Last-Modified) and to tell "same content" (sha1).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface CacheMeta {
  address: string;
  etag?: string;
  lastModified?: string;
  sha1: string;
  fetchedAt: number;
}

export const cacheDir = (dataDir: string) => join(dataDir, "listsCache");
const file = (dataDir: string, id: number) => join(cacheDir(dataDir), `list.${id}.domains`);
const metaFile = (dataDir: string, id: number) => join(cacheDir(dataDir), `list.${id}.meta.json`);

/**
 * The cached copy's metadata; its bytes are read only when asked for (a fresh download usually
 * replaces them, and holding both copies would double the list's share of gravity's memory).
 */
export function readCache(dataDir: string, id: number, address: string): { bytes: () => Uint8Array; meta: CacheMeta } | null {
  try {
    const meta = JSON.parse(readFileSync(metaFile(dataDir, id), "utf8")) as CacheMeta;
    // a list whose address changed has nothing in common with the old copy
    if (meta.address !== address || !existsSync(file(dataDir, id))) return null;
    return { bytes: () => readFileSync(file(dataDir, id)), meta };
  } catch {
    return null;
  }
}

/** written beside and renamed, so a crash never leaves half a list as the "good copy" */
export function writeCache(dataDir: string, id: number, bytes: Uint8Array, meta: CacheMeta): void {
  mkdirSync(cacheDir(dataDir), { recursive: true });
  const tmp = file(dataDir, id) + ".tmp";
  writeFileSync(tmp, bytes);
  renameSync(tmp, file(dataDir, id));
  writeFileSync(metaFile(dataDir, id) + ".tmp", JSON.stringify(meta));
  renameSync(metaFile(dataDir, id) + ".tmp", metaFile(dataDir, id));
}

export function removeListCache(dataDir: string, id: number): void {
  rmSync(file(dataDir, id), { force: true });
  rmSync(metaFile(dataDir, id), { force: true });
}
