// A small reader of ustar archives (a Pi-hole v5 Teleporter .tar.gz): plain files only, with limits
// checked before anything is allocated, as src/teleporter/zip.ts does for zips.
import { gunzipSync } from "node:zlib";

const MAX_UNPACKED = 256 * 1024 * 1024;
const MAX_ENTRIES = 10_000;

export class TarError extends Error {}

export function readTarGz(bytes: Uint8Array): Map<string, Uint8Array> {
  let tar: Uint8Array;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: MAX_UNPACKED });
  } catch (e) {
    throw new TarError(`not a readable .tar.gz (${(e as Error).message})`);
  }
  const out = new Map<string, Uint8Array>();
  const text = (a: number, n: number) => new TextDecoder().decode(tar.subarray(a, a + n)).replace(/\0.*$/s, "");
  let pos = 0;
  while (pos + 512 <= tar.length) {
    if (tar.subarray(pos, pos + 512).every((b) => b === 0)) break;
    if (!text(pos + 257, 5).startsWith("ustar") && pos === 0) throw new TarError("not a tar archive");
    const name = [text(pos + 345, 155), text(pos + 0, 100)].filter(Boolean).join("/");
    const size = Number.parseInt(text(pos + 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(tar[pos + 156]!);
    if (!Number.isFinite(size) || size < 0 || pos + 512 + size > tar.length)
      throw new TarError(`entry ${name} is cut off`);
    if (type === "0" || type === "\0") out.set(name.replace(/^\.\//, ""), tar.subarray(pos + 512, pos + 512 + size));
    if (out.size > MAX_ENTRIES) throw new TarError(`more than ${MAX_ENTRIES} entries`);
    pos += 512 + Math.ceil(size / 512) * 512;
  }
  if (out.size === 0) throw new TarError("the archive holds no file");
  return out;
}
