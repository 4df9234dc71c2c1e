// A gravity run whose server is gone changes nothing: the swap asks, inside its transaction, whether
// to commit (runGravity's mayCommit; the CLI asks whether its server is still its parent), and a `moat
// gravity` started for a server that is not its parent stops before it downloads anything.
import { afterAll, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openGravityDb } from "../../src/db/index.ts";
import { runGravity } from "../../src/filter/gravity/build.ts";
import { PARENT_PIPE_ENV } from "../../src/filter/gravity/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-guard-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const limits = { timeoutMs: 5000, maxBytes: 1 << 20, ownPorts: [] };
const names = (db: Database) =>
  (db.query("SELECT domain FROM gravity ORDER BY domain").all() as Array<{ domain: string }>).map((r) => r.domain);
const tables = (db: Database) =>
  (
    db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%gravity%'").all() as Array<{
      name: string;
    }>
  )
    .map((r) => r.name)
    .sort();

test("runGravity: a swap told not to commit leaves the last gravity as it was, build tables gone", async () => {
  const list = join(dir, "list.txt");
  const db = openGravityDb(dir);
  try {
    db.run("INSERT INTO adlist (address) VALUES (?)", [`file://${list}`]);
    writeFileSync(list, "first.guard.test\n");
    expect((await runGravity(db, dir, limits, () => {})).ok).toBe(true);
    expect(names(db)).toEqual(["first.guard.test"]);
    const updated = db.query("SELECT value FROM info WHERE property = 'updated'").get();

    writeFileSync(list, "second.guard.test\n");
    const lines: string[] = [];
    await expect(
      runGravity(
        db,
        dir,
        limits,
        (l) => lines.push(l),
        () => false,
      ),
    ).rejects.toThrow("the server that started this update is gone");
    expect(names(db)).toEqual(["first.guard.test"]);
    expect(db.query("SELECT value FROM info WHERE property = 'updated'").get()).toEqual(updated);
    expect(tables(db)).toEqual(["antigravity", "gravity"]);
  } finally {
    db.close();
  }
});

test("moat gravity for a server that is not its parent stops at once and changes nothing", async () => {
  // a live process that is not the CLI's parent stands for a server that died (the orphan's ppid changed)
  const other = Bun.spawn(["sleep", "30"]);
  try {
    const p = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), "gravity", "--data-dir", dir], {
      env: { ...(process.env as Record<string, string>), [PARENT_PIPE_ENV]: String(other.pid) },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = await new Response(p.stdout).text();
    expect(await p.exited).toBe(1);
    expect(out).toContain("The server that started this update is gone");
    expect(out).not.toContain("Target:");
    const db = openGravityDb(dir);
    try {
      expect(names(db)).toEqual(["first.guard.test"]);
    } finally {
      db.close();
    }
  } finally {
    other.kill();
  }
});
