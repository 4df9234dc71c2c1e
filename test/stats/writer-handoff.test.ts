// The query writer's hand-off (src/querylog/writer.ts HANDOFF_RECORDS, HANDOFF_MS): records go to the
// writer thread in batches of 100 (looked at every 10 ms), and a smaller batch after 100 ms, not one
// message per 10 ms whatever the rate (at 1k QPS that woke the thread for every 10 records).
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openQueryDb } from "../../src/db/index.ts";
import { HANDOFF_MS, HANDOFF_RECORDS, QueryWriter } from "../../src/querylog/writer.ts";
import { rec } from "./fixture.ts";

const NOW = 1_800_000_000;

test("writer: a few records wait for the batch's time, a full batch leaves at the next tick", async () => {
  const dir = mkdtempSync(join(tmpdir(), "moat-handoff-"));
  const disk = openQueryDb(dir);
  const writer = new QueryWriter({ diskPath: disk.filename, log: () => {} });
  try {
    writer.start();
    for (let i = 1; i <= 5; i++) writer.add(i, rec({ time: NOW, domain: `h${i}.example` }));
    await Bun.sleep(30);
    expect(writer.waiting).toBe(5); // still here after 30 ms: no message for 5 records
    await Bun.sleep(HANDOFF_MS + 50);
    expect(writer.waiting).toBe(0); // handed over once the batch's time came
    for (let i = 0; i < HANDOFF_RECORDS - 1; i++) writer.add(10 + i, rec({ time: NOW, domain: `f${i}.example` }));
    expect(writer.waiting).toBe(HANDOFF_RECORDS - 1);
    writer.add(1000, rec({ time: NOW, domain: "last.example" }));
    await Bun.sleep(40);
    expect(writer.waiting).toBe(0); // the full batch left at the next 10 ms tick, not after 100 ms
    expect(writer.flushDisk(86400, NOW, true)).toBe(true);
    const n = (disk.query("SELECT COUNT(*) AS n FROM query_storage").get() as { n: number }).n;
    expect(n).toBe(5 + HANDOFF_RECORDS);
  } finally {
    writer.stop(86400, NOW);
    disk.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
