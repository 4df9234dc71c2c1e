// Fetching one list: HTTP(S) with ETag / If-Modified-Since against the cached copy, redirects, a
// time and a size limit; file:// from disk. Decides the list's status (Pi-hole's adlist.status):
// 1 updated, 2 unchanged, 3 failed but cached copy used, 4 failed without a copy.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AddressRefused, guardedFetch } from "../../net/address-rule.ts";
import { CacheWriter, ContentError, readCache } from "./cache.ts";

export const ListStatus = { updated: 1, unchanged: 2, cached: 3, failed: 4 } as const;
type ListStatusCode = (typeof ListStatus)[keyof typeof ListStatus];

export interface Limits {
  timeoutMs: number;
  maxBytes: number;
  /** Moat's own web server ports (`webserver.port`): never fetched from the machine itself */
  ownPorts: readonly number[];
}

/** as browsers and curl's default; a loop ends here too */
const MAX_REDIRECTS = 10;

export interface Fetched {
  status: ListStatusCode;
  /** the file holding the content to parse (the fresh or cached copy), null when there is none */
  file: string | null;
  /** one line for the progress output */
  message: string;
}

class FetchFailure extends Error {}

const CHUNK = 1 << 20;

/** the body, chunk by chunk, into the cache writer (never held whole in memory) */
async function readLimited(res: Response, maxBytes: number, into: CacheWriter): Promise<void> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new FetchFailure(`list larger than the limit (${declared} > ${maxBytes} bytes)`);
  if (!res.body) return;
  for await (const chunk of res.body) into.write(chunk);
}

async function fetchHttp(
  address: string,
  etag: string | undefined,
  lastModified: string | undefined,
  limits: Limits,
  into: CacheWriter,
) {
  const headers: Record<string, string> = { "user-agent": "moat-gravity", "accept-encoding": "gzip, deflate" };
  if (etag) headers["if-none-match"] = etag;
  if (lastModified) headers["if-modified-since"] = lastModified;
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let res: Response;
  // redirects are followed here, so that each hop is checked (at the address it connects to) first
  let url = new URL(address);
  for (let hops = 0; ; hops++) {
    try {
      res = await guardedFetch(url, { headers, signal }, limits.ownPorts);
    } catch (e) {
      if (e instanceof AddressRefused) throw new FetchFailure(`refused: ${e.message}`);
      throw new FetchFailure(
        signal.aborted ? `timed out after ${limits.timeoutMs / 1000} s` : `connection failed (${(e as Error).message})`,
      );
    }
    const location = res.headers.get("location");
    if (res.status < 300 || res.status > 308 || res.status === 304 || location === null) break;
    await res.body?.cancel().catch(() => {});
    if (hops === MAX_REDIRECTS) throw new FetchFailure(`more than ${MAX_REDIRECTS} redirects`);
    try {
      url = new URL(location, url);
    } catch {
      throw new FetchFailure(`HTTP ${res.status} to an invalid address`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new FetchFailure(`HTTP ${res.status} to unsupported protocol ${url.protocol.replace(/:$/, "")}`);
  }
  if (res.status === 304) return { notModified: true as const };
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {});
    throw new FetchFailure(`HTTP ${res.status}`);
  }
  try {
    await readLimited(res, limits.maxBytes, into);
    return {
      notModified: false as const,
      etag: res.headers.get("etag") ?? undefined,
      lastModified: res.headers.get("last-modified") ?? undefined,
    };
  } catch (e) {
    if (e instanceof FetchFailure || e instanceof ContentError) throw e;
    throw new FetchFailure(
      signal.aborted
        ? `timed out after ${limits.timeoutMs / 1000} s`
        : `transfer interrupted (${(e as Error).message})`,
    );
  }
}

function readLocal(address: string, limits: Limits, into: CacheWriter): void {
  let path: string;
  try {
    path = fileURLToPath(address);
  } catch {
    throw new FetchFailure("invalid file:// address");
  }
  let fd: number | null = null;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new FetchFailure("not a regular file");
    if (st.size > limits.maxBytes) throw new FetchFailure(`list larger than the limit (${limits.maxBytes} bytes)`);
    fd = openSync(path, "r");
    const buf = new Uint8Array(CHUNK);
    for (let got: number; (got = readSync(fd, buf, 0, CHUNK, null)) > 0; ) into.write(buf.subarray(0, got));
  } catch (e) {
    if (e instanceof FetchFailure || e instanceof ContentError) throw e;
    throw new FetchFailure(`cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** The schemes fetchList can fetch (the API refuses any other at once, src/api/lists/input.ts). */
export const FETCHABLE_SCHEMES: ReadonlySet<string> = new Set(["http:", "https:", "file:"]);

export async function fetchList(dataDir: string, id: number, address: string, limits: Limits): Promise<Fetched> {
  const cached = readCache(dataDir, id, address);
  let into: CacheWriter | null = null;
  try {
    let scheme: string;
    try {
      scheme = new URL(address).protocol;
    } catch {
      throw new FetchFailure("invalid address");
    }
    let etag: string | undefined, lastModified: string | undefined;
    if (!FETCHABLE_SCHEMES.has(scheme)) throw new FetchFailure(`unsupported protocol ${scheme.replace(/:$/, "")}`);
    into = new CacheWriter(dataDir, id, limits.maxBytes);
    if (scheme === "file:") {
      readLocal(address, limits, into);
    } else {
      const r = await fetchHttp(address, cached?.meta.etag, cached?.meta.lastModified, limits, into);
      if (r.notModified) {
        into.abort();
        if (cached)
          return { status: ListStatus.unchanged, file: cached.file, message: "No changes detected (HTTP 304)" };
        throw new FetchFailure("HTTP 304 without a cached copy");
      }
      ({ etag, lastModified } = r);
    }
    const digest = into.digest();
    if (cached && cached.meta.sha1 === digest) {
      return {
        status: ListStatus.unchanged,
        file: into.commit({ ...cached.meta, etag, lastModified, fetchedAt: Date.now() }),
        message: "No changes detected",
      };
    }
    return {
      status: ListStatus.updated,
      file: into.commit({ address, etag, lastModified, sha1: digest, fetchedAt: Date.now() }),
      message: "Retrieval successful",
    };
  } catch (e) {
    into?.abort();
    const failure = e instanceof ContentError ? new FetchFailure(e.message) : e;
    if (!(failure instanceof FetchFailure)) throw failure;
    if (cached)
      return {
        status: ListStatus.cached,
        file: cached.file,
        message: `Download failed: ${failure.message}; using the cached copy`,
      };
    return {
      status: ListStatus.failed,
      file: null,
      message: `Download failed: ${failure.message}; no cached copy available`,
    };
  }
}
