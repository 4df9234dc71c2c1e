// watchFile notices every way a settings file is saved: written in place, replaced by rename (twice,
// so the watch must follow the new inode), deleted and written again; and a busy neighbour in the
// same directory (the query databases live beside pihole.toml) is not a change.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { watchFile } from "../../src/config/file.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-watch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function waitFor(cond: () => boolean, ms = 5000): Promise<boolean> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) return false;
    await Bun.sleep(10);
  }
  return true;
}

test("in-place writes, renames over it (twice), delete and re-create are noticed; a neighbour's writes are not", async () => {
  const file = join(dir, "pihole.toml");
  writeFileSync(file, "a = 1\n");
  let calls = 0;
  const stop = watchFile(file, () => calls++);
  try {
    const saves: Array<[string, () => void]> = [
      ["in place", () => writeFileSync(file, "a = 2\n")],
      ["rename over", () => (writeFileSync(`${file}.tmp`, "a = 3\n"), renameSync(`${file}.tmp`, file))],
      ["rename over again", () => (writeFileSync(`${file}.tmp`, "a = 44\n"), renameSync(`${file}.tmp`, file))],
      ["in place after renames", () => writeFileSync(file, "a = 555\n")],
      ["deleted", () => unlinkSync(file)],
      ["written again", () => writeFileSync(file, "a = 6666\n")],
    ];
    for (const [what, save] of saves) {
      const before = calls;
      save();
      expect([what, await waitFor(() => calls === before + 1)]).toEqual([what, true]);
    }
    const before = calls;
    for (let i = 0; i < 50; i++) writeFileSync(join(dir, "pihole-FTL.db-wal"), `row ${i}\n`, { flag: "a" });
    await Bun.sleep(1200);
    expect(calls).toBe(before);
  } finally {
    stop();
  }
});
