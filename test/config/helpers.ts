// Shared by the config/teleporter tests: JSON calls with a session, and login.
import { expect } from "bun:test";
import type { MoatProcess } from "../harness/moat.ts";

export type Json = Record<string, any>;

export async function call(
  m: MoatProcess,
  method: string,
  path: string,
  body?: unknown,
  sid?: string,
): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = {};
  if (sid) headers.sid = sid;
  const r = await m.api(path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text === "" ? {} : (JSON.parse(text) as Json) };
}

export async function login(m: MoatProcess, password: string): Promise<string> {
  const r = await call(m, "POST", "/api/auth", { password });
  expect(r.status).toBe(200);
  expect(r.body.session.valid).toBe(true);
  return r.body.session.sid as string;
}

/** Expects a Pi-hole error envelope. */
export function expectError(
  r: { status: number; body: Json },
  status: number,
  key: string,
  message: string,
  hint?: unknown,
) {
  expect(r.status).toBe(status);
  expect(r.body.error.key).toBe(key);
  expect(r.body.error.message).toBe(message);
  if (hint !== undefined) expect(r.body.error.hint).toEqual(hint);
}
