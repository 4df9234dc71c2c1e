// Small helpers for the list-management tests: JSON calls against the real server.
import { expect } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
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

/** Live (not zombie) processes whose parent is `ppid`. */
function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === ppid && fields[0] !== "Z") out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

/** the server's gravity child, once it runs (undefined after 5 s without one) */
export async function gravityChild(server: number): Promise<number | undefined> {
  for (let i = 0; i < 100; i++) {
    const child = childrenOf(server).find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("gravity"));
    if (child !== undefined) return child;
    await Bun.sleep(50);
  }
  return undefined;
}
