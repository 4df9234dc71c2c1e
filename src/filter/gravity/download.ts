// Fetching one list: HTTP(S) with ETag / If-Modified-Since against the cached copy, redirects, a
// time and a size limit; file:// from disk. Decides the list's status (reference §6.2):
// 1 updated, 2 unchanged, 3 failed but cached copy used, 4 failed without a copy.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readCache, writeCache } from "./cache.ts";

export const ListStatus = { updated: 1, unchanged: 2, cached: 3, failed: 4 } as const;
export type ListStatusCode = (typeof ListStatus)[keyof typeof ListStatus];

export interface Limits {
  timeoutMs: number;
  maxBytes: number;
}

export interface Fetched {
  status: ListStatusCode;
  /** the content to parse (fresh or cached), null when there is none */
  bytes: Uint8Array | null;
  /** one line for the progress output */
  message: string;
}

class FetchFailure extends Error {}

const sha1 = (b: Uint8Array) => createHash("sha1").update(b).digest("hex");

/** NUL bytes in the first 64 KiB: an image or archive served instead of a list */
function looksBinary(b: Uint8Array): boolean {
  const end = Math.min(b.length, 65536);
  for (let i = 0; i < end; i++) if (b[i] === 0) return true;
  return false;
}

async function readLimited(res: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new FetchFailure(`list larger than the limit (${declared} > ${maxBytes} bytes)`);
  if (!res.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of res.body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new FetchFailure(`list larger than the limit (${maxBytes} bytes)`);
    chunks.push(chunk);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) out.set(c, at), (at += c.byteLength);
  return out;
}

async function fetchHttp(address: string, etag: string | undefined, lastModified: string | undefined, limits: Limits) {
  const headers: Record<string, string> = { "user-agent": "moat-gravity", "accept-encoding": "gzip, deflate" };
  if (etag) headers["if-none-match"] = etag;
  if (lastModified) headers["if-modified-since"] = lastModified;
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let res: Response;
  try {
    res = await fetch(address, { headers, redirect: "follow", signal });
  } catch (e) {
    throw new FetchFailure(signal.aborted ? `timed out after ${limits.timeoutMs / 1000} s` : `connection failed (${(e as Error).message})`);
  }
  if (res.status === 304) return { notModified: true as const };
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {});
    throw new FetchFailure(`HTTP ${res.status}`);
  }
  try {
    const bytes = await readLimited(res, limits.maxBytes);
    return { notModified: false as const, bytes, etag: res.headers.get("etag") ?? undefined, lastModified: res.headers.get("last-modified") ?? undefined };
  } catch (e) {
    if (e instanceof FetchFailure) throw e;
    throw new FetchFailure(signal.aborted ? `timed out after ${limits.timeoutMs / 1000} s` : `transfer interrupted (${(e as Error).message})`);
  }
}

function readLocal(address: string, limits: Limits): Uint8Array {
  let path: string;
  try {
    path = fileURLToPath(address);
  } catch {
    throw new FetchFailure("invalid file:// address");
  }
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new FetchFailure("not a regular file");
    if (st.size > limits.maxBytes) throw new FetchFailure(`list larger than the limit (${limits.maxBytes} bytes)`);
    return readFileSync(path);
  } catch (e) {
    if (e instanceof FetchFailure) throw e;
    throw new FetchFailure(`cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

export async function fetchList(dataDir: string, id: number, address: string, limits: Limits): Promise<Fetched> {
  const cached = readCache(dataDir, id, address);
  try {
    let scheme: string;
    try {
      scheme = new URL(address).protocol;
    } catch {
      throw new FetchFailure("invalid address");
    }
    let bytes: Uint8Array;
    let etag: string | undefined, lastModified: string | undefined;
    if (scheme === "file:") {
      bytes = readLocal(address, limits);
    } else if (scheme === "http:" || scheme === "https:") {
      const r = await fetchHttp(address, cached?.meta.etag, cached?.meta.lastModified, limits);
      if (r.notModified) {
        if (cached) return { status: ListStatus.unchanged, bytes: cached.bytes(), message: "No changes detected (HTTP 304)" };
        throw new FetchFailure("HTTP 304 without a cached copy");
      }
      ({ bytes, etag, lastModified } = r);
    } else {
      throw new FetchFailure(`unsupported protocol ${scheme.replace(/:$/, "")}`);
    }
    if (looksBinary(bytes)) throw new FetchFailure("not a text list (binary content)");
    const digest = sha1(bytes);
    if (cached && cached.meta.sha1 === digest) {
      writeCache(dataDir, id, bytes, { ...cached.meta, etag, lastModified, fetchedAt: Date.now() });
      return { status: ListStatus.unchanged, bytes, message: "No changes detected" };
    }
    writeCache(dataDir, id, bytes, { address, etag, lastModified, sha1: digest, fetchedAt: Date.now() });
    return { status: ListStatus.updated, bytes, message: "Retrieval successful" };
  } catch (e) {
    if (!(e instanceof FetchFailure)) throw e;
    if (cached) return { status: ListStatus.cached, bytes: cached.bytes(), message: `Download failed: ${e.message}; using the cached copy` };
    return { status: ListStatus.failed, bytes: null, message: `Download failed: ${e.message}; no cached copy available` };
  }
}
