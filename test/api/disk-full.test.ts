// A full disk: Moat's data directory on a small tmpfs of its own, filled to the last byte. A change
// that cannot be saved is 507 `database_error` saying the disk is full (it used to be 500
// internal_error with no hint), reads keep working, and changes work again once there is room.
// Mounting needs root (CI runs as root); elsewhere the test says why it did not run.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

const mountPoint = mkdtempSync(join(tmpdir(), "moat-full-"));
let mounted = false;
let m: MoatProcess | undefined;

async function sh(cmd: string[]): Promise<number> {
  const p = Bun.spawn(cmd, { stdout: "ignore", stderr: "ignore" });
  return p.exited;
}

beforeAll(async () => {
  mounted =
    process.getuid?.() === 0 && (await sh(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint])) === 0;
  if (!mounted) {
    console.log("disk-full test not run: mounting a tmpfs needs root");
    return;
  }
  const dataDir = join(mountPoint, "data");
  mkdirSync(dataDir);
  m = await startMoat({ dataDir });
});

afterAll(async () => {
  await m?.stop();
  if (mounted) await sh(["umount", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const filler = () => join(mountPoint, "filler");

test("changes on a full disk are 507 database_error saying so; reads work; room again heals it", async () => {
  if (!m) return;
  expect(
    (await m.api("/api/domains/deny/exact", { method: "POST", body: JSON.stringify({ domain: "before.example" }) }))
      .status,
  ).toBe(201);
  await sh(["dd", "if=/dev/zero", `of=${filler()}`, "bs=64k"]);
  const changes: Array<[string, string, unknown]> = [
    // several kilobytes each, within the fields' limits (src/api/lists/input.ts)
    ["POST", "/api/domains/deny/exact", { domain: ["full.example", "full2.example"], comment: "x".repeat(1024) }],
    ["POST", "/api/groups", { name: Array.from({ length: 16 }, (_, i) => `g${i}`.padEnd(255, "g")) }],
    ["PATCH", "/api/config", { config: { misc: { nice: -5 } } }],
  ];
  for (const [method, path, body] of changes) {
    const r = await m.api(path, { method, body: JSON.stringify(body) });
    expect(r.status, `${method} ${path}`).toBe(507);
    expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    const e = ((await r.json()) as { error: { key: string; message: string; hint: string } }).error;
    expect(e.key).toBe("database_error");
    expect(e.message).toContain("disk is full");
    expect(e.hint).toMatch(/full|no space/i);
  }
  expect((await m.api("/api/domains/deny/exact/before.example")).status).toBe(200);
  // one line per failure in the log, no stack traces
  expect(await m.outputWith("the disk is full")).toContain("the disk is full");
  expect(m.output).not.toMatch(/\n\s+at /);
  rmSync(filler());
  const r = await m.api("/api/domains/deny/exact", {
    method: "POST",
    body: JSON.stringify({ domain: "after.example" }),
  });
  expect(r.status).toBe(201);
});
