// The long-term database's reader thread (src/querylog/disk-reader.ts): a read's answer equals the
// same function run here, a bad filter comes back as a FilterError with its hint, the thread ends
// when idle and the next read starts another, and stop() fails what still waits.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openQueryDb } from "../../src/db/index.ts";
import { DiskReader } from "../../src/querylog/disk-reader.ts";
import { FilterError, queryPage, storedQueries } from "../../src/querylog/read.ts";
import { QueryStore } from "../../src/querylog/store.ts";
import { knownRecords } from "./fixture.ts";

const NOW = Math.floor(Date.now() / 1000);
const dir = mkdtempSync(join(tmpdir(), "moat-disk-reader-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("disk reader: the thread's answers, its refusals, its idle end and its stop", async () => {
  const db = openQueryDb(dir);
  const records = knownRecords(NOW);
  new QueryStore(db).insert(records.map((r, i) => ({ id: i + 1, r })));
  const reader = new DiskReader(db.filename, 100);
  try {
    expect(await reader.read("storedQueries")).toEqual(storedQueries(db));
    const filter = { domain: "*.example", length: 5 };
    const page = await reader.read("queryPage", filter);
    expect(page).toEqual(queryPage(db, filter));
    expect(page.queries.length).toBe(5);
    // hidden by pattern, as the API sends them
    const hidden = await reader.read("queryPage", { length: 100, hide: { domains: ["^ads\\."], clients: [] } });
    expect(hidden.queries.some((q) => q.domain.startsWith("ads."))).toBe(false);
    expect(hidden.recordsFiltered).toBe(records.filter((r) => !r.domain.startsWith("ads.")).length);

    const bad = await reader.read("queryPage", { cursor: records.length + 1 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(bad).toBeInstanceOf(FilterError);
    expect((bad as FilterError).hint).toBe("Cursor larger than largest database index");

    // idle past 100 ms: the thread ends, and the next read starts another
    await Bun.sleep(300);
    expect((await reader.read("storedQueries")).count).toBe(records.length);

    const pending = reader.read("storedQueries");
    reader.stop();
    await expect(pending).rejects.toThrow("reader stopped");
  } finally {
    reader.stop();
    db.close();
  }
});
