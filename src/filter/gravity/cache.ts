// The local copy of each list (<dataDir>/listsCache/list.<id>.domains) with what the next download
// needs to ask "changed since?" (ETag, Last-Modified) and to tell "same content" (sha1).
import { createHash, type Hash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

export interface CacheMeta {
  address: string;
  etag?: string;
  lastModified?: string;
  sha1: string;
  fetchedAt: number;
}

const cacheDir = (dataDir: string) => join(dataDir, "listsCache");
const file = (dataDir: string, id: number) => join(cacheDir(dataDir), `list.${id}.domains`);
const metaFile = (dataDir: string, id: number) => join(cacheDir(dataDir), `list.${id}.meta.json`);

/**
 * The cached copy's metadata and file. Lists are parsed from that file in chunks, never held whole
 * in memory (at a million names a list is the largest share of gravity's peak after the sets).
 */
export function readCache(dataDir: string, id: number, address: string): { file: string; meta: CacheMeta } | null {
  try {
    const meta = JSON.parse(readFileSync(metaFile(dataDir, id), "utf8")) as CacheMeta;
    // a list whose address changed has nothing in common with the old copy
    if (meta.address !== address || !existsSync(file(dataDir, id))) return null;
    return { file: file(dataDir, id), meta };
  } catch {
    return null;
  }
}

/** Thrown by CacheWriter.write when the content breaks a limit or is not text. */
export class ContentError extends Error {}

/**
 * A download written straight to a file beside the cached copy (hashed, size-limited and checked for
 * binary content on the way), which replaces the copy only on commit(): a failure or a crash never
 * leaves half a list as the "good copy".
 */
export class CacheWriter {
  private readonly tmp: string;
  private fd: number | null;
  private readonly hash: Hash = createHash("sha1");
  size = 0;
  constructor(
    private readonly dataDir: string,
    private readonly id: number,
    private readonly maxBytes: number,
  ) {
    mkdirSync(cacheDir(dataDir), { recursive: true });
    this.tmp = `${file(dataDir, id)}.tmp`;
    this.fd = openSync(this.tmp, "w");
  }

  write(chunk: Uint8Array): void {
    if (this.size + chunk.byteLength > this.maxBytes)
      throw new ContentError(`list larger than the limit (${this.maxBytes} bytes)`);
    // NUL bytes in the first 64 KiB: an image or archive served instead of a list
    const end = Math.min(chunk.byteLength, 65536 - this.size);
    for (let i = 0; i < end; i++) if (chunk[i] === 0) throw new ContentError("not a text list (binary content)");
    this.hash.update(chunk);
    for (let at = 0; at < chunk.byteLength; ) at += writeSync(this.fd!, chunk, at, chunk.byteLength - at);
    this.size += chunk.byteLength;
  }

  /** the content's sha1 (once, after the last write) */
  digest(): string {
    return this.hash.digest("hex");
  }

  /** makes the written content the cached copy; returns its path */
  commit(meta: CacheMeta): string {
    this.close();
    renameSync(this.tmp, file(this.dataDir, this.id));
    writeFileSync(`${metaFile(this.dataDir, this.id)}.tmp`, JSON.stringify(meta));
    renameSync(`${metaFile(this.dataDir, this.id)}.tmp`, metaFile(this.dataDir, this.id));
    return file(this.dataDir, this.id);
  }

  abort(): void {
    this.close();
    rmSync(this.tmp, { force: true });
  }

  private close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

export function removeListCache(dataDir: string, id: number): void {
  rmSync(file(dataDir, id), { force: true });
  rmSync(metaFile(dataDir, id), { force: true });
}
