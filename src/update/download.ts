// `moat update URL` and POST /api/action/update {url}: the bundle is fetched over HTTPS only, into the data
// directory, up to update.maxDownload. The transport only brings the bytes: the signature decides.
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { UpdateRefused } from "./rauc.ts";

/** where a downloaded bundle waits for its install (one at a time; removed afterwards) */
const downloadPath = (dataDir: string) => join(dataDir, "update-download.raucb");
/** where an uploaded bundle (POST /api/action/update) waits for its install */
export const uploadPath = (dataDir: string) => join(dataDir, "update-upload.raucb");

export async function downloadBundle(url: string, dataDir: string, maxBytes: number): Promise<string> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UpdateRefused(`"${url.slice(0, 200)}" is not a URL`);
  }
  if (u.protocol !== "https:") throw new UpdateRefused("an update URL must start with https://");
  let res: Response;
  try {
    res = await fetch(u, { redirect: "follow", signal: AbortSignal.timeout(30 * 60_000) });
  } catch (e) {
    throw new UpdateRefused(`cannot download ${u.href}: ${(e as Error).message}`);
  }
  if (res.url && !res.url.startsWith("https:")) throw new UpdateRefused("the update URL redirected away from https://");
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
