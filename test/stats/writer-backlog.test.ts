// The query writer's backlog (src/querylog/writer-protocol.ts MAX_BACKLOG, MAX_BACKLOG_BYTES): a thread that
// falls too far behind drops new records (counted) instead of queueing them without bound, by count and by
// bytes (records waiting for a thread that does not run are native memory, so long names fill it sooner).
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openQueryDb } from "../../src/db/index.ts";
import { QueryWriter } from "../../src/querylog/writer.ts";
import { rec } from "./fixture.ts";

const NOW = 1_800_000_000;

/**
 * 10 records stored, then `batches` batches of 500 sent while another connection holds the long-term
 * database (the thread waits up to 3 s for it), then released, then 500 more once caught up. Returns the
 * drops counted while it waited and the rows stored after the release and after the catch-up.
 */
function stalledWriter(
  bound: { maxBacklog?: number; maxBacklogBytes?: number },
  name: (i: number) => string,
  batches: number,
) {
  const dir = mkdtempSync(join(tmpdir(), "moat-backlog-"));
  const disk = openQueryDb(dir);
  const writer = new QueryWriter({ diskPath: disk.filename, log: () => {}, busyTimeoutMs: 3000, ...bound });
  const stored = () => (disk.query("SELECT COUNT(*) AS n FROM query_storage").get() as { n: number }).n;
  const recs = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: from + i, r: rec({ time: NOW, domain: name(from + i) }) }));
  try {
    for (const r of recs(1, 10)) writer.add(r.id, r.r);
    expect(writer.flushDisk(86400, NOW, true)).toBe(true);
    const other = new Database(disk.filename);
    other.exec("BEGIN EXCLUSIVE");
    writer.flushDisk(86400, NOW, false);
    for (let k = 0; k < batches; k++) {
      for (const r of recs(100 + k * 500, 500)) writer.add(r.id, r.r);
      writer.send();
    }
    const dropped = writer.counters.dropped;
    other.exec("ROLLBACK");
    other.close();
    expect(writer.flushDisk(86400, NOW, true)).toBe(true);
    const afterRelease = stored();
    for (const r of recs(9000, 500)) writer.add(r.id, r.r);
    expect(writer.flushDisk(86400, NOW, true)).toBe(true);
    return { dropped, afterRelease, afterCatchUp: stored() };
  } finally {
    writer.stop(86400, NOW);
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test("writer: a thread that falls too far behind drops new records (counted) instead of queueing them without bound", () => {
  const r = stalledWriter({ maxBacklog: 1000 }, (i) => `b${i}.example`, 6);
  // two batches fit under the limit; the other four wait nowhere: dropped and counted
  expect(r.dropped).toBe(2000);
  expect(r.afterRelease).toBe(1010);
  // caught up: new records are taken again
  expect(r.afterCatchUp).toBe(1510);
});

test("writer: the backlog is bounded in bytes too; a batch beyond it is dropped (counted)", () => {
  // a 500-record batch of 100-character names is ~156 kB queued (64 bytes of arrays and 123
  // characters as UTF-16 a record, 1 KiB a message): two fit in 400 kB, a third does not
  const r = stalledWriter(
    { maxBacklogBytes: 400_000 },
    (i) => `${String(i).padStart(8, "0")}.${"x".repeat(79)}.example.com`,
    4,
  );
  // the record bound (500k) is far off; the bytes bound takes two batches
  expect(r.dropped).toBe(1000);
  expect(r.afterRelease).toBe(1010);
  // caught up: the bytes are free again
  expect(r.afterCatchUp).toBe(1510);
});
