// Writer cost per record: QueryStore.insert() into the 24 h log's layout (lean indexes, tmpfs WAL as the
// writer thread opens it) and into the long-term database (every index), in transactions of the sizes the
// writer thread sees (100: 10k QPS for 10 ms; 1000: HOLD_MS at 10k QPS; 4096: HOLD_MAX).
// Usage: bun bench/querylog/insert.ts [records=200000]
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { QUERY_SCHEMA } from "../../src/db/query-schema.ts";
import { Reply, Status } from "../../src/query/enums.ts";
import type { StoredRecord } from "../../src/query/record.ts";
import { QueryStore } from "../../src/querylog/store.ts";

const N = Number(process.argv[2] ?? 200_000);
const dir = mkdtempSync(join(tmpdir(), "moat-bench-insert-"));
let seed = 2463534242;
const rnd = () => ((seed ^= seed << 13), (seed ^= seed >>> 17), (seed ^= seed << 5), (seed >>> 0) / 4294967296);
const now = Math.floor(Date.now() / 1000);

function records(n: number, firstId: number): StoredRecord[] {
  const out: StoredRecord[] = [];
  for (let i = 0; i < n; i++) {
    const d = Math.floor(100_000 * rnd() ** 3);
    const fwd = rnd() < 0.4;
    out.push({
      id: firstId + i,
      r: {
        time: now - 3600 + i / 1000,
        type: rnd() < 0.1 ? 2 : 1,
        domain: `d${d}.site${d % 13}.example`,
        client: `192.168.1.${Math.floor(rnd() * 40)}`,
        status: fwd ? Status.FORWARDED : Status.CACHE,
        reply: Reply.IP,
        replyTime: fwd ? 12.5 : 0.05,
        upstream: fwd ? "127.0.0.1#53" : null,
        dnssec: 0,
        listId: null,
        ede: -1,
        cname: null,
      },
    });
  }
  return out;
}

function open(name: string, lean: boolean): QueryStore {
  const db = new Database(join(dir, name), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(lean ? "PRAGMA synchronous = OFF" : "PRAGMA synchronous = NORMAL");
  if (lean) db.exec("PRAGMA wal_autocheckpoint = 256");
  db.exec(QUERY_SCHEMA);
  return new QueryStore(db, lean);
}

for (const [label, lean] of [
  ["24 h log (lean)", true],
  ["long-term (all indexes)", false],
] as const) {
  for (const batch of [100, 1000, 4096]) {
    const store = open(`${lean ? "mem" : "disk"}-${batch}.db`, lean);
    // warm: the id maps and the statement cache
    store.insert(records(batch, 1));
    let id = batch + 1;
    const all = records(N, id);
    const t0 = performance.now();
    for (let i = 0; i < all.length; i += batch) store.insert(all.slice(i, i + batch));
    const ms = performance.now() - t0;
    id += N;
    console.log(`${label.padEnd(24)} batch ${String(batch).padStart(4)}: ${((ms * 1000) / N).toFixed(2)} µs/record`);
    store.db.close();
  }
}
rmSync(dir, { recursive: true, force: true });
