// `moat update URL` and POST /api/action/update {url}: the bundle is fetched over HTTPS only, into the data
// directory, up to update.maxDownload. The transport only brings the bytes: the signature decides.
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { UpdateRefused } from "./rauc.ts";

/** where a downloaded bundle waits for its install (one at a time; removed afterwards) */
const downloadPath = (dataDir: string) => join(dataDir, "update-download.raucb");
/** where an uploaded bundle (POST /api/action/update) waits for its install */
export const uploadPath = (dataDir: string) => join(dataDir, "update-upload.raucb");

/** as browsers and curl's default */
const MAX_REDIRECTS = 10;

/** GET over https, following redirects only to https: a plain http address is never contacted. */
async function fetchHttpsOnly(first: URL): Promise<Response> {
  const signal = AbortSignal.timeout(30 * 60_000);
  let u = first;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let res: Response;
    try {
      res = await fetch(u, { redirect: "manual", signal });
    } catch (e) {
      throw new UpdateRefused(`cannot download ${u.href}: ${(e as Error).message}`);
    }
    const location = res.headers.get("location");
    if (res.status < 300 || res.status > 399 || !location) return res;
    await res.body?.cancel();
    u = new URL(location, u);
    if (u.protocol !== "https:") throw new UpdateRefused("the update URL redirected away from https://");
  }
  throw new UpdateRefused(`cannot download ${first.href}: more than ${MAX_REDIRECTS} redirects`);
}

export async function downloadBundle(url: string, dataDir: string, maxBytes: number): Promise<string> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UpdateRefused(`"${url.slice(0, 200)}" is not a URL`);
  }
  if (u.protocol !== "https:") throw new UpdateRefused("an update URL must start with https://");
  const res = await fetchHttpsOnly(u);
  if (!res.ok || !res.body) throw new UpdateRefused(`cannot download ${u.href}: HTTP ${res.status}`);
  const declared = Number(res.headers.get("content-length") ?? "0");
  const tooBig = () => new UpdateRefused(`the bundle is larger than update.maxDownload (${maxBytes >> 20} MiB)`);
  if (declared > maxBytes) throw tooBig();
  const path = downloadPath(dataDir);
  const fd = openSync(path, "w", 0o600);
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      if (size > maxBytes) throw tooBig();
      writeSync(fd, chunk);
    }
  } catch (e) {
    closeSync(fd);
    rmSync(path, { force: true });
    if (e instanceof UpdateRefused) throw e;
    throw new UpdateRefused(`cannot download ${u.href}: ${(e as Error).message}`);
  }
  closeSync(fd);
  return path;
}
