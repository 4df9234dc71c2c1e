// saveFormFile against forms as browsers and curl send them, fed in awkward chunk sizes: a delimiter split
// across chunks, other fields around the file, a missing file, a file over the limit, a form cut short.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "./errors.ts";
import { saveFormFile } from "./multipart-file.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-multipart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function encode(form: FormData): Promise<{ bytes: Uint8Array; type: string }> {
  const r = new Response(form);
  // the header first: Bun drops it once the body is read
  const type = r.headers.get("content-type")!;
  return { bytes: new Uint8Array(await r.arrayBuffer()), type };
}

function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, at + size));
      at += size;
    },
  });
}

// bytes that contain CR LF and dashes, as a binary bundle does
const payload = new Uint8Array(100_000);
for (let i = 0; i < payload.length; i++) payload[i] = [13, 10, 45, 45, i & 255][i % 5]!;

test("the file part arrives whole whatever the chunk size, with other fields before and after", async () => {
  const form = new FormData();
  form.append("note", "before\r\n--not-a-boundary");
  form.append("file", new Blob([payload]), "bundle.raucb");
  form.append("after", "x");
  const { bytes, type } = await encode(form);
  for (const size of [1, 7, 69, 4096, bytes.length]) {
    const dest = join(dir, `out-${size}`);
    expect(await saveFormFile(chunked(bytes, size), type, "file", dest, 1 << 20)).toBe(payload.length);
    expect(new Uint8Array(readFileSync(dest))).toEqual(payload);
  }
});

test("no file field is null; a file over the limit or a form cut short leaves nothing", async () => {
  const form = new FormData();
  form.append("other", new Blob([payload]), "x.bin");
  const none = await encode(form);
  expect(await saveFormFile(chunked(none.bytes, 1000), none.type, "file", join(dir, "none"), 1 << 20)).toBeNull();
  expect(existsSync(join(dir, "none"))).toBe(false);

  const big = new FormData();
  big.append("file", new Blob([payload]), "bundle.raucb");
  const b = await encode(big);
  await expect(saveFormFile(chunked(b.bytes, 1000), b.type, "file", join(dir, "big"), 50_000)).rejects.toMatchObject({
    status: 413,
  });
  expect(existsSync(join(dir, "big"))).toBe(false);

  const cut = saveFormFile(chunked(b.bytes.subarray(0, 60_000), 1000), b.type, "file", join(dir, "cut"), 1 << 20);
  const e = await cut.catch((x) => x);
  expect(e).toBeInstanceOf(ApiError);
  expect((e as ApiError).hint).toBe("the form ended inside the file");
  expect(existsSync(join(dir, "cut"))).toBe(false);

  await expect(
    saveFormFile(chunked(b.bytes, 10), "multipart/form-data", "file", join(dir, "nb"), 100),
  ).rejects.toMatchObject({
    status: 400,
  });
});
