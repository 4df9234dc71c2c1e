// The ZIP reader and writer on their own: what is written reads back the same, and what the reader
// refuses (APPNOTE.TXT's layout: local headers, central directory, end record; offsets below are
// its field offsets) before anything large is allocated.
import { expect, test } from "bun:test";
import { ZipError, type ZipEntry, type ZipLimits, readZip, writeZip } from "./zip.ts";

const text = (s: string) => new TextEncoder().encode(s);
const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
/** where the end record and the first central directory entry are */
const endAt = (zip: Uint8Array) => zip.byteLength - 22;
const centralAt = (zip: Uint8Array) => view(zip).getUint32(endAt(zip) + 16, true);

/** the archive after `change` was made to a copy of it */
function patched(zip: Uint8Array, change: (v: DataView, zip: Uint8Array) => void): Uint8Array {
  const copy = zip.slice();
  change(view(copy), copy);
  return copy;
}

/** the archive with one little-endian field set to `value` */
const withU32 = (zip: Uint8Array, at: number, value: number) => patched(zip, (v) => v.setUint32(at, value, true));
const withU16 = (zip: Uint8Array, at: number, value: number) => patched(zip, (v) => v.setUint16(at, value, true));

/** The reason the reader gives for refusing the archive; fails when it is read. */
function refusal(zip: Uint8Array, limits?: ZipLimits): string {
  try {
    readZip(zip, () => true, limits);
  } catch (e) {
    expect(e).toBeInstanceOf(ZipError);
    return (e as ZipError).message;
  }
  throw new Error("the archive was read");
}

test("round trip: deflated, stored and empty entries, UTF-8 names", () => {
  const entries: ZipEntry[] = [
    { name: "etc/pihole/pihole.toml", data: text("[dns]\n".repeat(500)) },
    { name: "random.bin", data: crypto.getRandomValues(new Uint8Array(4096)) },
    { name: "empty", data: new Uint8Array(0) },
    { name: "grüße/名前.txt", data: text("hallo") },
  ];
  const zip = writeZip(entries, new Date(2024, 5, 1, 12, 30, 10));
  const files = readZip(zip);
  expect([...files.keys()]).toEqual(entries.map((e) => e.name));
  for (const e of entries) expect(files.get(e.name)).toEqual(e.data);
  // the text is deflated (method 8); the rest is stored (method 0), as deflate would not make it smaller
  const methods: number[] = [];
  for (let p = centralAt(zip), i = 0; i < entries.length; i++) {
    methods.push(view(zip).getUint16(p + 10, true));
    p += 46 + view(zip).getUint16(p + 28, true);
  }
  expect(methods).toEqual([8, 0, 0, 0]);
  expect(zip.byteLength).toBeLessThan(4096 + 1000);
});

test("only the wanted entries are inflated; the others are listed empty", () => {
  const zip = writeZip([
    { name: "a", data: text("aaa") },
    { name: "b", data: text("bbb") },
  ]);
  const files = readZip(zip, (n) => n === "b");
  expect(files.get("a")).toEqual(new Uint8Array(0));
  expect(files.get("b")).toEqual(text("bbb"));
});

test("not an archive: too short, or no end record", () => {
  expect(refusal(new Uint8Array(10))).toBe("not a ZIP archive (too short)");
  expect(refusal(new Uint8Array(100))).toBe("not a ZIP archive (no end of central directory)");
});

test("too many entries, refused from the count in the end record", () => {
  const entries = Array.from({ length: 65 }, (_, i) => ({ name: `f${i}`, data: text("x") }));
  expect(refusal(writeZip(entries))).toBe("too many entries (65, at most 64)");
  expect(readZip(writeZip(entries.slice(1))).size).toBe(64);
});

const SMALL: ZipLimits = { maxEntries: 4, maxTotal: 1024, ratioFloor: 1024, maxRatio: 10 };

test("zip bombs: a compression ratio past the limit, or more in all than the limit", () => {
  const zeros = new Uint8Array(2 * 1024 * 1024);
  expect(refusal(writeZip([{ name: "bomb", data: zeros }]))).toMatch(/^"bomb" expands \d+-fold \(zip bomb\?\)$/);
  const two = writeZip([
    { name: "a", data: text("0123456789") },
    { name: "b", data: text("0123456789") },
  ]);
  expect(refusal(two, { ...SMALL, maxTotal: 15 })).toBe("contents larger than 15 bytes");
  expect(readZip(two, () => true, { ...SMALL, maxTotal: 20 }).size).toBe(2);
});

test("an entry that inflates to more than it declares is cut off at the declared size", () => {
  const zip = writeZip([{ name: "big", data: text("A".repeat(10_000)) }]);
  // the central directory claims 100 bytes (the local header is not what the reader trusts)
  const lying = withU32(zip, centralAt(zip) + 24, 100);
  expect(refusal(lying)).toBe('"big" inflates beyond its declared size');
  const short = withU32(zip, centralAt(zip) + 24, 20_000);
  expect(refusal(short)).toBe('"big" is corrupt (size mismatch)');
});

test("damaged data: CRC mismatch, corrupt deflate stream, truncated entry", () => {
  const stored = writeZip([{ name: "r", data: crypto.getRandomValues(new Uint8Array(64)) }]);
  expect(refusal(patched(stored, (_, b) => (b[30 + 1 + 10]! ^= 1)))).toBe('"r" is corrupt (CRC mismatch)');
  const deflated = writeZip([{ name: "t", data: text("hello ".repeat(100)) }]);
  expect(refusal(patched(deflated, (_, b) => b.fill(0xff, 31, 41)))).toMatch(/^"t" is corrupt \(/);
  const longer = withU32(deflated, centralAt(deflated) + 20, 5000);
  expect(refusal(longer)).toBe('"t" is truncated');
});

test("bad offsets: the central directory or a local header outside the archive", () => {
  const zip = writeZip([{ name: "a", data: text("aaa") }]);
  expect(refusal(withU32(zip, endAt(zip) + 16, endAt(zip) - 10))).toBe("corrupt central directory");
  expect(refusal(withU32(zip, endAt(zip) + 16, 0))).toBe("corrupt central directory");
  expect(refusal(withU32(zip, centralAt(zip) + 42, 1_000_000))).toBe('"a" is corrupt (bad local header)');
  expect(refusal(withU32(zip, centralAt(zip) + 42, 5))).toBe('"a" is corrupt (bad local header)');
  // a count larger than the directory holds
  expect(refusal(withU16(zip, endAt(zip) + 10, 2))).toBe("corrupt central directory");
});

test("what the reader does not support: ZIP64, several disks, encryption, other methods", () => {
  const zip = writeZip([{ name: "a", data: text("aaa") }]);
  expect(refusal(withU16(zip, endAt(zip) + 10, 0xffff))).toBe("ZIP64 archives are not supported");
  expect(refusal(withU32(zip, centralAt(zip) + 24, 0xffffffff))).toBe("ZIP64 archives are not supported");
  expect(refusal(withU16(zip, endAt(zip) + 4, 1))).toBe("multi-disk archives are not supported");
  expect(refusal(withU16(zip, centralAt(zip) + 8, 0x0801))).toBe('"a" is encrypted');
  expect(refusal(withU16(zip, centralAt(zip) + 10, 12))).toBe('"a" uses an unsupported compression method (12)');
});

test("entry names: relative, no '..', no backslash or control characters, no duplicates", () => {
  const fine = ["a", "etc/pihole/gravity.db", "..a/b", "a..b", "x".repeat(255)];
  expect([...readZip(writeZip([...fine, "dir/"].map((name) => ({ name, data: text("") })))).keys()]).toEqual(fine);
  const named = (name: string) => refusal(writeZip([{ name, data: text("x") }]));
  expect(named("")).toBe("empty or overlong file name");
  expect(named("x".repeat(256))).toBe("empty or overlong file name");
  expect(named("/etc/passwd")).toBe('absolute path "/etc/passwd"');
  expect(named("C:/x")).toBe('absolute path "C:/x"');
  expect(named("a\\b")).toBe('invalid characters in "a\\b"');
  expect(named("a\nb")).toBe('invalid characters in "a\nb"');
  expect(named("../evil")).toBe('path traversal in "../evil"');
  expect(named("a/../../b")).toBe('path traversal in "a/../../b"');
  const twice = writeZip([
    { name: "a", data: text("1") },
    { name: "a", data: text("2") },
  ]);
  expect(refusal(twice)).toBe('duplicate entry "a"');
  const notUtf8 = patched(writeZip([{ name: "ab", data: text("x") }]), (_, b) => (b[centralAt(b) + 46] = 0xff));
  expect(refusal(notUtf8)).toBe("file name is not valid UTF-8");
});
