// A small ZIP reader/writer for Teleporter archives. Our own rather than a library because the
// reader's job is mostly refusing things: it needs hard limits on entry count, declared sizes,
// compression ratio and real inflated size (node:zlib's maxOutputLength), checked before anything
// is allocated, and a CRC check of every entry. Only "stored" and "deflate" entries exist in
// Pi-hole's archives; ZIP64, encryption and multi-disk archives are refused.
import { deflateRawSync, inflateRawSync } from "node:zlib";

export class ZipError extends Error {}

export interface ZipLimits {
  /** most entries in one archive */
  maxEntries: number;
  /** most bytes of all entries together, uncompressed */
  maxTotal: number;
  /** an entry larger than this must compress at most `maxRatio` : 1 */
  ratioFloor: number;
  maxRatio: number;
}

const DEFAULT_LIMITS: ZipLimits = {
  maxEntries: 64,
  maxTotal: 256 * 1024 * 1024,
  ratioFloor: 1024 * 1024,
  maxRatio: 200,
};

export interface ZipEntry {
  name: string;
  data: Uint8Array;
}

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;

/** DOS time/date of a JS date (ZIP's only mandatory timestamp). */
function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getFullYear());
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/**
 * The fields a local header and its central directory entry share, from `at` (APPNOTE.TXT 4.3.7 and 4.3.12):
 * the version needed (2.0), the flags (UTF-8 names), the method, time, date, CRC, sizes and the name's length.
 */
function sharedFields(
  v: DataView,
  at: number,
  f: { method: number; time: number; date: number; crc: number; size: number; length: number },
  nameLength: number,
): void {
  v.setUint16(at, 20, true);
  v.setUint16(at + 2, 0x0800, true);
  v.setUint16(at + 4, f.method, true);
  v.setUint16(at + 6, f.time, true);
  v.setUint16(at + 8, f.date, true);
  v.setUint32(at + 10, f.crc, true);
  v.setUint32(at + 14, f.size, true);
  v.setUint32(at + 18, f.length, true);
  v.setUint16(at + 22, nameLength, true);
}

export function writeZip(entries: readonly ZipEntry[], now = new Date()): Uint8Array {
  const { time, date } = dosDateTime(now);
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = new TextEncoder().encode(e.name);
    const deflated = deflateRawSync(e.data, { level: 6 });
    const stored = deflated.byteLength >= e.data.byteLength;
    const body = stored ? e.data : new Uint8Array(deflated.buffer, deflated.byteOffset, deflated.byteLength);
    const crc = Bun.hash.crc32(e.data) >>> 0;
    const local = new Uint8Array(30 + name.byteLength);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, SIG_LOCAL, true);
    const shared = { method: stored ? 0 : 8, time, date, crc, size: body.byteLength, length: e.data.byteLength };
    sharedFields(lv, 4, shared, name.byteLength);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.byteLength);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, SIG_CENTRAL, true);
    cv.setUint16(4, 0x0314, true); // made by: Unix, 2.0
    sharedFields(cv, 6, shared, name.byteLength);
    cv.setUint32(38, (0o100644 << 16) >>> 0, true); // regular file, rw-r--r--
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, body);
    centrals.push(central);
    offset += local.byteLength + body.byteLength;
  }
  const centralSize = centrals.reduce((n, c) => n + c.byteLength, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, SIG_END, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + centralSize + 22);
  let at = 0;
  for (const part of [...locals, ...centrals, end]) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** Names we accept: relative, no `..`, no backslashes or control characters. */
function unsafeName(name: string): string | null {
  if (name === "" || name.length > 255) return "empty or overlong file name";
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return `absolute path "${name}"`;
  if (name.includes("\\") || /[\x00-\x1f]/.test(name)) return `invalid characters in "${name}"`;
  if (name.split("/").some((s) => s === "..")) return `path traversal in "${name}"`;
  return null;
}

interface CentralEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressed: number;
  size: number;
  localOffset: number;
}

function findEnd(v: DataView): number {
  const min = Math.max(0, v.byteLength - 22 - 0xffff);
  for (let i = v.byteLength - 22; i >= min; i--) if (v.getUint32(i, true) === SIG_END) return i;
  throw new ZipError("not a ZIP archive (no end of central directory)");
}

/** Lists and checks the central directory without inflating anything. */
function readCentral(buf: Uint8Array, limits: ZipLimits): CentralEntry[] {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.byteLength < 22) throw new ZipError("not a ZIP archive (too short)");
  const endAt = findEnd(v);
  const count = v.getUint16(endAt + 10, true);
  const cdSize = v.getUint32(endAt + 12, true);
  const cdOffset = v.getUint32(endAt + 16, true);
  if (v.getUint16(endAt + 4, true) !== 0 || v.getUint16(endAt + 6, true) !== 0)
    throw new ZipError("multi-disk archives are not supported");
  if (count === 0xffff || cdOffset === 0xffffffff) throw new ZipError("ZIP64 archives are not supported");
  if (count > limits.maxEntries) throw new ZipError(`too many entries (${count}, at most ${limits.maxEntries})`);
  if (cdOffset + cdSize > endAt) throw new ZipError("corrupt central directory");
  const out: CentralEntry[] = [];
  const seen = new Set<string>();
  let total = 0;
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > endAt || v.getUint32(p, true) !== SIG_CENTRAL) throw new ZipError("corrupt central directory");
    const nameLen = v.getUint16(p + 28, true);
    const extraLen = v.getUint16(p + 30, true);
    const commentLen = v.getUint16(p + 32, true);
    if (p + 46 + nameLen > endAt) throw new ZipError("corrupt central directory");
    let name: string;
    try {
      name = new TextDecoder("utf-8", { fatal: true }).decode(buf.subarray(p + 46, p + 46 + nameLen));
    } catch {
      throw new ZipError("file name is not valid UTF-8");
    }
    const e: CentralEntry = {
      name,
      flags: v.getUint16(p + 8, true),
      method: v.getUint16(p + 10, true),
      crc: v.getUint32(p + 16, true),
      compressed: v.getUint32(p + 20, true),
      size: v.getUint32(p + 24, true),
      localOffset: v.getUint32(p + 42, true),
    };
    p += 46 + nameLen + extraLen + commentLen;
    const bad = unsafeName(name);
    if (bad) throw new ZipError(bad);
    if (seen.has(name)) throw new ZipError(`duplicate entry "${name}"`);
    seen.add(name);
    if (name.endsWith("/")) continue; // directory
    if (e.flags & 0x1) throw new ZipError(`"${name}" is encrypted`);
    if (e.method !== 0 && e.method !== 8)
      throw new ZipError(`"${name}" uses an unsupported compression method (${e.method})`);
    if (e.size === 0xffffffff || e.compressed === 0xffffffff) throw new ZipError("ZIP64 archives are not supported");
    if (e.method === 0 && e.size !== e.compressed) throw new ZipError(`"${name}" is corrupt (size mismatch)`);
    if (e.size > limits.ratioFloor && e.size > e.compressed * limits.maxRatio)
      throw new ZipError(`"${name}" expands ${Math.round(e.size / Math.max(1, e.compressed))}-fold (zip bomb?)`);
    total += e.size;
    if (total > limits.maxTotal) throw new ZipError(`contents larger than ${limits.maxTotal} bytes`);
    out.push(e);
  }
  return out;
}

/**
 * Reads every file entry, or throws ZipError. `wanted` decides which names are inflated (others
 * are only checked from the directory).
 */
export function readZip(
  buf: Uint8Array,
  wanted: (name: string) => boolean = () => true,
  limits: ZipLimits = DEFAULT_LIMITS,
): Map<string, Uint8Array> {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const files = new Map<string, Uint8Array>();
  for (const e of readCentral(buf, limits)) {
    if (!wanted(e.name)) {
      files.set(e.name, new Uint8Array(0));
      continue;
    }
    const at = e.localOffset;
    if (at + 30 > buf.byteLength || v.getUint32(at, true) !== SIG_LOCAL)
      throw new ZipError(`"${e.name}" is corrupt (bad local header)`);
    const start = at + 30 + v.getUint16(at + 26, true) + v.getUint16(at + 28, true);
    const end = start + e.compressed;
    if (end > buf.byteLength) throw new ZipError(`"${e.name}" is truncated`);
    const raw = buf.subarray(start, end);
    let data: Uint8Array;
    if (e.method === 0) data = raw;
    else {
      try {
        // One byte more than declared: a stream that lies about its size fails here, not in memory.
        data = new Uint8Array(inflateRawSync(raw, { maxOutputLength: Math.max(1, e.size + 1) }));
      } catch (err) {
        const code = (err as { code?: string }).code;
        throw new ZipError(
          code === "ERR_BUFFER_TOO_LARGE"
            ? `"${e.name}" inflates beyond its declared size`
            : `"${e.name}" is corrupt (${(err as Error).message})`,
        );
      }
    }
    if (data.byteLength !== e.size) throw new ZipError(`"${e.name}" is corrupt (size mismatch)`);
    if (Bun.hash.crc32(data) >>> 0 !== e.crc) throw new ZipError(`"${e.name}" is corrupt (CRC mismatch)`);
    files.set(e.name, data);
  }
  return files;
}
