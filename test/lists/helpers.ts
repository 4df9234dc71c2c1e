// Small helpers for the list-management tests: JSON calls against the real server.
import { expect } from "bun:test";
import type { MoatProcess } from "../harness/moat.ts";

export async function call(moat: MoatProcess, method: string, path: string, body?: unknown) {
  const r = await moat.api(path, {
    method,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let json: any = null;
  if (text) {
    expect(r.headers.get("content-type")).toContain("application/json");
    json = JSON.parse(text);
  }
  return { status: r.status, json, headers: r.headers };
}

export function expectError(
  res: { status: number; json: any },
  status: number,
  key: string,
  message: string,
  hint?: unknown,
) {
  expect(res.status).toBe(status);
  expect(res.json.error.key).toBe(key);
  expect(res.json.error.message).toBe(message);
  if (hint !== undefined) expect(res.json.error.hint).toEqual(hint);
}
