// Request bodies are JSON whatever their Content-Type (curl -d labels JSON as form data,
// docs/pihole-differences.md), at most 64 KiB. A lone form-encoded `sid=` (Pi-hole accepts it) becomes { sid }.
// Bodies are read as streams and given up as soon as they pass their limit, so a large body never
// sits in memory.
import { Errors } from "./errors.ts";

const MAX_JSON_BODY = 64 * 1024;

/** The whole body, or 413 as soon as it (or its declared length) passes `limit`. */
export async function readBodyBounded(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw Errors.bodyTooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw Errors.bodyTooLarge(limit);
    }
    parts.push(value);
  }
  return parts.length === 1 ? parts[0]! : Bun.concatArrayBuffers(parts, size, true);
}

/** null stands for "no body" so that routes without a body schema accept an empty POST. */
export function decodeJsonBody(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw Errors.invalidJson("body is not valid UTF-8");
  }
  if (text.trim() === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const form = /^sid=([^&]*)$/.exec(text.trim());
    if (form) return { sid: decodeURIComponent(form[1]!.replace(/\+/g, " ")).replace(/ /g, "+") };
    throw Errors.invalidJson(jsonErrorPosition(text, e as Error));
  }
  const problem = shapeProblem(value);
  if (problem) throw Errors.invalidJson(problem);
  return value;
}

/**
 * Nesting deeper than this is refused, as Pi-hole's JSON parser (cJSON) refuses past 1000: no route's
 * body nests more than a few levels, and a deeper one can overflow a recursive reader later (the schema
 * validator's error message stringifies the whole value).
 */
const MAX_DEPTH = 1000;

/**
 * Why a parsed body is refused, or null. Every string (keys included) must be well-formed Unicode:
 * "\ud800" is valid JSON but not text, and would reach the databases and break every later reader.
 * Iterative, as bodies nest deep.
 */
function shapeProblem(root: unknown): string | null {
  const todo: Array<[unknown, number]> = [[root, 0]];
  while (todo.length) {
    const [v, depth] = todo.pop()!;
    if (typeof v === "string") {
      if (!v.isWellFormed()) return "a string with an unpaired surrogate escape (\\ud800-\\udfff)";
    } else if (typeof v === "object" && v !== null) {
      if (depth >= MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels`;
      if (Array.isArray(v)) for (const x of v) todo.push([x, depth + 1]);
      else
        for (const [k, x] of Object.entries(v)) {
          if (!k.isWellFormed()) return "a string with an unpaired surrogate escape (\\ud800-\\udfff)";
          todo.push([x, depth + 1]);
        }
    }
  }
  return null;
}

export async function parseJsonBody(request: Request, limit = MAX_JSON_BODY): Promise<unknown> {
  return decodeJsonBody(await readBodyBounded(request, limit));
}

function jsonErrorPosition(text: string, e: Error): string {
  const m = /position (\d+)/.exec(e.message);
  const at = m ? Number(m[1]) : 0;
  const snippet = text.slice(at, at + 20);
  return snippet === "" ? "end of input" : snippet;
}
