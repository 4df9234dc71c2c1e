// Where a domain set's builder keeps its records and suffix nodes (domainset-build.ts). In the heap by
// default; a gravity run's builders keep them in a file of the data directory instead, mapped shared,
// so they are page cache the kernel can write back and drop rather than heap it must keep: at 10M names
// the records are ~250 MiB, which beside the server and its filter did not fit a 512 MiB board
// (bench/gravity/small-board.ts). The hash tables stay in the heap (a probe touches them at random).
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export interface BuildMemory {
  /** zero-filled bytes that live as long as the array does */
  alloc(bytes: number): Uint8Array;
}

export const heapMemory: BuildMemory = { alloc: (bytes) => new Uint8Array(bytes) };

/** Requests below this stay in the heap: small sets, and the first growth steps of the node buffer. */
const MIN_MAPPED = 1 << 20;
/** mappings start at multiples of this: at least the page size of any arm64 kernel (4, 16 or 64 KiB) */
const ALIGN = 1 << 16;
/** dirty pages written out every this many bytes handed out, so dropping them never waits on the disk */
const SYNC_EVERY = 64 << 20;

/**
 * Bytes in `<dir>/gravity.build.tmp`, unlinked as soon as it is open: it goes with the last mapping when
 * the builders are collected and `close()` was called, or with the process whatever happens. Each request
 * is written as zeros first, so a full disk is a clean fallback to the heap here, not a SIGBUS at a later
 * store into a mapping of blocks the file system could not allocate.
 */
export class FileMemory implements BuildMemory {
  private fd: number | null = null;
  private end = 0;
  private unsynced = 0;
  private readonly zeros = new Uint8Array(ALIGN);
  /** bytes handed out as mappings (the bench and the tests read it) */
  mapped = 0;

  constructor(dir: string) {
    const path = join(dir, "gravity.build.tmp");
    try {
      this.fd = openSync(path, "w+");
      rmSync(path);
    } catch {
      this.close();
    }
  }

  alloc(bytes: number): Uint8Array {
    if (this.fd === null || bytes < MIN_MAPPED) return new Uint8Array(bytes);
    const size = Math.ceil(bytes / ALIGN) * ALIGN;
    try {
      for (let done = 0; done < size; )
        done += writeSync(this.fd, this.zeros, 0, Math.min(ALIGN, size - done), this.end + done);
      const view = Bun.mmap(`/proc/self/fd/${this.fd}`, { shared: true, offset: this.end, size });
      this.end += size;
      this.mapped += size;
      this.unsynced += size;
      if (this.unsynced >= SYNC_EVERY) {
        fdatasyncSync(this.fd);
        this.unsynced = 0;
      }
      return view.subarray(0, bytes);
    } catch {
      // a full disk, or a file system that cannot map files: the rest of the build uses the heap
      this.close();
      return new Uint8Array(bytes);
    }
  }

  /** No more requests; the file's space is freed once the last mapping is collected. */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
