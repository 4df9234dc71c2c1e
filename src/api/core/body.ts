// Request bodies are JSON whatever their Content-Type (curl -d labels JSON as form data,
// docs/pihole-differences.md), at most 64 KiB. A lone form-encoded `sid=` (Pi-hole accepts it) becomes { sid }.
import { Errors } from "./errors.ts";

export const MAX_JSON_BODY = 64 * 1024;

/** null stands for "no body" so that routes without a body schema accept an empty POST. */
export async function parseJsonBody(request: Request, limit = MAX_JSON_BODY): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw Errors.bodyTooLarge(limit);
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > limit) throw Errors.bodyTooLarge(limit);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw Errors.invalidJson("body is not valid UTF-8");
  }
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch (e) {
    const form = /^sid=([^&]*)$/.exec(text.trim());
    if (form) return { sid: decodeURIComponent(form[1]!.replace(/\+/g, " ")).replace(/ /g, "+") };
    throw Errors.invalidJson(jsonErrorPosition(text, e as Error));
  }
}

function jsonErrorPosition(text: string, e: Error): string {
  const m = /position (\d+)/.exec(e.message);
  const at = m ? Number(m[1]) : 0;
  const snippet = text.slice(at, at + 20);
  return snippet === "" ? "end of input" : snippet;
}
