// One file field of a multipart/form-data body (RFC 7578), streamed to disk as it arrives: an update
// bundle is hundreds of MiB, more than the Pi should hold in memory, so POST /api/action/update does not
// go through the buffered form parser (app.ts). Other fields are skipped.
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { Errors } from "./errors.ts";

/** room for the form around the file: boundaries, part headers, other small fields */
const FORM_OVERHEAD = 64 * 1024;

function boundaryOf(contentType: string): string {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const b = m?.[1] ?? m?.[2];
  if (!b || b.length > 70) throw Errors.badRequest("Invalid form request", "multipart/form-data without a boundary");
  return b;
}

/**
 * Writes the part named `field` of `body` to `dest` (mode 0600) and returns its size, or null when the
 * form has no such part. More than `maxBytes` in the part, or a form that ends inside it, is a 4xx error
 * and leaves no file.
 */
export async function saveFormFile(
  body: ReadableStream<Uint8Array> | null,
  contentType: string,
  field: string,
  dest: string,
  maxBytes: number,
  /** the request's Content-Length header, when it has one */
  declaredLength: string | null = null,
): Promise<number | null> {
  if (!body) throw Errors.noBody();
  // a declared size past the limit is refused before a byte is read (and so before 100 Continue)
  if (Number(declaredLength ?? "0") > maxBytes + FORM_OVERHEAD) throw Errors.bodyTooLarge(maxBytes);
  // Every delimiter is CRLF "--" boundary; the body's first one lacks the CRLF, so one is put in front.
  const delim = Buffer.from(`\r\n--${boundaryOf(contentType)}`);
  let buf: Buffer = Buffer.from("\r\n");
  let state: "preamble" | "headers" | "data" | "skip" | "end" = "preamble";
  let fd: number | null = null;
  let size = 0;
  let found = false;
  const write = (b: Buffer) => {
    if (fd === null || b.length === 0) return;
    size += b.length;
    if (size > maxBytes) throw Errors.bodyTooLarge(maxBytes);
    writeSync(fd, b);
  };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (value) buf = Buffer.concat([buf, value]);
      // consume what can be decided with the bytes at hand
      for (;;) {
        if (state === "preamble" || state === "data" || state === "skip") {
          const at = buf.indexOf(delim);
          if (at < 0) {
            // keep a tail that may be the start of a delimiter split across chunks
            const keep = Math.min(buf.length, delim.length - 1);
            if (state === "data") write(buf.subarray(0, buf.length - keep));
            buf = buf.subarray(buf.length - keep);
            break;
          }
          if (state === "data") {
            write(buf.subarray(0, at));
            closeSync(fd!);
            fd = null;
            found = true;
          }
          buf = buf.subarray(at + delim.length);
          state = "headers";
        }
        if (state === "headers") {
          if (buf.length >= 2 && buf[0] === 0x2d && buf[1] === 0x2d) {
            state = "end";
            break;
          }
          const end = buf.indexOf("\r\n\r\n");
          if (end < 0) {
            if (buf.length > 16 * 1024)
              throw Errors.badRequest("Invalid form request", "a part's headers are too long");
            break;
          }
          const headers = buf.subarray(0, end).toString("latin1");
          buf = buf.subarray(end + 4);
          const name = /content-disposition:[^\r\n]*;\s*name="([^"]*)"/i.exec(headers)?.[1];
          if (name === field && !found) {
            fd = openSync(dest, "w", 0o600);
            state = "data";
          } else state = "skip";
          continue;
        }
        break;
      }
      if (state === "end") break;
      if (done) {
        if (state === "data") throw Errors.badRequest("Invalid form request", "the form ended inside the file");
        break;
      }
    }
    return found ? size : null;
  } catch (e) {
    if (fd !== null) closeSync(fd);
    rmSync(dest, { force: true });
    await reader.cancel().catch(() => {});
    throw e;
  }
}

/** Routes that read their multipart body themselves with saveFormFile: app.ts leaves it unread for them. */
export const STREAMED_UPLOADS: ReadonlySet<string> = new Set(["/api/action/update"]);
