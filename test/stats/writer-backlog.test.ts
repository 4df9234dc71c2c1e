// The query writer's backlog in bytes (src/querylog/writer-protocol.ts MAX_BACKLOG_BYTES): records
// waiting for a thread that does not run are native memory, so long names fill the bound sooner.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openQueryDb } from "../../src/db/index.ts";
import { QueryWriter } from "../../src/querylog/writer.ts";
import { rec } from "./fixture.ts";

const NOW = 1_800_000_000;

test("writer: the backlog is bounded in bytes too; a batch beyond it is dropped (counted)", () => {
  const dir = mkdtempSync(join(tmpdir(), "moat-backlog-"));
  const disk = openQueryDb(dir);
  // a 500-record batch of 100-character names is ~156 kB queued (64 bytes of arrays and 123
  // characters as UTF-16 a record, 1 KiB a message): two fit in 400 kB, a third does not
  const writer = new QueryWriter({
    diskPath: disk.filename,
    log: () => {},
    busyTimeoutMs: 3000,
    maxBacklogBytes: 400_000,
  });
  const stored = () => (disk.query("SELECT COUNT(*) AS n FROM query_storage").get() as { n: number }).n;
  const name = (i: number) => `${String(i).padStart(8, "0")}.${"x".repeat(79)}.example.com`;
  const recs = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: from + i, r: rec({ time: NOW, domain: name(from + i) }) }));
  try {
    for (const r of recs(1, 10)) writer.add(r);
    expect(writer.flushDisk(86400, NOW, true)).toBe(true);
    // the thread now waits (up to 3 s) for the long-term database another connection holds
    const other = new Database(disk.filename);
    other.exec("BEGIN EXCLUSIVE");
    writer.flushDisk(86400, NOW, false);
    for (let k = 0; k < 4; k++) {
      for (const r of recs(100 + k * 500, 500)) writer.add(r);
      writer.send();
    }
    // the record bound (500k) is far off; the bytes bound takes two batches
    expect(writer.counters.dropped).toBe(1000);
    other.exec("ROLLBACK");
    other.close();
    expect(writer.flushDisk(86400, NOW, true)).toBe(true);
    expect(stored()).toBe(1010);
    // caught up: the bytes are free again
    for (const r of recs(9000, 500)) writer.add(r);
    expect(writer.flushDisk(86400, NOW, true)).toBe(true);
    expect(stored()).toBe(1510);
  } finally {
    writer.stop(86400, NOW);
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
