// `moat update URL` and POST /api/action/update {url}: the bundle is fetched over HTTPS only, into the data
// directory, up to update.maxDownload. The transport only brings the bytes: the signature decides. Where
// it may connect is the address rule's (src/net/address-rule.ts: never link-local, never Moat's own web
// server), and how long it may take is bounded twice: the whole download (update.downloadTimeout) and the
// silence between two pieces of it, since one update at a time runs and a trickling server would hold it.
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { AddressRefused, guardedFetch } from "../net/address-rule.ts";
import { UpdateRefused } from "./rauc.ts";

/** where a downloaded bundle waits for its install (one at a time; removed afterwards) */
const downloadPath = (dataDir: string) => join(dataDir, "update-download.raucb");
/** where an uploaded bundle (POST /api/action/update) waits for its install */
export const uploadPath = (dataDir: string) => join(dataDir, "update-upload.raucb");

/** as browsers and curl's default */
const MAX_REDIRECTS = 10;
/** the longest silence between two pieces of a download, when update.downloadTimeout allows it */
const MAX_IDLE_MS = 30_000;

export interface DownloadLimits {
  maxBytes: number;
  /** update.downloadTimeout, in ms: the whole download, redirects included */
  timeoutMs: number;
  /** Moat's own web server ports (webserver.port), never connected to on this machine */
  ownPorts: readonly number[];
}

/** Aborts when the whole time is up or when nothing arrived for the idle time; `touch` on each piece. */
class Deadline {
  private readonly ctl = new AbortController();
  private readonly total: Timer;
  private idle: Timer | undefined;
  reason = "";
  readonly idleMs: number;

  constructor(timeoutMs: number) {
    this.idleMs = Math.min(MAX_IDLE_MS, Math.floor(timeoutMs / 2));
    this.total = setTimeout(
      () => this.stop(`it took longer than update.downloadTimeout (${timeoutMs / 1000} s)`),
      timeoutMs,
    );
    this.touch();
  }

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  touch(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(
      () => this.stop(`nothing arrived for ${this.idleMs / 1000} s (half of update.downloadTimeout, at most 30 s)`),
      this.idleMs,
    );
  }

  private stop(reason: string): void {
    this.reason = reason;
    this.ctl.abort(new Error(reason));
  }

  clear(): void {
    clearTimeout(this.total);
    clearTimeout(this.idle);
  }
}

/** GET over https, following redirects only to https: a plain http address is never contacted. */
async function fetchHttpsOnly(first: URL, limits: DownloadLimits, deadline: Deadline): Promise<Response> {
  let u = first;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let res: Response;
    try {
      res = await guardedFetch(u, { signal: deadline.signal }, limits.ownPorts);
    } catch (e) {
      if (e instanceof AddressRefused) throw new UpdateRefused(`the update URL is not allowed: ${e.message}`);
      throw new UpdateRefused(`cannot download ${u.href}: ${deadline.reason || (e as Error).message}`);
    }
    deadline.touch();
    const location = res.headers.get("location");
    if (res.status < 300 || res.status > 399 || !location) return res;
    await res.body?.cancel();
    u = new URL(location, u);
    if (u.protocol !== "https:") throw new UpdateRefused("the update URL redirected away from https://");
  }
  throw new UpdateRefused(`cannot download ${first.href}: more than ${MAX_REDIRECTS} redirects`);
}

export async function downloadBundle(url: string, dataDir: string, limits: DownloadLimits): Promise<string> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UpdateRefused(`"${url.slice(0, 200)}" is not a URL`);
  }
  if (u.protocol !== "https:") throw new UpdateRefused("an update URL must start with https://");
  const { maxBytes } = limits;
  const deadline = new Deadline(limits.timeoutMs);
  let fd: number | null = null;
  const path = downloadPath(dataDir);
  try {
    const res = await fetchHttpsOnly(u, limits, deadline);
    if (!res.ok || !res.body) throw new UpdateRefused(`cannot download ${u.href}: HTTP ${res.status}`);
    const declared = Number(res.headers.get("content-length") ?? "0");
    const tooBig = () => new UpdateRefused(`the bundle is larger than update.maxDownload (${maxBytes >> 20} MiB)`);
    if (declared > maxBytes) {
      await res.body.cancel().catch(() => {});
      throw tooBig();
    }
    fd = openSync(path, "w", 0o600);
    let size = 0;
    for await (const chunk of res.body) {
      deadline.touch();
      size += chunk.byteLength;
      if (size > maxBytes) throw tooBig();
      writeSync(fd, chunk);
    }
    closeSync(fd);
    fd = null;
    return path;
  } catch (e) {
    if (fd !== null) {
      closeSync(fd);
      rmSync(path, { force: true });
    }
    if (e instanceof UpdateRefused) throw e;
    throw new UpdateRefused(`cannot download ${u.href}: ${deadline.reason || (e as Error).message}`);
  } finally {
    deadline.clear();
  }
}
